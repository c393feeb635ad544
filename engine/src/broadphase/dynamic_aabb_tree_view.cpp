// The dynamic AABB tree as the viewer sees it: nodes by depth and the leaves' fat boxes, the
// selected body's ancestors, the query's trace; the text on one body.
#include "broadphase/dynamic_aabb_tree.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace collide {
namespace {

constexpr Color kLeafColor = rgba(1.0f, 0.55f, 0.2f, 1.0f);
constexpr Color kStaticLeafColor = rgba(0.6f, 0.6f, 0.6f, 1.0f);
constexpr Color kAncestorColor = rgba(1.0f, 0.3f, 1.0f, 0.9f);

template <int D>
std::string format_box(const Aabb<D>& b) {
    std::string s;
    char buf[48];
    for (const Vec<D>* v : {&b.lo, &b.hi}) {
        s += v == &b.lo ? "(" : " .. (";
        for (int k = 0; k < D; ++k) {
            std::snprintf(buf, sizeof buf, k == 0 ? "%.4g" : ", %.4g", double((*v)[k]));
            s += buf;
        }
        s += ")";
    }
    return s;
}

}  // namespace

template <int D>
int DynamicAabbTree<D>::leaf_depth(std::uint32_t proxy) const {
    const AabbTree<D>& tree = tree_of(proxy);
    int depth = 0;
    for (std::int32_t i = tree.parent(leaf_[proxy]); i != AabbTree<D>::kNull; i = tree.parent(i)) {
        ++depth;
    }
    return depth;
}

template <int D>
void DynamicAabbTree<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    const bool selecting = which.selected < proxy_of_.size();
    const float alpha = selecting ? 0.3f : 0.7f;
    if (which.flags.structure) {
        // Internal nodes by depth on the ramp, leaves' fat boxes in orange (grey when
        // static); a subtree outside the view is skipped whole.
        std::vector<std::pair<std::int32_t, int>> stack;
        for (const AabbTree<D>* tree : {&moving_tree_, &static_tree_}) {
            if (tree->root() == AabbTree<D>::kNull) continue;
            const float height = float(std::max(1, tree->height()));
            const Color leaf_color =
                scale_alpha(tree == &static_tree_ ? kStaticLeafColor : kLeafColor, alpha);
            stack.assign(1, {tree->root(), 0});
            while (!stack.empty()) {
                const auto [i, depth] = stack.back();
                stack.pop_back();
                const auto& n = tree->node(i);
                if (!n.box.overlaps(draw.view) || (draw.slab && !n.box.overlaps(*draw.slab)))
                    continue;
                if (n.leaf()) {
                    draw.cell(n.box, leaf_color);
                    continue;
                }
                draw.cell(n.box, ramp_color(float(depth) / height, alpha), 0.0f);
                stack.push_back({n.child[1], depth + 1});
                stack.push_back({n.child[0], depth + 1});
            }
        }
    }
    if (selecting) {
        // The selected body's fat box in white, its ancestors up to the root in magenta.
        const std::uint32_t p = proxy_of_[which.selected];
        const AabbTree<D>& tree = tree_of(p);
        for (std::int32_t i = tree.parent(leaf_[p]); i != AabbTree<D>::kNull; i = tree.parent(i)) {
            draw.box(tree.node(i).box, kAncestorColor);
        }
        draw.box(fat_[p], kHighlightColor);
    }
    if (which.query) {
        // The nodes the query's descent tested: green entered, grey rejected.
        for (const auto& r : which.query->regions) {
            draw.box(r.box, r.kind == TraceKind::kDescended ? kTraceTakenColor : kTracePrunedColor);
        }
    }
}

template <int D>
std::vector<LegendEntry> DynamicAabbTree<D>::legend() const {
    return {
        LegendEntry::ramp("internal nodes by depth: root (blue) to deepest (red)"),
        {kLeafColor, "leaves: moving bodies' fat boxes"},
        {kStaticLeafColor, "leaves: static bodies"},
        LegendEntry::selection(kHighlightColor, "selected body's fat box"),
        LegendEntry::selection(kAncestorColor, "its ancestors"),
        LegendEntry::query(kTraceTakenColor, "node entered"),
        LegendEntry::query(kTracePrunedColor, "node rejected"),
    };
}

