#include "gpu_grid.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <string>
#include <string_view>
#include <utility>

#include "buffer_fill.hpp"
#include "shaders/gpu/common.glsl.hpp"
#include "shaders/gpu/grid_cells.comp.hpp"
#include "shaders/gpu/grid_keys.comp.hpp"
#include "shaders/gpu/grid_levels.glsl.hpp"
#include "shaders/gpu/grid_pairs.comp.hpp"
#include "shaders/gpu/pair_emit.glsl.hpp"

namespace collide::gpu {

using namespace collidoscope::shaders;

namespace {
constexpr std::size_t kGroup = 256;
// A level's cell holds bodies up to this share of its side: the slack absorbs rounding in
// the cell coordinates, so a body never reaches more than one cell past its own.
constexpr float kFit = 15.0f / 16.0f;
}  // namespace

template <int D>
GridLayout<D> GridLayout<D>::from(const SceneBounds<D>& bounds, std::size_t bodies) {
    // Keys of every level must fit 32 bits: the finest level has at most 2^30 cells (2^15 an
    // axis in 2D, 2^10 in 3D), and each coarser one a quarter (an eighth) of that.
    constexpr float kMaxCells = D == 2 ? 32768.0f : 1024.0f;
    GridLayout g;
    g.origin = bounds.box.lo;
    // Laid out from the top: the coarsest level's cells just hold the largest body, and
    // each finer level halves them while some body could still be that small. A size
    // spread under 2 (uniform's radii, 0.5 to 1) is then one level, as a plain grid.
    const float extent = bounds.box.largest_side();
    const float top = bounds.max_side / kFit;
    const float ratio = bounds.max_side * kFit / bounds.min_side;  // inf for points
    g.levels = !(ratio > 1.0f) ? 1
               : std::isfinite(ratio)
                   ? std::min(kMaxLevels, 1 + static_cast<int>(std::floor(std::log2(ratio))))
                   : kMaxLevels;
    g.c0 = std::ldexp(top, 1 - g.levels);
    // At most kMaxCells an axis: drop the finest levels that would have more.
    const float finest = extent / (kMaxCells - 1.0f);
    while (g.levels > 1 && g.c0 < finest) {
        --g.levels;
        g.c0 *= 2.0f;
    }
    g.c0 = std::max(g.c0, finest);
    if (!(g.c0 > 0.0f) || !std::isfinite(g.c0)) g.c0 = 1.0f;  // every box one point
    std::uint64_t cells = 0;
    for (int l = 0; l < g.levels; ++l) {
        g.fit[l] = g.cell(l) * kFit;
        g.inv_cell[l] = 1.0f / g.cell(l);
        std::uint64_t level_cells = 1;
        for (int k = 0; k < 3; ++k) {
            const float n = k < D ? (bounds.box.hi[k] - g.origin[k]) * g.inv_cell[l] : 0.0f;
            g.dims[l][k] = static_cast<std::uint32_t>(std::clamp(n, 0.0f, kMaxCells - 1.0f)) + 1;
            if (k < D) level_cells *= g.dims[l][k];
        }
        g.base[l] = static_cast<std::uint32_t>(cells);
        cells += level_cells;
    }
    assert(cells < (std::uint64_t{1} << 32));
    g.cells = static_cast<std::uint32_t>(cells);
    g.hashed = cells > kDenseCellsPerBody * std::max<std::uint64_t>(bodies, 1);
    // Hashed: at least 1.5 slots a body, a power of two (three 8-bit sort passes up to
    // 11M bodies).
    g.slots = g.hashed ? static_cast<std::uint32_t>(std::bit_ceil(bodies + bodies / 2)) : g.cells;
    return g;
}

template <int D>
int GridLayout<D>::level_of(float side) const {
    int l = 0;
    while (l + 1 < levels && fit[l] < side) ++l;
    return l;
}

template <int D>
std::array<int, D> GridLayout<D>::cell_at(const Vec<D>& p, int level) const {
    std::array<int, D> c{};
    for (int k = 0; k < D; ++k) {
        const float f = std::floor((p[k] - origin[k]) * inv_cell[level]);
        const float top = static_cast<float>(dims[level][k] - 1);
        c[k] = static_cast<int>(std::clamp(f, 0.0f, top));
    }
    return c;
}

template <int D>
std::uint32_t GridLayout<D>::key(const std::array<int, D>& c, int level) const {
    std::uint32_t k = static_cast<std::uint32_t>(c[D - 1]);
    for (int a = D - 2; a >= 0; --a) k = k * dims[level][a] + static_cast<std::uint32_t>(c[a]);
    return base[level] + k;
}

template <int D>
std::uint32_t GridLayout<D>::slot(std::uint32_t key) const {
    if (!hashed) return key;
    std::uint32_t h = key;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h & (slots - 1);
}

template <int D>
Aabb<D> GridLayout<D>::cell_box(const std::array<int, D>& c, int level) const {
    const float side = cell(level);
    Aabb<D> box;
    for (int k = 0; k < D; ++k) {
        box.lo[k] = origin[k] + static_cast<float>(c[k]) * side;
        box.hi[k] = box.lo[k] + side;
    }
    return box;
}

template <int D>
CellRange<D> GridLayout<D>::reach(const Aabb<D>& box, int level) const {
    CellRange<D> r{cell_at(box.lo, level), cell_at(box.hi, level)};
    for (int k = 0; k < D; ++k) r.from[k] = std::max(r.from[k] - 1, 0);
    return r;
}

template <int D>
void set_grid_uniforms(GLuint program, const GridLayout<D>& g) {
    if constexpr (D == 2) {
        glUniform2fv(glGetUniformLocation(program, "u_origin"), 1, &g.origin[0]);
    } else {
        glUniform3fv(glGetUniformLocation(program, "u_origin"), 1, &g.origin[0]);
    }
    glUniform1ui(glGetUniformLocation(program, "u_levels"), static_cast<GLuint>(g.levels));
    glUniform1fv(glGetUniformLocation(program, "u_fit"), g.levels, g.fit.data());
    glUniform1fv(glGetUniformLocation(program, "u_inv_cell"), g.levels, g.inv_cell.data());
    glUniform3uiv(glGetUniformLocation(program, "u_dims"), g.levels, g.dims[0].data());
    glUniform1uiv(glGetUniformLocation(program, "u_base"), g.levels, g.base.data());
    glUniform1ui(glGetUniformLocation(program, "u_hashed"), g.hashed ? 1u : 0u);
    glUniform1ui(glGetUniformLocation(program, "u_slots"), g.slots);
}

namespace {
// Puts the grid kernel `key` (common.glsl, grid_levels.glsl, then `kernel`) in use with the
// layout's uniforms, for `n` bodies.
template <int D>
void use_grid_kernel(ComputeContext& ctx, const char* key, std::string_view kernel,
                     const GridLayout<D>& layout, std::size_t n) {
    const GLuint program = ctx.program(key, D, {kCommonGlsl, kGridLevelsGlsl, kernel});
    glUseProgram(program);
    set_uint(program, "u_count", static_cast<std::uint32_t>(n));
    set_grid_uniforms(program, layout);
}
}  // namespace

template <int D>
void GridCells::key(ComputeContext& ctx, const GridLayout<D>& layout, const StorageBuffer& boxes,
                    const StorageBuffer& statics, std::size_t n) {
    for (StorageBuffer* b : {&slots, &tags}) b->reserve(n * 4);
    level_mask.reserve(4);
    level_mask.fill(0);
    use_grid_kernel(ctx, "grid_keys", kGridKeysComp, layout, n);
    bind();
    boxes.bind(kBoxBinding);
    statics.bind(kStaticBinding);
    dispatch(groups_for(n, kGroup));
}

template <int D>
void GridCells::sort(ComputeContext& ctx, RadixSort& sort, const GridLayout<D>& layout,
                     std::size_t n) {
    const std::array<RadixSort::Field, 1> fields{{{0, bits_below(layout.slots)}}};
    const std::array<StorageBuffer*, 2> data{&slots, &tags};
    const std::array<StorageBuffer*, 2> scratch{&slots_scratch, &tags_scratch};
    sort.sort(ctx, data, scratch, n, fields);
}

template <int D>
void GridCells::fill_table(ComputeContext& ctx, const GridLayout<D>& layout,
                           const StorageBuffer& boxes, std::size_t n) {
    ranges.reserve(std::size_t{layout.slots} * 2 * sizeof(std::uint32_t));
    fill_words(ctx, ranges, 0);  // every slot an empty run
    sorted_boxes.reserve(n * (D == 2 ? 1 : 2) * 4 * sizeof(float));
    use_grid_kernel(ctx, "grid_cells", kGridCellsComp, layout, n);
    bind();
    boxes.bind(kBoxBinding);  // the sort used this binding
    dispatch(groups_for(n, kGroup));
}

template <int D>
void GridCells::build(ComputeContext& ctx, RadixSort& radix, const GridLayout<D>& layout,
                      const StorageBuffer& boxes, const StorageBuffer& statics, std::size_t n) {
    key(ctx, layout, boxes, statics, n);
    sort(ctx, radix, layout, n);
    fill_table(ctx, layout, boxes, n);
}

void GridCells::bind() const {
    slots.bind(2);
    tags.bind(3);
    ranges.bind(4);
    level_mask.bind(5);
    sorted_boxes.bind(9);
}

std::size_t GridCells::bytes() const {
    return slots.bytes() + tags.bytes() + slots_scratch.bytes() + tags_scratch.bytes() +
           ranges.bytes() + sorted_boxes.bytes() + level_mask.bytes();
}

template <int D>
void GpuGrid<D>::build(const SceneBounds<D>& bounds) {
    host_fresh_ = false;
    layout_ = GridLayout<D>::from(bounds, this->count_);
    ComputeContext& ctx = *this->context_;
    cells_.key(ctx, layout_, this->boxes_, this->statics_, this->count_);
    this->next_stage(kStageKeySort);
    cells_.sort(ctx, this->sort_, layout_, this->count_);
    this->next_stage(kStageStructure);
    cells_.fill_table(ctx, layout_, this->boxes_, this->count_);
}

template <int D>
GLuint GpuGrid<D>::pair_program() {
    return this->context_->program("grid_pairs", D,
                                   {kCommonGlsl, kPairEmitGlsl, kGridLevelsGlsl, kGridPairsComp});
}

template <int D>
void GpuGrid<D>::bind_pair_inputs() {
    set_grid_uniforms(pair_program(), layout_);
    cells_.bind();
}

template <int D>
BroadPhaseStats GpuGrid<D>::structure_stats() const {
    BroadPhaseStats s;
    s.depth = layout_.levels;
    s.nodes = layout_.slots;
    s.structure_bytes = cells_.bytes();
    return s;
}

template <int D>
const typename GpuGrid<D>::HostGrid& GpuGrid<D>::host_grid() const {
    if (host_fresh_) return host_;
    this->context_->make_current();
    const std::size_t n = this->count_;
    host_.slots.resize(n);
    cells_.slots.download(std::span<std::uint32_t>(host_.slots));
    std::vector<std::uint32_t> tags(n);
    cells_.tags.download(std::span<std::uint32_t>(tags));
    // grid_levels.glsl's tag_body and tag_level.
    host_.ids.resize(n);
    host_.levels.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
        host_.ids[k] = tags[k] >> 6;
        host_.levels[k] = static_cast<int>(tags[k] & 31u);
    }
    host_.level_mask = 0;
    if (n > 0) cells_.level_mask.download(std::span<std::uint32_t>(&host_.level_mask, 1));
    host_fresh_ = true;
    return host_;
}

