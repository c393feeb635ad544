// The quadtree/octree as the viewer sees it (drawn by tree_view.hpp); the text on one body.
#include "broadphase/quadtree.hpp"
#include "broadphase/common/tree_view.hpp"

#include <cassert>

namespace collide {

template <int D>
void RegionTree<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    draw_tree(nodes_, items_, draw, which, std::max(1, deepest_), false);
}

template <int D>
std::vector<LegendEntry> RegionTree<D>::legend() const {
    return tree_legend(false);
}

template <int D>
std::string RegionTree<D>::describe(BodyId id) const {
    const std::size_t slot = slot_of(items_, id);
    if (slot >= items_.size()) return {};
    std::string s = describe_node(nodes_, node_of_slot(nodes_, slot));
    s += "\nIts row tests " + std::to_string(row_end_[slot] - slot - 1) + " bodies";
    return s;
}

template <int D>
WatchScript RegionTree<D>::watch_script() const {
    const bool flat = D == 2;
    return {
        {
            flat ? "build: root = square around all boxes" : "build: root = cube around all boxes",
            "at each node, from the root down:",
            "  over `capacity` bodies, above max depth:",
            flat ? "    split in 4; a body strictly inside one"
                 : "    split in 8; a body strictly inside one",
            "    child slides down into it",
            flat ? "  a body on or touching a centre line stays"
                 : "  a body on or touching a centre plane stays",
            "    here, as does every body of a leaf",
            "find pairs: slots are in node pre-order,",
            "  so a subtree is one run of slots",
            "for each node holding bodies, in pre-order:",
            "  for each body a it holds:",
            "    for each b later in the node or below:",
            "      skip (a, b) if both are static",
            "      test a's box against b's (no pruning)",
            "      if they overlap: report (a, b)",
        },
        {{WatchStep::kPhase, "build", 0},
         {WatchStep::kEnter, nullptr, 1},
         {WatchStep::kPlace, nullptr, 5},
         {WatchStep::kPhase, "find pairs", 7},
         {WatchStep::kVisit, nullptr, 9},
         {WatchStep::kCursor, nullptr, 10},
         {WatchStep::kTest, nullptr, 13},
         {WatchStep::kEmit, nullptr, 14}}};
}

// The members defined here; the class itself is instantiated in quadtree.cpp.
template void RegionTree<2>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string RegionTree<2>::describe(BodyId) const;
template std::vector<LegendEntry> RegionTree<2>::legend() const;
template void RegionTree<3>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template std::string RegionTree<3>::describe(BodyId) const;
template std::vector<LegendEntry> RegionTree<3>::legend() const;
template WatchScript RegionTree<2>::watch_script() const;
template WatchScript RegionTree<3>::watch_script() const;

}  // namespace collide
