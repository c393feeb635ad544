// The enneatree as the viewer sees it (both forms): node regions by depth, the selected body's
// node, ancestors and walk, the query's trace; the text on one body.
#include "broadphase/enneatree.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <sstream>

namespace collide {

namespace {

constexpr std::array<char, 3> kAxisNames = {'x', 'y', 'z'};
constexpr Color kVisitedColor = rgba(0.3f, 0.85f, 1.0f, 1.0f);
constexpr Color kPrunedColor = rgba(0.9f, 0.3f, 0.5f, 0.8f);
constexpr Color kAncestorColor = rgba(1.0f, 0.6f, 0.1f, 1.0f);
constexpr Color kQueryTakenColor = rgba(1.0f, 0.9f, 0.2f, 1.0f);

}  // namespace

template <int D, bool kAlternating>
std::string Enneatree<D, kAlternating>::path_of(std::uint32_t at) const {
    // One group per level from the root down: L, C or R per axis (x first); in the
    // alternating form the axis the level split and its L, C or R.
    std::vector<std::string> levels;
    for (std::uint32_t node = at; nodes_[node].parent != kNone; node = nodes_[node].parent) {
        const Node& parent = nodes_[nodes_[node].parent];
        const auto slot = static_cast<int>(
            std::find(parent.child.begin(), parent.child.end(), node) - parent.child.begin());
        std::string group;
        if constexpr (kAlternating) {
            group = {kAxisNames[split_axis(parent.depth)], "LCR"[slot]};
        } else {
            for (int k = 0, s = slot; k < D; ++k, s /= 3) group += "LCR"[s % 3];
        }
        levels.push_back(group);
    }
    std::string text;
    for (std::size_t i = levels.size(); i-- > 0;) {
        text += levels[i];
        if (i > 0) text += (levels.size() - i) % 8 == 0 ? "\n  " : " ";
    }
    return text.empty() ? "(root)" : text;
}

template <int D, bool kAlternating>
std::string Enneatree<D, kAlternating>::describe(BodyId id) const {
    if (id >= node_of_.size()) return {};
    const std::uint32_t at = node_of_[id];
    const Node& node = nodes_[at];
    std::size_t visited = 0, pruned = 0, tested = 0;
    std::vector<Visit> trace;
    walk(boxes_[id], node.depth, &trace, [&](std::uint32_t other_at, const Node& other) {
        if (other.count > 0 && other_at != at && other.own.overlaps(boxes_[id]))
            tested += other.count;
    });
    for (const Visit& v : trace) (v.kind == Visit::kPruned ? pruned : visited)++;
    const Aabb<D> r = region(node);
    std::ostringstream s;
    s << "enneatree node " << at << ", depth " << node.depth << " (size gives "
      << int{target_depth_[id]} << ")";
    if constexpr (kAlternating) s << ", splits " << kAxisNames[split_axis(node.depth)];
    s << "\nregion lo";
    for (int k = 0; k < D; ++k) s << " " << r.lo[k];
    if constexpr (kAlternating) {
        s << ", sides";
        for (int k = 0; k < D; ++k) s << " " << r.hi[k] - r.lo[k];
        s << "\npath (split axis and L, C or R per level): ";
    } else {
        s << ", side " << r.hi[0] - r.lo[0] << "\npath (x" << (D == 3 ? "yz" : "y")
          << " per level): ";
    }
    s << path_of(at) << "\n"
      << node.count << " bodies in its node, " << node.subtree_count << " in its subtree\n"
      << "its walk: " << visited << " nodes visited, " << pruned << " pruned, " << tested
      << " bodies of other nodes tested";
    return s.str();
}

template <int D, bool kAlternating>
void Enneatree<D, kAlternating>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    if (nodes_.empty()) return;
    const float depth_scale = 1.0f / static_cast<float>(std::max(deepest_, 1));
    // Highlights first, so the budget never cuts them; drawn doubled (a second outline a
    // little inside) so they stand out from the structure.
    const auto outline = [&](const Aabb<D>& region, Color color) {
        // Clipped to the world, as the structure is: centre children reach past it.
        const Aabb<D> r{glm::max(region.lo, draw.clip.lo), glm::min(region.hi, draw.clip.hi)};
        if (draw.slab && !r.overlaps(*draw.slab)) return;  // 3D: the slab holds highlights too
        const Vec<D> inset = (r.hi - r.lo) * 0.015f;
        draw.box(r, color);
        draw.box({r.lo + inset, r.hi - inset}, color);
    };
    const auto highlight = [&](std::uint32_t at, Color color) {
        outline(region(nodes_[at]), color);
    };
    if (which.selected < node_of_.size()) {
        const std::uint32_t home = node_of_[which.selected];
        std::vector<Visit> trace;
        walk(boxes_[which.selected], nodes_[home].depth, &trace, [](std::uint32_t, const Node&) {});
        for (const Visit& v : trace)
            highlight(v.node, v.kind == Visit::kPruned ? kPrunedColor : kVisitedColor);
        for (std::uint32_t up = nodes_[home].parent; up != kNone; up = nodes_[up].parent)
            highlight(up, kAncestorColor);
        highlight(home, kHighlightColor);
        std::string label = "depth " + std::to_string(nodes_[home].depth);
        if constexpr (kAlternating)
            label += std::string(", splits ") + kAxisNames[split_axis(nodes_[home].depth)];
        draw.label(nodes_[home].lo, label, rgba(1, 1, 1));
    }
    if (which.query) {
        for (const auto& r : which.query->regions) {
            outline(r.box, r.kind == TraceKind::kPruned ? kPrunedColor : kQueryTakenColor);
        }
    }
    if (!which.flags.structure) return;
    // Shallow nodes first: within each part of the view the coarse picture is kept first.
    std::vector<std::uint32_t> by_depth(nodes_.size());
    std::vector<std::uint32_t> starts(kMaxLevels + 2, 0);
    for (const Node& node : nodes_) ++starts[node.depth + 1];
    for (int d = 0; d <= kMaxLevels; ++d) starts[d + 1] += starts[d];
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) by_depth[starts[nodes_[i].depth]++] = i;
    for (std::uint32_t i : by_depth) {
        const Node& node = nodes_[i];
        if (node.subtree_count == 0) continue;
        // Regions reach past the world (the centre child straddles its parent's
        // border): cell() clips them to it.
        draw.cell(region(node), ramp_color(static_cast<float>(node.depth) * depth_scale, 0.55f),
                  static_cast<float>(node.count));
    }
}

