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

template <int D>
WatchScript LooseTree<D>::watch_script() const {
    WatchScript script{
        {
            "key: depth from size (the deepest node",
            "  side at least the body's largest extent),",
            "  cell at that depth from its centre",
            persistent() ? "sort keys: last order, insertion-repaired" : "sort the keys",
            "build: one pass over the sorted keys",
            "  open the nodes on its path not yet open",
            "  place it in its node: the loose box (the",
            "  node grown by half its side) holds it",
        },
        {{WatchStep::kPhase, "sort by node key", 0},
         {WatchStep::kPhase, "build", 4},
         {WatchStep::kEnter, "build", 5},
         {WatchStep::kPlace, nullptr, 6}}};
    const auto more = [&](std::initializer_list<const char*> lines) {
        script.lines.insert(script.lines.end(), lines);
    };
    const auto rule = [&](WatchStep step, const char* phase, int line) {
        script.rules.push_back({step, phase, 8 + line});
    };
    if (dual()) {
        more({
            "pairs(root): a dual descent",
            "pairs(n): n's own bodies with each other,",
            "  own(n, c), pairs(c) for each child c,",
            "  cross(c, e) for each later child e",
            "cross(a, b): own(a, b), own(b, a's children),",
            "  cross(a's children, b's children)",
            "own(a, b): a's own bodies against those",
            "  of the nodes entered in b's subtree",
            "prune: subtrees (or pairs of them) whose",
            "  fitted bounds miss the other side's",
            "each pair: skip if both are static, else",
            "  test a's box against b's",
            "  if they overlap: report (a, b)",
        });
        rule(WatchStep::kPhase, "dual descent", 0);
        rule(WatchStep::kVisit, nullptr, 1);
        rule(WatchStep::kEnter, "dual descent", 6);
        rule(WatchStep::kPrune, nullptr, 8);
        rule(WatchStep::kTest, nullptr, 11);
        rule(WatchStep::kEmit, nullptr, 12);
    } else {
        more({
            "find pairs: each body descends alone",
            "for each body a, in slot order:",
            "  walk the nodes in pre-order: enter those",
            "    whose fitted bounds meet a's box,",
            "    prune the rest (skip their subtree)",
            "  at a node deeper than a's (or as deep,",
            "    at a later slot), for each body b:",
            "    skip (a, b) if both are static",
            "    test a's box against b's",
            "    if they overlap: report (a, b)",
        });
        rule(WatchStep::kPhase, "descend", 0);
        rule(WatchStep::kCursor, nullptr, 1);
        rule(WatchStep::kEnter, "descend", 2);
        rule(WatchStep::kPrune, nullptr, 4);
        rule(WatchStep::kTest, nullptr, 8);
        rule(WatchStep::kEmit, nullptr, 9);
    }
    return script;
}

// The members defined here; the class itself is instantiated in loose_tree.cpp.
template void LooseTree<2>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string LooseTree<2>::describe(BodyId) const;
template std::vector<LegendEntry> LooseTree<2>::legend() const;
template void LooseTree<3>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template std::string LooseTree<3>::describe(BodyId) const;
template std::vector<LegendEntry> LooseTree<3>::legend() const;
template WatchScript LooseTree<2>::watch_script() const;
template WatchScript LooseTree<3>::watch_script() const;

}  // namespace collide