template <int D>
std::string DynamicAabbTree<D>::describe(BodyId id) const {
    if (id >= proxy_of_.size()) return {};
    const std::uint32_t p = proxy_of_[id];
    const AabbTree<D>& tree = tree_of(p);
    std::size_t pairs = 0;
    for (const PairList& list : fat_lists_) {
        for (const Pair& pr : list) pairs += (pr.a == p) | (pr.b == p);
    }
    std::string s = "Proxy " + std::to_string(p) + ", leaf node " + std::to_string(leaf_[p]) +
                    (static_[p] ? " of the static tree" : " of the moving tree");
    s += "\nDepth " + std::to_string(leaf_depth(p)) + " of height " + std::to_string(tree.height());
    s += "\nFat box " + format_box(fat_[p]);
    s += "\n" + std::to_string(pairs) + " fat pairs";
    s += moved_[p] ? "\nRe-inserted this frame" : "\nKept its leaf this frame";
    s += "\n" + std::to_string(move_buffer_.size()) + " bodies re-inserted this frame";
    if (rebuilt_) s += " (tree rebuilt top-down)";
    return s;
}

template <int D>
std::string DynamicAabbTree<D>::status() const {
    std::ostringstream s;
    s << std::setprecision(3) << "margin " << margin_avg() * margin_scale_
      << " of the average size";
    if (steer()) s << " (steered: " << margin_scale_ << " x " << margin_avg() << ")";
    return s.str();
}

// The steps of one update as the code takes them (dynamic_aabb_tree.cpp): the first update
// builds; later ones re-insert the bodies that left their fat boxes and keep the rest.
template <int D>
WatchScript DynamicAabbTree<D>::watch_script() const {
    return {{"fat box: box + margin, stretched by motion",
             "for each body whose box left its fat box:",
             "  give it a new fat box",
             "young tree: grow moved leaves' ancestors",
             "new tree, or a share of it moved: build it",
             "  top-down, leaves in Morton order",
             "(re-)insert each other moved body:",
             "  from the root, descend to cheapest sibling",
             "  insert its leaf; refit, rotate ancestors",
             "for each kept fat pair (both stayed put):",
             "  test the real boxes",
             "  report the pair if they overlap",
             "query the trees with each moved fat box:",
             "  enter nodes it overlaps, skip the rest",
             "  leaf: keep fat pair, test the real boxes",
             "  report the pair if they overlap",
             "most moved: one joint descent instead:",
             "  split the larger of two overlapping nodes",
             "  skip node pairs whose boxes miss",
             "  two leaves: keep fat pair, test the boxes",
             "  report the pair if they overlap"},
            {{WatchStep::kPhase, "find moved", 1},
             {WatchStep::kPhase, "grow", 3},
             {WatchStep::kPlace, "grow", 3},
             {WatchStep::kPhase, "build", 4},
             {WatchStep::kPlace, "build", 5},
             {WatchStep::kPhase, "re-insert", 6},
             {WatchStep::kPhase, "insert", 6},
             {WatchStep::kEnter, "re-insert", 7},
             {WatchStep::kEnter, "insert", 7},
             {WatchStep::kPlace, "re-insert", 8},
             {WatchStep::kPlace, "insert", 8},
             {WatchStep::kPhase, "keep pairs", 9},
             {WatchStep::kTest, "keep pairs", 10},
             {WatchStep::kEmit, "keep pairs", 11},
             {WatchStep::kPhase, "query", 12},
             {WatchStep::kVisit, "query", 13},
             {WatchStep::kPrune, "query", 13},
             {WatchStep::kTest, "query", 14},
             {WatchStep::kEmit, "query", 15},
             {WatchStep::kPhase, "joint descent", 16},
             {WatchStep::kEnter, "joint descent", 17},
             {WatchStep::kPrune, "joint descent", 18},
             {WatchStep::kTest, "joint descent", 19},
             {WatchStep::kEmit, "joint descent", 20}}};
}

// The members defined here; the class itself is instantiated in dynamic_aabb_tree.cpp.
template void DynamicAabbTree<2>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string DynamicAabbTree<2>::describe(BodyId) const;
template std::string DynamicAabbTree<2>::status() const;
template std::vector<LegendEntry> DynamicAabbTree<2>::legend() const;
template WatchScript DynamicAabbTree<2>::watch_script() const;
template void DynamicAabbTree<3>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template std::string DynamicAabbTree<3>::describe(BodyId) const;
template std::string DynamicAabbTree<3>::status() const;
template std::vector<LegendEntry> DynamicAabbTree<3>::legend() const;
template WatchScript DynamicAabbTree<3>::watch_script() const;

}  // namespace collide
