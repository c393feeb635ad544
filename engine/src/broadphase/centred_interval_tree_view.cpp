// The centred interval tree as the viewer sees it: each node's centre line (a plane outline
// in 3D) across its cell and the boxes of the bodies it holds, coloured by depth; the selected
// body's node, its interval across the centre and the path of centres above it; the query's
// trace.
#include "broadphase/centred_interval_tree.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace collide {

namespace {

// A body's interval on `axis`, drawn through its centre on the other axes.
template <int D>
void interval_bar(DebugDraw<D>& draw, const Aabb<D>& box, int axis, Color color) {
    Vec<D> a = box.center(), b = a;
    a[axis] = box.lo[axis];
    b[axis] = box.hi[axis];
    draw.line(a, b, color);
}

constexpr char kAxes[] = "xyz";
constexpr Color kPathColor = rgba(1.0f, 0.6f, 0.1f, 1.0f);
constexpr Color kCellColor = rgba(1.0f, 1.0f, 1.0f, 0.6f);

}  // namespace

template <int D>
std::string CentredIntervalTree<D>::path_of(std::uint32_t at) const {
    std::vector<std::string> steps;
    for (std::uint32_t c = at; nodes_[c].parent != kNone; c = nodes_[c].parent) {
        const Node& p = nodes_[nodes_[c].parent];
        std::ostringstream s;
        s << std::setprecision(4) << kAxes[p.axis] << (p.left == c ? "<" : ">") << p.centre;
        steps.push_back(s.str());
    }
    std::string text;
    for (std::size_t i = steps.size(); i-- > 0;) {
        text += steps[i];
        if (i > 0) text += (steps.size() - i) % 3 == 0 ? "\n  " : " ";
    }
    return text.empty() ? "(root)" : text;
}

template <int D>
std::string CentredIntervalTree<D>::describe(BodyId id) const {
    if (id >= node_of_.size() || nodes_.empty()) return {};
    const std::uint32_t at = node_of_[id];
    const Node& n = nodes_[at];
    const Aabb<D>* box = nullptr;
    for (std::uint32_t i = n.begin; i < n.end; ++i) {
        if (by_lo_[i].id == id) box = &by_lo_[i].box;
    }
    if (box == nullptr) return {};
    std::size_t tested = 0;
    std::vector<std::uint32_t> stack;
    descend(at, true, *box, false, stack, nullptr, [&](const Entry&) { ++tested; });
    std::ostringstream s;
    s << std::setprecision(4) << "CIT node " << at << ", depth " << n.depth << "\ncentre "
      << kAxes[n.axis] << " = " << n.centre << "; it holds " << n.end - n.begin
      << " intervals (sorted by both ends)\nheld ones swept along " << kAxes[n.sweep_axis]
      << "\npath: " << path_of(at) << "\nits descent below tests " << tested << " bodies";
    return s.str();
}

template <int D>
void CentredIntervalTree<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    if (nodes_.empty()) return;
    const bool selecting = which.selected < node_of_.size();
    // The structure goes under the highlights (DebugDraw::finish puts it there).
    if (which.flags.structure) {
        draw_structure(draw, selecting || which.query ? 0.45f : 0.9f, which.flags.hidden_layers);
    }
    if (which.query) {
        // The centres the query walked in cyan, the subtree bounds it pruned in grey.
        for (const auto& r : which.query->regions) {
            draw.box(r.box,
                     r.kind == TraceKind::kDescended ? kTraceDescendedColor : kTracePrunedColor);
        }
    }
    if (!selecting) return;
    // The centres on the path from the root in orange; the body's cell, its centre and the
    // bodies held there in white, and the body's own interval across the centre as a bar.
    const Color white = kHighlightColor;
    const std::uint32_t home = node_of_[which.selected];
    for (std::uint32_t up = nodes_[home].parent; up != kNone; up = nodes_[up].parent)
        draw.box(nodes_[up].plane(), kPathColor);
    const Node& n = nodes_[home];
    draw.box(n.cell, kCellColor);
    draw.box(n.plane(), white);
    for (std::uint32_t i = n.begin; i < n.end; ++i) {
        draw.box(by_lo_[i].box, white);
        if (by_lo_[i].id == which.selected) interval_bar(draw, by_lo_[i].box, n.axis, white);
    }
    draw.label(n.cell.lo, "depth " + std::to_string(n.depth), white);
}