template <int D>
void GpuGrid<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                        QueryTrace<D>* trace) const {
    out.clear();
    if (this->count_ == 0) return;
    const HostGrid& h = host_grid();
    const std::vector<Aabb<D>>& boxes = this->boxes_on_host();
    for (int level = 0; level < layout_.levels; ++level) {
        if ((h.level_mask & (1u << level)) == 0) continue;
        const CellRange<D> reached = layout_.reach(region, level);
        if (reached.count() > h.ids.size()) {
            // More cells than bodies (a fine level stretched by a giant's bounds): read the
            // level's entries once, with the same cell test.
            for (std::size_t k = 0; k < h.ids.size(); ++k) {
                const BodyId j = h.ids[k];
                if (h.levels[k] == level && reached.contains(layout_.cell_at(boxes[j].lo, level)) &&
                    boxes[j].overlaps(region)) {
                    out.push_back(j);
                }
            }
            continue;
        }
        reached.for_each([&](const std::array<int, D>& c) {
            bool any = false;
            for_each_in_cell(c, level, [&](std::size_t k) {
                any = true;
                if (boxes[h.ids[k]].overlaps(region)) out.push_back(h.ids[k]);
            });
            if (trace && any) trace->add(layout_.cell_box(c, level), TraceKind::kDescended);
        });
    }
}

