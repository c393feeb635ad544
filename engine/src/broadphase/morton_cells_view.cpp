// Morton cells as the viewer sees them: every cell by level, the Z-order curve and (with
// internal references) the links to the parents, the selected body's cells and the entries
// its sweep visited, the query's trace; the text on one body; Watch mode's pseudocode.
#include "broadphase/morton_cells.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdio>

namespace collide {
namespace {

constexpr Color kVisitedColor = rgba(1.0f, 0.3f, 1.0f, 0.9f);
constexpr Color kLinkColor = rgba(1.0f, 1.0f, 1.0f, 0.6f);
constexpr float kCellAlpha = 0.5f;  // under the curve, which is what Morton order shows

}  // namespace

template <int D>
void MortonCells<D>::watch_placed(WatchRecorder<D>& watch, const std::vector<Entry>& v,
                                  std::size_t from) const {
    for (std::size_t i = from; i < v.size(); ++i)
        watch.place(v[i].id, cell_box(v[i].start, v[i].level));
}

template <int D>
void MortonCells<D>::watch_cell(WatchRecorder<D>& watch, const Entry& e) const {
    watch.visit(cell_box(e.start, e.level));
}

template <int D>
void MortonCells<D>::watch_pair(WatchRecorder<D>& watch, PairList& pairs, BodyId a, BodyId b,
                                bool emit) {
    pairs.push_back(make_pair(a, b));
    if (emit) watch.emit(a, b);
}

template <int D>
WatchScript MortonCells<D>::watch_script() const {
    return {{"for each body whose cells changed (all",
             "    bodies on a rebuild):",
             "  level: the least power of two whose",
             "    cells are as large as its box",
             "  make its cells there: one per corner of",
             "    the box, up to 2^D",
             "sort the cells by the Morton code of their",
             "  lower corner, larger cells first",
             "  (persistent: sort the changed, merge)",
             "link the cells into an octree (internal",
             "  references)",
             "for each cell c in code order (a static",
             "    one against moving cells only):",
             "  for each later cell d starting inside c:",
             "    skip if both bodies are static",
             "    test the two bodies' boxes",
             "    if they overlap, and d holds their",
             "        overlap's lower corner:",
             "      report the pair",
             "without canonical pairs: sort the pairs,",
             "  report each pair once"},
            {{WatchStep::kPhase, "cells", 0},
             {WatchStep::kPlace, nullptr, 4},
             {WatchStep::kPhase, "sort", 6},
             {WatchStep::kPhase, "link", 9},
             {WatchStep::kPhase, "sweep", 11},
             {WatchStep::kVisit, nullptr, 11},
             {WatchStep::kTest, nullptr, 15},
             {WatchStep::kPhase, "remove duplicates", 19},
             {WatchStep::kEmit, "remove duplicates", 20},
             {WatchStep::kEmit, nullptr, 18}}};
}

template <int D>
template <typename Fn>
void MortonCells<D>::for_each_cell_of(BodyId id, const Fn& visit) const {
    if (id >= boxes_.size()) return;
    const bool in_static = split_static() && is_static_[id];
    const std::vector<Entry>& own = in_static ? static_cells_ : moving_;
    for (std::size_t i = 0; i < own.size(); ++i) {
        if (own[i].id == id) visit(own[i], i, in_static);
    }
}

// The entries the sweep tested from entry `i` of its array: the later ones of its own array
// (moving only) and those of the other array that follow it in the merged order (on equal
// cells a moving entry comes first), while they start inside its cell.
template <int D>
template <typename Fn>
void MortonCells<D>::for_each_visited(const Entry& e, std::size_t i, bool in_static,
                                      const Fn& visit) const {
    const auto scan = [&](const std::vector<Entry>& in, std::size_t j) {
        for (; j < in.size() && in[j].start <= e.last(); ++j) visit(in[j]);
    };
    if (in_static) {
        scan(moving_, std::upper_bound(moving_.begin(), moving_.end(), e) - moving_.begin());
    } else {
        scan(moving_, i + 1);
        scan(static_cells_, std::lower_bound(static_cells_.begin(), static_cells_.end(), e) -
                                static_cells_.begin());
    }
}

template <int D>
void MortonCells<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    const bool selecting = which.selected < boxes_.size();
    if (which.flags.structure) {
        // Every cell, coloured by level; then the Z-order curve through the cell centres
        // in sorted order, coloured along its length.
        int top = 0;
        for (const Signature& s : signatures_) top = std::max(top, s.level);
        const float levels = std::max(1, top - min_level_);
        const float alpha = selecting ? 0.5f * kCellAlpha : kCellAlpha;
        for (const std::vector<Entry>* v : {&moving_, &static_cells_}) {
            for (const Entry& e : *v) {
                draw.cell(cell_box(e.start, e.level),
                          ramp_color(float(e.level - min_level_) / levels, alpha));
            }
        }
        const std::size_t n = moving_.size();
        for (std::size_t i = 1; i < n; ++i) {
            const Vec<D> a = cell_box(moving_[i - 1].start, moving_[i - 1].level).center();
            const Vec<D> b = cell_box(moving_[i].start, moving_[i].level).center();
            draw.segment(a, b, ramp_color(float(i) / float(n), selecting ? 0.5f : 1.0f));
        }
        // With internal references, each node's link to its parent, from centre to centre
        // (the nodes where subtrees branch have no cell of their own but are drawn too).
        for (const std::vector<Link>* links : {&moving_links_, &static_links_}) {
            if (!linked_) break;
            for (std::size_t i = 1; i < links->size(); ++i) {
                const Link& node = (*links)[i];
                const Link& parent = (*links)[node.parent];
                const Vec<D> a = cell_box(node.start, node.level).center();
                const Vec<D> b = cell_box(parent.start, parent.level).center();
                draw.segment(a, b, selecting ? scale_alpha(kLinkColor, 0.5f) : kLinkColor);
            }
        }
    }
    if (selecting) {
        // The selected body's cells in white, and every entry their sweep visited.
        for_each_cell_of(which.selected, [&](const Entry& e, std::size_t i, bool in_static) {
            for_each_visited(e, i, in_static, [&](const Entry& f) {
                draw.box(cell_box(f.start, f.level), kVisitedColor);
            });
            draw.box(cell_box(e.start, e.level), kHighlightColor);
        });
    }
    if (which.query) {
        // The cells the query's descent looked at: green taken whole, cyan descended
        // into, grey pruned because no entry starts inside.
        for (const auto& r : which.query->regions) {
            const Color c = r.kind == TraceKind::kTaken       ? kTraceTakenColor
                            : r.kind == TraceKind::kDescended ? kTraceDescendedColor
                                                              : kTracePrunedColor;
            draw.box(r.box, c);
        }
    }
}

