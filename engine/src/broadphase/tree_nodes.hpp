// What the quadtree/octree and the loose tree share: bodies laid out in one array in the
// pre-order of the tree's nodes (a node's own bodies, then each child's subtree), nodes in
// pre-order with a skip index past their subtree, so a pruned descent is one forward loop
// with no stack. Each node keeps the fitted bounds of its subtree's boxes: pruning by them
// is exact whatever the rounding of the node regions, and never looser than the regions.
// Also here: the region query, the overlays and the selection text both trees draw alike.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <span>
#include <string>
#include <vector>

#include "collide/broadphase.hpp"

namespace collide {

template <int D>
struct TreeItem {
    Aabb<D> box;
    BodyId id;
    std::uint8_t is_static;
    std::uint8_t level;  // the loose tree's depth for the body's size; unused by the quadtree
};

template <int D>
struct TreeNode {
    Aabb<D> bounds;      // fitted around every box in the subtree; empty() when none
    Aabb<D> own_bounds;  // fitted around the node's own boxes
    Vec<D> center;
    float half;      // half the side of the node's (tight) region
    std::uint32_t begin, own_end, end;  // slots: own bodies [begin, own_end), subtree [begin, end)
    std::uint32_t skip;    // the node after this subtree, in pre-order
    std::uint32_t parent;  // the root is its own parent
    int depth;