// Each node's centre line (a flat box: a line in 2D, a plane's outline in 3D) and the boxes
// of the bodies it holds, which all cross it, coloured by depth; shallow nodes first, so
// that where the budget thins the picture the coarse nodes are what remains.
template <int D>
void CentredIntervalTree<D>::draw_structure(DebugDraw<D>& draw, float alpha,
                                            std::uint64_t hidden) const {
    std::vector<std::uint32_t> order(nodes_.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return nodes_[a].depth < nodes_[b].depth;
    });
    const float depths = static_cast<float>(std::max(deepest_, 1));
    const bool lines = !(hidden & 1u), held = !(hidden & 2u);
    for (const std::uint32_t i : order) {
        const Node& n = nodes_[i];
        if (!n.cell.overlaps(draw.view)) continue;
        const Color color = ramp_color(static_cast<float>(n.depth) / depths, alpha);
        if (lines) draw.cell(n.plane(), color, 0.0f);
        if (held) {
            for (std::uint32_t e = n.begin; e < n.end; ++e) draw.cell(by_lo_[e].box, color);
        }
    }
}

template <int D>
std::vector<LegendEntry> CentredIntervalTree<D>::legend() const {
    return {
        LegendEntry::ramp("centre lines and held intervals by depth: root (blue) to deepest (red)"),
        LegendEntry::selection(kHighlightColor,
                               "selected body's centre, the bodies held there, its interval"),
        LegendEntry::selection(kCellColor, "its node's cell"),
        LegendEntry::selection(kPathColor, "centres on the path from the root"),
        LegendEntry::query(kTraceDescendedColor, "centre walked"),
        LegendEntry::query(kTracePrunedColor, "subtree bound pruned"),
    };
}

template <int D>
WatchScript CentredIntervalTree<D>::watch_script() const {
    return {{
                "build: the root's cell holds every box",
                "for each range of bodies, root first:",
                spread_axis() ? "  axis: where its midpoints spread most"
                              : (D == 2 ? "  axis: x, y in turn by depth"
                                        : "  axis: x, y, z in turn by depth"),
                "  centre: the median midpoint on that axis",
                "  hold the bodies whose interval contains",
                "    the centre (sorted by low end, high",
                "    end, and low end on the sweep axis)",
                "  left child: those wholly below the centre",
                "  right child: those wholly above it",
                "fit each subtree's bounds, bottom-up",
                "find pairs, for each node:",
                "  sweep its held bodies on the sweep axis:",
                "    a against each later b that starts",
                "    before a ends",
                "  each held body a descends below the node:",
                "    enter nodes whose bounds meet a's box",
                "    (not all-static ones when a is static),",
                "    walk the shorter sorted run of their",
                "    held bodies that can reach a,",
                "    prune the rest: subtree skipped whole",
                "each pair: skip if both are static, else",
                "  test a's box against b's",
                "  if they overlap: report (a, b)",
            },
            {{WatchStep::kPhase, "build", 0},
             {WatchStep::kEnter, "build", 1},
             {WatchStep::kPlace, nullptr, 4},
             {WatchStep::kPhase, "fit bounds", 9},
             {WatchStep::kPhase, "find pairs", 10},
             {WatchStep::kVisit, nullptr, 10},
             {WatchStep::kCursor, nullptr, 11},
             {WatchStep::kEnter, "find pairs", 15},
             {WatchStep::kPrune, nullptr, 19},
             {WatchStep::kTest, nullptr, 21},
             {WatchStep::kEmit, nullptr, 22}}};
}

// The members defined here; the class itself is instantiated in centred_interval_tree.cpp.
template std::string CentredIntervalTree<2>::describe(BodyId) const;
template std::vector<LegendEntry> CentredIntervalTree<2>::legend() const;
template void CentredIntervalTree<2>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string CentredIntervalTree<3>::describe(BodyId) const;
template std::vector<LegendEntry> CentredIntervalTree<3>::legend() const;
template void CentredIntervalTree<3>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template WatchScript CentredIntervalTree<2>::watch_script() const;
template WatchScript CentredIntervalTree<3>::watch_script() const;

}  // namespace collide