template <int D>
std::vector<LegendEntry> MortonCells<D>::legend() const {
    std::vector<LegendEntry> l = {
        LegendEntry::ramp("cells by level: finest (blue) to coarsest (red)"),
        LegendEntry::ramp("Z-order curve through the cells: first (blue) to last (red)"),
        LegendEntry::selection(kHighlightColor, "selected body's cells"),
        LegendEntry::selection(kVisitedColor, "entries its sweep visited"),
        LegendEntry::query(kTraceTakenColor, "cell taken whole"),
        LegendEntry::query(kTraceDescendedColor, "descended into"),
        LegendEntry::query(kTracePrunedColor, "pruned (no entry starts inside)"),
    };
    if (linked_) l.insert(l.begin() + 2, {kLinkColor, "link to the parent node"});
    return l;
}

template <int D>
std::string MortonCells<D>::describe(BodyId id) const {
    if (id >= boxes_.size()) return {};
    const int level = signatures_[id].level;
    char side[64];
    std::snprintf(side, sizeof side, "%.4g", std::ldexp(1.0, level) / frame_.scale);
    std::string s = "Level " + std::to_string(level) + ": cells of side " + side;
    s += dirty_[id] ? "\nIts cells changed this frame" : "\nIts cells kept from last frame";
    std::size_t visited = 0;
    std::string codes;
    for_each_cell_of(id, [&](const Entry& e, std::size_t i, bool in_static) {
        codes += "\n" + morton::format_code<D>(e.start, level);
        for_each_visited(e, i, in_static, [&](const Entry&) { ++visited; });
    });
    s += "\nCell codes (" + std::string(D == 2 ? "yx" : "zyx") + " per level, top down):" + codes;
    s += "\nIts sweep visited " + std::to_string(visited) + " entries";
    s += "\n" + std::to_string(refreshed_) + " bodies changed cells this frame";
    return s;
}

// The members defined here; the class itself is instantiated in morton_cells.cpp.
template void MortonCells<2>::watch_placed(WatchRecorder<2>&, const std::vector<Entry>&,
                                           std::size_t) const;
template void MortonCells<3>::watch_placed(WatchRecorder<3>&, const std::vector<Entry>&,
                                           std::size_t) const;
template void MortonCells<2>::watch_cell(WatchRecorder<2>&, const Entry&) const;
template void MortonCells<3>::watch_cell(WatchRecorder<3>&, const Entry&) const;
template void MortonCells<2>::watch_pair(WatchRecorder<2>&, PairList&, BodyId, BodyId, bool);
template void MortonCells<3>::watch_pair(WatchRecorder<3>&, PairList&, BodyId, BodyId, bool);
template WatchScript MortonCells<2>::watch_script() const;
template WatchScript MortonCells<3>::watch_script() const;
template void MortonCells<2>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string MortonCells<2>::describe(BodyId) const;
template std::vector<LegendEntry> MortonCells<2>::legend() const;
template void MortonCells<3>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template std::string MortonCells<3>::describe(BodyId) const;
template std::vector<LegendEntry> MortonCells<3>::legend() const;

}  // namespace collide