template <int D>
void GpuGrid<D>::validate() const {
    const std::size_t n = this->count_;
    if (n == 0) return;
    const InvariantFail fail("gpu-grid");
    const HostGrid& h = host_grid();
    this->check_permutation("gpu-grid", h.ids);
    for (std::size_t p = 1; p < n; ++p) {
        if (h.slots[p - 1] > h.slots[p])
            fail("slots out of order at sorted position " + std::to_string(p));
    }
    if (layout_.hashed && std::popcount(layout_.slots) != 1)
        fail("a hashed table of no power of two");
    // The host mirrors the kernels' float operations (its queries rely on it), so a body
    // keyed elsewhere is a kernel that computed otherwise. NaN has no defined cell.
    const std::vector<Aabb<D>>& boxes = this->boxes_on_host();
    std::vector<glm::vec4> sorted(n * (D == 2 ? 1 : 2));
    cells_.sorted_boxes.download(std::span<glm::vec4>(sorted));
    std::vector<glm::uvec2> ranges(layout_.slots);
    cells_.ranges.download(std::span<glm::uvec2>(ranges));
    for (std::size_t p = 0; p < n; ++p) {
        const BodyId id = h.ids[p];
        const Aabb<D>& box = boxes[id];
        for (int k = 0; k < D; ++k) {
            const float lo = D == 2 ? sorted[p][k] : sorted[2 * p][k];
            const float hi = D == 2 ? sorted[p][2 + k] : sorted[2 * p + 1][k];
            const bool same = (lo == box.lo[k] || (std::isnan(lo) && std::isnan(box.lo[k]))) &&
                              (hi == box.hi[k] || (std::isnan(hi) && std::isnan(box.hi[k])));
            if (!same)
                fail("sorted position " + std::to_string(p) + " holds another box than body " +
                     std::to_string(id) + "'s");
        }
        const glm::uvec2 run = ranges[h.slots[p]];
        if (p < run.x || p >= run.y)
            fail("slot " + std::to_string(h.slots[p]) + "'s run misses sorted position " +
                 std::to_string(p));
        if (!finite_box(box)) continue;
        const int level = layout_.level_of(box.largest_side());
        const std::uint32_t slot = layout_.slot(layout_.key(layout_.cell_at(box.lo, level), level));
        if (h.levels[p] != level || h.slots[p] != slot) {
            fail("body " + std::to_string(id) + " at level " + std::to_string(h.levels[p]) +
                 ", slot " + std::to_string(h.slots[p]) + "; the host finds level " +
                 std::to_string(level) + ", slot " + std::to_string(slot));
        }
        if ((h.level_mask & (1u << level)) == 0) {
            fail("level " + std::to_string(level) + " in use but not in the mask");
        }
    }
}

