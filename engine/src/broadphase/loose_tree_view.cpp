// The loose tree as the viewer sees it (drawn by tree_view.hpp); the text on one body.
#include "broadphase/loose_tree.hpp"
#include "broadphase/common/tree_view.hpp"

#include <cassert>
#include <cmath>

namespace collide {

template <int D>
void LooseTree<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    draw_tree(nodes_, items_, draw, which, std::max(1, deepest_), true);
}

template <int D>
std::vector<LegendEntry> LooseTree<D>::legend() const {
    return tree_legend(true);
}

template <int D>
std::string LooseTree<D>::describe(BodyId id) const {
    const std::size_t slot = slot_of(items_, id);
    if (slot >= items_.size()) return {};
    const std::uint32_t node = node_of_slot(nodes_, slot);
    std::string s = describe_node(nodes_, node);
    char buf[96];
    std::snprintf(buf, sizeof buf, "\nLoose box: side %.4g (its depth follows its size)",
                  4.0 * nodes_[node].half);
    s += buf;
    std::size_t tested = 0;
    for_each_candidate(slot, [&](std::uint32_t) { ++tested; });
    s += "\nIts descent tests " + std::to_string(tested) + " bodies";
    return s;
}

// The members defined here; the class itself is instantiated in loose_tree.cpp.
template void LooseTree<2>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string LooseTree<2>::describe(BodyId) const;
template std::vector<LegendEntry> LooseTree<2>::legend() const;
template void LooseTree<3>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template std::string LooseTree<3>::describe(BodyId) const;
template std::vector<LegendEntry> LooseTree<3>::legend() const;

}  // namespace collide
