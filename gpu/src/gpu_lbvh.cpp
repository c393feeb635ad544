#include "gpu_lbvh.hpp"

#include <array>
#include <cmath>

#include "buffer_fill.hpp"
#include "collide/morton.hpp"

#include "shaders/gpu/common.glsl.hpp"
#include "shaders/gpu/lbvh_boxes.comp.hpp"
#include "shaders/gpu/lbvh_build.comp.hpp"
#include "shaders/gpu/lbvh_codes.comp.hpp"
#include "shaders/gpu/lbvh_pairs.comp.hpp"
#include "shaders/gpu/pair_emit.glsl.hpp"

namespace collide::gpu {

using namespace collidoscope::shaders;

namespace {
constexpr std::size_t kGroup = 256;
constexpr int kCodeBits = 32;  // 16 bits an axis in 2D, 10 in 3D (the low 30 of 32)
constexpr std::uint32_t kNoParent = 0xFFFFFFFFu;  // the root's parent (lbvh_boxes.comp)
}  // namespace

template <int D>
void GpuLbvh<D>::build(const SceneBounds<D>& bounds) {
    host_fresh_ = false;
    const std::size_t n = this->count_;
    ComputeContext& ctx = *this->context_;
    for (StorageBuffer* b : {&codes_, &ids_}) b->reserve(n * 4);
    nodes_.reserve((n - 1) * sizeof(glm::uvec4));
    parents_.reserve((2 * n - 1) * 4);
    node_boxes_.reserve((2 * n - 1) * 2 * sizeof(glm::vec4));
    visits_.reserve((n - 1) * 4);

    const GLuint codes = ctx.program("lbvh_codes", D, {kCommonGlsl, kLbvhCodesComp});
    glUseProgram(codes);
    set_uint(codes, "u_count", static_cast<std::uint32_t>(n));
    // The bounds fill 2 Quantizer::kMiddleAt (14/15) of each axis's code range, not all of
    // it, so that their middle lies where the CPU's Morton frames put it, off every level's
    // split. Filled, the middle was the tree's first split: a symmetric world gathers
    // bodies on its centre lines, and each box across a split widens both halves' bounds.
    const float top = D == 2 ? 65535.0f : 1023.0f;
    const float used = 2.0f * morton::Quantizer<D>::kMiddleAt * top;
    Vec<D> scale(0.0f);
    for (int k = 0; k < D; ++k) {
        const float extent = bounds.box.hi[k] - bounds.box.lo[k];
        scale[k] = extent > 0.0f && std::isfinite(used / extent) ? used / extent : 0.0f;
    }
    if constexpr (D == 2) {
        glUniform2fv(glGetUniformLocation(codes, "u_origin"), 1, &bounds.box.lo[0]);
        glUniform2fv(glGetUniformLocation(codes, "u_scale"), 1, &scale[0]);
    } else {
        glUniform3fv(glGetUniformLocation(codes, "u_origin"), 1, &bounds.box.lo[0]);
        glUniform3fv(glGetUniformLocation(codes, "u_scale"), 1, &scale[0]);
    }
    this->boxes_.bind(kBoxBinding);
    codes_.bind(2);
    ids_.bind(3);
    dispatch(groups_for(n, kGroup));

    this->next_stage(kStageKeySort);
    const std::array<RadixSort::Field, 1> fields{{{0, D == 2 ? kCodeBits : 30}}};
    const std::array<StorageBuffer*, 2> data{&codes_, &ids_};
    const std::array<StorageBuffer*, 2> scratch{&codes_scratch_, &ids_scratch_};
    this->sort_.sort(ctx, data, scratch, n, fields);

    this->next_stage(kStageStructure);
    fill_words(ctx, parents_, kNoParent);
    fill_words(ctx, visits_, 0);
    if (n >= 2) {
        const GLuint build = ctx.program("lbvh_build", D, {kCommonGlsl, kLbvhBuildComp});
        glUseProgram(build);
        set_uint(build, "u_count", static_cast<std::uint32_t>(n));
        codes_.bind(2);
        nodes_.bind(4);
        parents_.bind(5);
        dispatch(groups_for(n - 1, kGroup));
    }
    const GLuint boxes = ctx.program("lbvh_boxes", D, {kCommonGlsl, kLbvhBoxesComp});
    glUseProgram(boxes);
    set_uint(boxes, "u_count", static_cast<std::uint32_t>(n));
    this->boxes_.bind(kBoxBinding);
    ids_.bind(3);
    nodes_.bind(4);
    parents_.bind(5);
    node_boxes_.bind(9);
    visits_.bind(10);
    dispatch(groups_for(n, kGroup));
}

template <int D>
GLuint GpuLbvh<D>::pair_program() {
    return this->context_->program("lbvh_pairs", D, {kCommonGlsl, kPairEmitGlsl, kLbvhPairsComp});
}

template <int D>
void GpuLbvh<D>::bind_pair_inputs() {
    ids_.bind(3);
    nodes_.bind(4);
    node_boxes_.bind(9);
}

template <int D>
BroadPhaseStats GpuLbvh<D>::structure_stats() const {
    BroadPhaseStats s;
    s.nodes = this->count_ == 0 ? 0 : 2 * this->count_ - 1;
    s.structure_bytes = codes_.bytes() + ids_.bytes() + codes_scratch_.bytes() +
                        ids_scratch_.bytes() + nodes_.bytes() + parents_.bytes() +
                        node_boxes_.bytes() + visits_.bytes();
    if (host_fresh_) s.depth = host_.max_depth;
    return s;
}

template <int D>
const typename GpuLbvh<D>::HostTree& GpuLbvh<D>::host_tree() const {
    if (host_fresh_) return host_;
    this->context_->make_current();
    const std::size_t n = this->count_;
    const std::size_t all = n == 0 ? 0 : 2 * n - 1;
    host_.nodes.resize(n == 0 ? 0 : n - 1);
    host_.ids.resize(n);
    host_.codes.resize(n);
    host_.parents.resize(all);
    std::vector<glm::vec4> raw(2 * all);
    nodes_.download(std::span<glm::uvec4>(host_.nodes));
    ids_.download(std::span<std::uint32_t>(host_.ids));
    codes_.download(std::span<std::uint32_t>(host_.codes));
    parents_.download(std::span<std::uint32_t>(host_.parents));
    node_boxes_.download(std::span<glm::vec4>(raw));
    host_.boxes.resize(all);
    for (std::size_t k = 0; k < all; ++k) {
        for (int a = 0; a < D; ++a) {
            host_.boxes[k].lo[a] = raw[2 * k][a];
            host_.boxes[k].hi[a] = raw[2 * k + 1][a];
        }
    }
    // Depths from the root down (Karras' layout does not number parents before children).
    host_.depth.assign(all, 0);
    host_.max_depth = 0;
    if (n >= 2) {
        std::vector<std::uint32_t> stack{0};
        while (!stack.empty()) {
            const std::uint32_t node = stack.back();
            stack.pop_back();
            host_.max_depth = std::max<int>(host_.max_depth, host_.depth[node]);
            if (node >= n - 1) continue;
            for (std::uint32_t child : {host_.nodes[node].x, host_.nodes[node].y}) {
                // A broken tree (validate() reports it) must not loop or index out of range.
                if (child >= all || host_.depth[node] == 255) continue;
                host_.depth[child] = static_cast<std::uint8_t>(host_.depth[node] + 1);
                stack.push_back(child);
            }
        }
    }
    host_fresh_ = true;
    return host_;
}

template <int D>
void GpuLbvh<D>::validate() const {
    const std::size_t n = this->count_;
    if (n == 0) return;
    const InvariantFail fail("gpu-lbvh");
    const HostTree& t = host_tree();
    this->check_permutation("gpu-lbvh", t.ids);
    for (std::size_t p = 1; p < n; ++p) {
        if (t.codes[p - 1] > t.codes[p]) fail("codes out of order at leaf " + std::to_string(p));
    }
    const std::size_t leaves = n - 1;  // index of leaf 0 among the nodes
    const std::vector<Aabb<D>>& boxes = this->boxes_on_host();
    bool finite = true;  // min and max of a NaN are the driver's choice: no union check then
    for (std::size_t p = 0; p < n; ++p) {
        const Aabb<D>& body = boxes[t.ids[p]];
        finite = finite && finite_box(body);
        if (finite_box(body) && !same_box(t.boxes[leaves + p], body)) {
            fail("leaf " + std::to_string(p) + " does not hold body " + std::to_string(t.ids[p]) +
                 "'s box");
        }
    }
    if (n < 2) return;
    if (t.parents[0] != kNoParent) {
        fail("the root names node " + std::to_string(t.parents[0]) + " as its parent");
    }
    const auto range = [&](std::uint32_t node) {
        if (node >= 2 * n - 1) fail("child " + std::to_string(node) + " past the nodes");
        if (node >= leaves) return glm::uvec2(node - leaves);
        return glm::uvec2(t.nodes[node].z, t.nodes[node].w);
    };
    if (range(0) != glm::uvec2(0, n - 1)) fail("the root does not span every leaf");
    for (std::uint32_t node = 0; node < leaves; ++node) {
        const glm::uvec4 nd = t.nodes[node];
        const glm::uvec2 left = range(nd.x);
        const glm::uvec2 right = range(nd.y);
        if (left.x != nd.z || left.y + 1 != right.x || right.y != nd.w) {
            fail("node " + std::to_string(node) + "'s children do not split its leaves " +
                 std::to_string(nd.z) + ".." + std::to_string(nd.w));
        }
        if (t.parents[nd.x] != node || t.parents[nd.y] != node) {
            fail("node " + std::to_string(node) + "'s children name another parent");
        }
        Aabb<D> both = t.boxes[nd.x];  // as the kernel's min and max make the union
        both.grow(t.boxes[nd.y]);
        if (finite && !same_box(t.boxes[node], both)) {
            fail("node " + std::to_string(node) + "'s box is not its children's union");
        }
    }
}

template <int D>
std::uint32_t GpuLbvh<D>::leaf_of(BodyId id) const {
    const HostTree& t = host_tree();
    for (std::uint32_t p = 0; p < t.ids.size(); ++p) {
        if (t.ids[p] == id) return p;
    }
    return kNoBody;
}

template <int D>
void GpuLbvh<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                        QueryTrace<D>* trace) const {
    out.clear();
    const std::size_t n = this->count_;
    if (n == 0) return;
    const HostTree& t = host_tree();
    const std::uint32_t leaves = static_cast<std::uint32_t>(n - 1);
    std::vector<std::uint32_t> stack{0};
    while (!stack.empty()) {
        const std::uint32_t node = stack.back();
        stack.pop_back();
        const Aabb<D>& box = t.boxes[node];
        if (!box.overlaps(region)) {
            if (trace && node < leaves) trace->add(box, TraceKind::kPruned);
            continue;
        }
        if (node >= leaves) {
            out.push_back(t.ids[node - leaves]);
            continue;
        }
        if (trace) trace->add(box, TraceKind::kDescended);
        stack.push_back(t.nodes[node].x);
        stack.push_back(t.nodes[node].y);
    }
}

template class GpuLbvh<2>;
template class GpuLbvh<3>;

}  // namespace collide::gpu