template struct GridLayout<2>;
template struct GridLayout<3>;
template void GridCells::key<2>(ComputeContext&, const GridLayout<2>&, const StorageBuffer&,
                                const StorageBuffer&, std::size_t);
template void GridCells::key<3>(ComputeContext&, const GridLayout<3>&, const StorageBuffer&,
                                const StorageBuffer&, std::size_t);
template void GridCells::sort<2>(ComputeContext&, RadixSort&, const GridLayout<2>&, std::size_t);
template void GridCells::sort<3>(ComputeContext&, RadixSort&, const GridLayout<3>&, std::size_t);
template void GridCells::fill_table<2>(ComputeContext&, const GridLayout<2>&, const StorageBuffer&,
                                       std::size_t);
template void GridCells::fill_table<3>(ComputeContext&, const GridLayout<3>&, const StorageBuffer&,
                                       std::size_t);
template void GridCells::build<2>(ComputeContext&, RadixSort&, const GridLayout<2>&,
                                  const StorageBuffer&, const StorageBuffer&, std::size_t);
template void GridCells::build<3>(ComputeContext&, RadixSort&, const GridLayout<3>&,
                                  const StorageBuffer&, const StorageBuffer&, std::size_t);
template void set_grid_uniforms<2>(GLuint, const GridLayout<2>&);
template void set_grid_uniforms<3>(GLuint, const GridLayout<3>&);
template class GpuGrid<2>;
template class GpuGrid<3>;

}  // namespace collide::gpu
