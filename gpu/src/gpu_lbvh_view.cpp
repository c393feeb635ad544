// What the GPU's linear BVH shows the viewer: its node boxes by depth, the selected body's
// leaf, its ancestors and its own walk (the nodes its pair traversal tested), and the
// region query's visits. All of it from the tree read back once after an update.
#include <sstream>

#include "gpu_lbvh.hpp"

namespace collide::gpu {

namespace {
constexpr Color kAncestorColor = rgba(1.0f, 0.6f, 0.2f, 0.9f);
constexpr Color kWalkEnteredColor = kTraceDescendedColor;
constexpr Color kWalkMissedColor = rgba(1.0f, 0.3f, 0.3f, 0.7f);
}  // namespace

template <int D>
void GpuLbvh<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    const std::size_t n = this->count_;
    if (n < 2) return;
    const HostTree& t = host_tree();
    const std::uint32_t leaves = static_cast<std::uint32_t>(n - 1);
    const std::uint32_t leaf = which.selected == kNoBody ? kNoBody : leaf_of(which.selected);
    const bool selecting = leaf != kNoBody;
    if (which.flags.structure) {
        const float depths = static_cast<float>(std::max(1, t.max_depth));
        for (std::uint32_t node = 0; node < leaves; ++node) {
            const Aabb<D>& box = t.boxes[node];
            if (!box.overlaps(draw.view) || (draw.slab && !box.overlaps(*draw.slab))) continue;
            draw.cell(box, ramp_color(t.depth[node] / depths, selecting ? 0.3f : 0.6f));
        }
    }
    if (selecting) {
        // The walk the pair pass takes for this body: children after its leaf, tested
        // against its box; entered ones in cyan, missed ones in red.
        const Aabb<D>& own = t.boxes[leaves + leaf];
        std::vector<std::uint32_t> stack{0};
        while (!stack.empty()) {
            const glm::uvec4 nd = t.nodes[stack.back()];
            stack.pop_back();
            for (std::uint32_t child : {nd.x, nd.y}) {
                const bool is_leaf = child >= leaves;
                const std::uint32_t last = is_leaf ? child - leaves : t.nodes[child].w;
                if (last <= leaf) continue;
                const bool hit = t.boxes[child].overlaps(own);
                draw.box(t.boxes[child], hit ? kWalkEnteredColor : kWalkMissedColor);
                if (hit && !is_leaf) stack.push_back(child);
            }
        }
        for (std::uint32_t node = t.parents[leaves + leaf]; node != 0xFFFFFFFFu;
             node = t.parents[node]) {
            draw.box(t.boxes[node], kAncestorColor);
        }
        draw.box(own, kHighlightColor);
    }
    if (which.query) {
        for (const auto& r : which.query->regions) {
            draw.box(r.box,
                     r.kind == TraceKind::kDescended ? kTraceDescendedColor : kTracePrunedColor);
        }
    }
}

template <int D>
std::string GpuLbvh<D>::describe(BodyId id) const {
    if (id >= this->count_) return {};
    const HostTree& t = host_tree();
    const std::uint32_t leaf = leaf_of(id);
    const std::uint32_t node = static_cast<std::uint32_t>(this->count_ - 1) + leaf;
    std::ostringstream s;
    s << "leaf " << leaf << " of " << this->count_ << ", depth " << int(t.depth[node]) << "\n"
      << "Morton code 0x" << std::hex << t.codes[leaf] << std::dec << "\n"
      << "on " << this->context_->renderer();
    return s.str();
}

template <int D>
std::vector<LegendEntry> GpuLbvh<D>::legend() const {
    return {
        LegendEntry::ramp("node box by depth (root to deepest)"),
        LegendEntry::selection(kHighlightColor, "selected body's leaf"),
        LegendEntry::selection(kAncestorColor, "its ancestors"),
        LegendEntry::selection(kWalkEnteredColor, "its walk: entered"),
        LegendEntry::selection(kWalkMissedColor, "its walk: missed"),
        LegendEntry::query(kTraceDescendedColor, "node entered"),
        LegendEntry::query(kTracePrunedColor, "node pruned (subtree skipped)"),
    };
}

template void GpuLbvh<2>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string GpuLbvh<2>::describe(BodyId) const;
template std::vector<LegendEntry> GpuLbvh<2>::legend() const;
template void GpuLbvh<3>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template std::string GpuLbvh<3>::describe(BodyId) const;
template std::vector<LegendEntry> GpuLbvh<3>::legend() const;

}  // namespace collide::gpu
