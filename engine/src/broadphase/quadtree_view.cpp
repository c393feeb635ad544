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

// The members defined here; the class itself is instantiated in quadtree.cpp.
template void RegionTree<2>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string RegionTree<2>::describe(BodyId) const;
template std::vector<LegendEntry> RegionTree<2>::legend() const;
template void RegionTree<3>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template std::string RegionTree<3>::describe(BodyId) const;
template std::vector<LegendEntry> RegionTree<3>::legend() const;

}  // namespace collide