    Aabb<D> region(float grow = 1.0f) const {
        return {center - Vec<D>(half * grow), center + Vec<D>(half * grow)};
    }
    std::uint32_t own() const { return own_end - begin; }
};

// The square/cube around all boxes: centred on their bounds, side their largest extent.
template <int D>
void root_square(std::span<const Aabb<D>> boxes, Vec<D>& center, float& half) {
    Aabb<D> all = Aabb<D>::empty();
    for (const Aabb<D>& b : boxes) all.grow(b);
    center = all.center();
    half = 0.0f;
    for (int k = 0; k < D; ++k) half = std::max(half, 0.5f * (all.hi[k] - all.lo[k]));
    if (boxes.empty()) center = Vec<D>(0.0f);
}

// Fills in a node's bounds from its own boxes and its children (which follow it in
// pre-order up to its skip), once the subtree is built.
template <int D>
void fit_bounds(std::vector<TreeNode<D>>& nodes, const std::vector<TreeItem<D>>& items,
                std::uint32_t node) {
    TreeNode<D>& n = nodes[node];
    Aabb<D> b = Aabb<D>::empty();
    for (std::uint32_t s = n.begin; s < n.own_end; ++s) b.grow(items[s].box);
    n.own_bounds = b;
    for (std::uint32_t c = node + 1; c < n.skip; c = nodes[c].skip) b.grow(nodes[c].bounds);
    n.bounds = b;
}

// Bodies overlapping `region`: descends through the nodes whose fitted bounds overlap it.
template <int D>
void tree_query(const std::vector<TreeNode<D>>& nodes, const std::vector<TreeItem<D>>& items,
                const Aabb<D>& region, std::vector<BodyId>& out,
                QueryTrace<D>* trace = nullptr) {
    out.clear();
    for (std::uint32_t i = 0; i < nodes.size();) {
        const TreeNode<D>& n = nodes[i];
        const bool enter = n.bounds.overlaps(region);
        if (trace) trace->add(n.region(), enter ? TraceKind::kDescended : TraceKind::kPruned);
        if (!enter) {
            i = n.skip;
            continue;
        }
        for (std::uint32_t s = n.begin; s < n.own_end; ++s) {
            if (items[s].box.overlaps(region)) out.push_back(items[s].id);
        }
        ++i;
    }
}

// The slot of body `id`, or items.size().
template <int D>
std::size_t slot_of(const std::vector<TreeItem<D>>& items, BodyId id) {
    for (std::size_t s = 0; s < items.size(); ++s) {
        if (items[s].id == id) return s;
    }
    return items.size();
}

// The node whose own bodies hold `slot`: down from the root through the child holding it.
template <int D>
std::uint32_t node_of_slot(const std::vector<TreeNode<D>>& nodes, std::size_t slot) {
    std::uint32_t i = 0;
    while (slot >= nodes[i].own_end) {
        std::uint32_t c = i + 1;
        while (slot >= nodes[c].end) c = nodes[c].skip;
        i = c;
    }
    return i;
}

// Overlays: node regions coloured by depth, culled to the view; the count of bodies held at
// each node as a label for the nodes (big enough on screen) that hold the most; the selected
// body's node (with its loose box when `loose`) and ancestors; the region query's visits.
template <int D>
void draw_tree(const std::vector<TreeNode<D>>& nodes, const std::vector<TreeItem<D>>& items,
               DebugDraw<D>& draw, const Overlays<D>& which, int max_depth, bool loose) {
    if (nodes.empty()) return;
    const std::size_t slot = which.selected == kNoBody ? items.size() : slot_of(items, which.selected);
    const bool selecting = slot < items.size();
    if (which.flags.structure) {
        // Labels only on nodes at least 1/40 of the visible part of the root, the 50 fullest.
        constexpr std::size_t kMaxLabels = 50;
        Aabb<D> seen = nodes[0].region();
        seen.lo = glm::max(seen.lo, draw.view.lo);
        seen.hi = glm::min(seen.hi, draw.view.hi);
        float seen_side = 0.0f;
        for (int k = 0; k < D; ++k) seen_side = std::max(seen_side, seen.hi[k] - seen.lo[k]);
        std::vector<std::uint32_t> labelled;
        const float depths = static_cast<float>(std::max(1, max_depth));
        for (std::uint32_t i = 0; i < nodes.size();) {
            const TreeNode<D>& n = nodes[i];
            const Aabb<D> r = n.region();
            if (!r.overlaps(draw.view) || draw.full()) {
                i = n.skip;
                continue;
            }
            draw.box(r, ramp_color(n.depth / depths, selecting ? 0.3f : 0.6f));
            if (n.own() > 0 && 2.0f * n.half >= seen_side / 40.0f) labelled.push_back(i);
            ++i;
        }
        const auto fuller = [&](std::uint32_t a, std::uint32_t b) {
            return nodes[a].own() > nodes[b].own();
        };
        if (labelled.size() > kMaxLabels) {
            std::nth_element(labelled.begin(), labelled.begin() + kMaxLabels, labelled.end(),
                             fuller);
            labelled.resize(kMaxLabels);
        }
        for (std::uint32_t i : labelled) {
            draw.label(nodes[i].center, std::to_string(nodes[i].own()), rgba(1, 1, 1));
        }
    }
    if (selecting) {
        const std::uint32_t own = node_of_slot(nodes, slot);
        for (std::uint32_t i = nodes[own].parent; i != 0; i = nodes[i].parent) {
            draw.box(nodes[i].region(), rgba(1.0f, 0.6f, 0.2f, 0.9f));
        }
        if (own != 0) draw.box(nodes[0].region(), rgba(1.0f, 0.6f, 0.2f, 0.9f));
        if (loose) draw.box(nodes[own].region(2.0f), rgba(1.0f, 0.3f, 1.0f, 0.9f));
        draw.box(nodes[own].region(), rgba(1, 1, 1));
    }
    if (which.query) {
        // Entered nodes in cyan, pruned ones (subtree skipped) in grey.
        for (const auto& r : which.query->regions) {
            draw.box(r.box, r.kind == TraceKind::kDescended ? rgba(0.2f, 0.9f, 1.0f, 0.8f)
                                                            : rgba(0.6f, 0.6f, 0.6f, 0.5f));
        }
    }
}

// The selection text both trees start with: the node, who shares it, who sits above it.
template <int D>
std::string describe_node(const std::vector<TreeNode<D>>& nodes, std::uint32_t node) {
    const TreeNode<D>& n = nodes[node];
    std::size_t above = 0;
    for (std::uint32_t i = node; i != 0;) {
        i = nodes[i].parent;
        above += nodes[i].own();
    }
    std::ostringstream s;
    s << std::setprecision(4) << "Node at depth " << n.depth << ", region centre (";
    for (int k = 0; k < D; ++k) s << (k ? ", " : "") << n.center[k];
    s << "), side " << 2.0 * n.half << "\n"
      << n.own() - 1 << " other bodies share the node\n"
      << above << " bodies are held at its ancestors\n"
      << n.end - n.own_end << " bodies lie in its subregions";
    return s.str();
}

}  // namespace collide
