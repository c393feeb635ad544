// What the quadtree and the loose tree show the viewer, shared because both keep the same
// pre-order nodes (tree_nodes.hpp): node regions by depth with body counts, the selected body's
// node and ancestors, the query's trace, and the text on one node.
#pragma once

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "broadphase/common/tree_nodes.hpp"
#include "collide/broadphase.hpp"

namespace collide {

inline constexpr Color kTreeAncestorColor = rgba(1.0f, 0.6f, 0.2f, 0.9f);
inline constexpr Color kTreeLooseColor = rgba(1.0f, 0.3f, 1.0f, 0.9f);

// Overlays: node regions coloured by depth, culled to the view; the count of bodies held at
// each node as a label for the nodes (big enough on screen) that hold the most; the selected
// body's node (with its loose box when `loose`) and ancestors; the region query's visits.
template <int D>
void draw_tree(const std::vector<TreeNode<D>>& nodes, const std::vector<TreeItem<D>>& items,
               DebugDraw<D>& draw, const Overlays<D>& which, int max_depth, bool loose) {
    if (nodes.empty()) return;
    const std::size_t slot =
        which.selected == kNoBody ? items.size() : slot_of(items, which.selected);
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
            if (!r.overlaps(draw.view) || (draw.slab && !r.overlaps(*draw.slab))) {
                i = n.skip;
                continue;
            }
            draw.cell(r, ramp_color(n.depth / depths, selecting ? 0.3f : 0.6f),
                      static_cast<float>(n.own()));
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
            draw.box(nodes[i].region(), kTreeAncestorColor);
        }
        if (own != 0) draw.box(nodes[0].region(), kTreeAncestorColor);
        if (loose) draw.box(nodes[own].region(2.0f), kTreeLooseColor);
        draw.box(nodes[own].region(), kHighlightColor);
    }
    if (which.query) {
        // Entered nodes in cyan, pruned ones (subtree skipped) in grey.
        for (const auto& r : which.query->regions) {
            draw.box(r.box,
                     r.kind == TraceKind::kDescended ? kTraceDescendedColor : kTracePrunedColor);
        }
    }
}

// What draw_tree's colours mean.
inline std::vector<LegendEntry> tree_legend(bool loose) {
    std::vector<LegendEntry> l = {
        LegendEntry::ramp("nodes by depth: root (blue) to deepest (red); numbers: bodies held"),
        LegendEntry::selection(kHighlightColor, "selected body's node"),
        LegendEntry::selection(kTreeAncestorColor, "its ancestors"),
        LegendEntry::query(kTraceDescendedColor, "node entered"),
        LegendEntry::query(kTracePrunedColor, "subtree pruned"),
    };
    if (loose)
        l.insert(l.begin() + 2,
                 LegendEntry::selection(kTreeLooseColor, "its loose box (twice the node)"));
    return l;
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