template <int D, bool kAlternating>
std::vector<LegendEntry> Enneatree<D, kAlternating>::legend() const {
    return {
        LegendEntry::ramp("node regions by depth: root (blue) to deepest (red)"),
        LegendEntry::selection(kHighlightColor, "selected body's node"),
        LegendEntry::selection(kAncestorColor, "its ancestors"),
        LegendEntry::selection(kVisitedColor, "nodes its walk visited"),
        LegendEntry::selection(kPrunedColor, "nodes its walk (or the query) pruned"),
        LegendEntry::query(kQueryTakenColor, "node visited"),
    };
}

template <int D, bool kAlternating>
WatchScript Enneatree<D, kAlternating>::watch_script() const {
    const bool centre = centre_first();
    return {{
                "rebuild (persistent off, first frame, new",
                "  count, settings or root, too many empty",
                "  nodes or re-placed bodies):",
                "  sort the bodies by their centres' Morton",
                "  code, then place each in that order",
                "else for each body: keep its node if its",
                "  size gives the same depth and the node",
                "  still holds its box; else place it",
                kAlternating ? "place: depth = min over axes k of h_k D + k"
                             : "place: depth = deepest with nodes at least",
                kAlternating ? "  (h_k: halvings its extent on k allows)"
                             : "  twice its largest extent",
                kAlternating ? "  from the root, enter the child whose half"
                             : "  from the root, enter the child whose",
                kAlternating ? "  on the node's split axis holds it,"
                             : "  overlapping halves hold it on each axis,",
                centre ? "  centre first (created if missing); the"
                       : "  left first (created if missing); the",
                "  node at that depth keeps it",
                "lay out: group bodies by node, fit bounds",
                "for each node holding bodies (home):",
                "  its bodies against each other; then walk",
                "  up and back down: from the root, no",
                "  deeper than home, enter subtrees whose",
                "  bounds meet home's, prune the rest; at",
                "  shallower nodes (same depth: lower index)",
                "  home's bodies against theirs",
                "each pair: skip if both are static, else",
                "  test a's box against b's",
                "  if they overlap: report (a, b)",
            },
            {{WatchStep::kPhase, "sort by Morton code", 3},
             {WatchStep::kPhase, "place every body", 4},
             {WatchStep::kPhase, "keep or re-place", 5},
             {WatchStep::kVisit, "keep or re-place", 5},
             {WatchStep::kEnter, "place every body", 10},
             {WatchStep::kEnter, "keep or re-place", 10},
             {WatchStep::kPlace, nullptr, 13},
             {WatchStep::kPhase, "lay out", 14},
             {WatchStep::kPhase, "find pairs", 15},
             {WatchStep::kVisit, "find pairs", 15},
             {WatchStep::kEnter, "find pairs", 18},
             {WatchStep::kPrune, nullptr, 19},
             {WatchStep::kTest, nullptr, 23},
             {WatchStep::kEmit, nullptr, 24}}};
}

// The members defined here; the class itself is instantiated in enneatree.cpp.
template std::string Enneatree<2, false>::describe(BodyId) const;
template std::vector<LegendEntry> Enneatree<2, false>::legend() const;
template void Enneatree<2, false>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string Enneatree<3, false>::describe(BodyId) const;
template std::vector<LegendEntry> Enneatree<3, false>::legend() const;
template void Enneatree<3, false>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template std::string Enneatree<2, true>::describe(BodyId) const;
template std::vector<LegendEntry> Enneatree<2, true>::legend() const;
template void Enneatree<2, true>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string Enneatree<3, true>::describe(BodyId) const;
template std::vector<LegendEntry> Enneatree<3, true>::legend() const;
template void Enneatree<3, true>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template WatchScript Enneatree<2, false>::watch_script() const;
template WatchScript Enneatree<3, false>::watch_script() const;
template WatchScript Enneatree<2, true>::watch_script() const;
template WatchScript Enneatree<3, true>::watch_script() const;

}  // namespace collide
