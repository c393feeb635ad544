// The sorted grid as the viewer sees it: each level's occupied cells (one layer per level), the
// selected body's runs; the text on one body; Watch mode's pseudocode.
#include "broadphase/sorted_grid.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "broadphase/sorted_grid_cells.hpp"

namespace collide {
namespace {

constexpr Color kReachColor = rgba(0.3f, 0.9f, 1.0f);
constexpr float kOutlineAlpha = 0.6f;
// The colour of used level `layer` of `used`: from a cool grey (finest) to orange
// (coarsest), apart from the bodies' speed ramp and the body boxes' blue.
Color level_color(int layer, int used, float alpha) {
    const float t = used > 1 ? static_cast<float>(layer) / static_cast<float>(used - 1) : 0.0f;
    return rgba(0.75f + 0.25f * t, 0.78f - 0.18f * t, 0.88f - 0.68f * t, alpha);
}

}  // namespace

template <int D>
WatchScript SortedGrid<D>::watch_script() const {
    WatchScript script;
    // Lines added in order; each rule names the line just added.
    const auto line = [&](const char* text) {
        script.lines.push_back(text);
        return int(script.lines.size()) - 1;
    };
    const auto rule = [&](WatchStep step, const char* phase, int at) {
        script.rules.push_back({step, phase, at});
    };
    const char* const kPlace = "place bodies in cells";
    const char* const kWithin = "forward neighbour runs";
    const char* const kAcross = "across levels";
    rule(WatchStep::kPhase, "choose levels", line("choose the levels: cells about the bodies'"));
    line("  size, 4 times larger a level up");
    rule(WatchStep::kPhase, kPlace, line("key each body by the cell of its lower"));
    line("  corner, in the level fitting its size");
    rule(WatchStep::kPlace, nullptr, line("counting-sort by (level, cell), last"));
    line("  frame's order in: each body in its cell");
    rule(WatchStep::kPhase, kWithin, line("for each occupied cell, level by level:"));
    rule(WatchStep::kVisit, kWithin, line("  its forward runs: the rest of it and the"));
    if constexpr (D == 2) {
        line("    next cell along x; the row above");
    } else {
        line("    next cell along x; the row above;");
        line("    the three rows of the plane above");
    }
    rule(WatchStep::kCursor, kWithin, line("  for each body a in the cell:"));
    rule(WatchStep::kTest, kWithin, line("    test a against each body of the runs"));
    line("      (eight at a time with AVX2)");
    line("    if they overlap, not both static:");
    rule(WatchStep::kEmit, kWithin, line("      report the pair (a, b)"));
    const int across = line("for each body a of a level that scans");
    rule(WatchStep::kPhase, kAcross, across);
    rule(WatchStep::kCursor, kAcross, across);
    line("    another level:");
    rule(WatchStep::kVisit, kAcross, line("  the cells there its box reaches, grown"));
    line("    down by a cell");
    const int test = line("  test a against their bodies; report");
    rule(WatchStep::kTest, kAcross, test);
    rule(WatchStep::kEmit, kAcross, test);
    line("    the pairs that overlap");
    return script;
}

template <int D>
std::vector<std::string> SortedGrid<D>::layers() const {
    std::vector<std::string> names;
    for (std::size_t k = 0; k < levels_.size(); ++k) {
        if (levels_[k].bodies == 0) continue;
        char text[96];
        std::snprintf(text, sizeof text, "level %zu: cell %.3g, %u bodies%s", k, levels_[k].cell,
                      levels_[k].bodies, levels_[k].folded ? ", folded" : "");
        names.emplace_back(text);
    }
    return names;
}

template <int D>
void SortedGrid<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    if (!which.flags.structure || ids_.empty()) return;
    // Occupied cells in view, each level in its own colour, as tiles filled by how full they
    // are with a faint outline, inset a little so neighbours keep a gap: the body boxes are
    // bare outlines, the cells are tiles.
    int layer = -1;
    const int used = static_cast<int>(
        std::count_if(levels_.begin(), levels_.end(), [](const Level& l) { return l.bodies > 0; }));
    for (const Level& level : levels_) {
        if (level.bodies == 0) continue;
        ++layer;
        if ((which.flags.hidden_layers >> layer) & 1) continue;
        for (std::size_t c = level.first_cell; c < level.first_cell + level.cells; ++c) {
            const std::uint32_t count = start_[c + 1] - start_[c];
            if (count == 0) continue;
            Aabb<D> box = cell_box(level, cell_of(level, entry_box(start_[c]).lo));
            const Vec<D> inset = 0.06f * box.size();
            box = {box.lo + inset, box.hi - inset};
            // Coarse cells can be as big as the world: filled, they would veil everything.
            const bool filled = box.largest_side() < 0.25f * draw.view.largest_side();
            draw.cell(box, level_color(layer, used, kOutlineAlpha), static_cast<float>(count),
                      filled ? level_color(layer, used, std::min(0.1f + 0.06f * count, 0.5f)) : 0);
        }
    }
    if (which.selected >= level_of_.size()) return;
    const auto it = std::find(ids_.begin(), ids_.end(), which.selected);
    if (it == ids_.end()) return;
    const Level& level = levels_[level_of_[which.selected]];
    const Aabb<D> own =
        cell_box(level, cell_of(level, entry_box(std::size_t(it - ids_.begin())).lo));
    draw.box(own, kHighlightColor);
    // The cells its partners' lower corners can be in (own cell and neighbours).
    Aabb<D> reach = own;
    reach.lo -= Vec<D>(level.cell);
    reach.hi += Vec<D>(level.cell);
    draw.box(reach, kReachColor);
}

template <int D>
std::vector<LegendEntry> SortedGrid<D>::legend() const {
    // One tile swatch per level in use, as layers() names them.
    std::vector<LegendEntry> l;
    const std::vector<std::string> names = layers();
    for (std::size_t k = 0; k < names.size(); ++k) {
        l.push_back(LegendEntry::area(level_color(int(k), int(names.size()), 0.5f),
                                      names[k] + (k == 0 ? " (fuller tiles more opaque)" : "")));
    }
    l.push_back(LegendEntry::selection(kHighlightColor, "selected body's cell"));
    l.push_back(LegendEntry::selection(kReachColor, "cells its partners' lower corners can be in"));
    return l;
}

template <int D>
std::string SortedGrid<D>::describe(BodyId id) const {
    const auto it = std::find(ids_.begin(), ids_.end(), id);
    if (it == ids_.end()) return {};
    const std::size_t e = static_cast<std::size_t>(it - ids_.begin());
    const int k = level_of_[id];
    const Level& level = levels_[k];
    const Cell c = cell_of(level, entry_box(e).lo);
    const std::size_t g = cell_index(level, c);
    std::string s = "Level " + std::to_string(k) + " of " +
                    std::to_string(std::count_if(levels_.begin(), levels_.end(),
                                                 [](const Level& l) { return l.bodies > 0; })) +
                    " in use, cell side " + std::to_string(level.cell);
    s += "\nCell (" + std::to_string(c[0]);
    for (int a = 1; a < D; ++a) s += ", " + std::to_string(c[a]);
    s += "), sorted entries " + std::to_string(start_[g]) + ".." + std::to_string(start_[g + 1]);
    s += "\n" + std::to_string(start_[g + 1] - start_[g] - 1) + " other bodies share its cell";
    if (k > 0) s += "\nScans the cells of " + std::to_string(k) + " finer level(s) it reaches";
    s += eight_lanes() ? "\nTests 8 boxes at a time (AVX2)" : "\nTests 4 boxes at a time (SSE2)";
    return s;
}

// The members defined here; the class itself is instantiated in sorted_grid.cpp.
template WatchScript SortedGrid<2>::watch_script() const;
template WatchScript SortedGrid<3>::watch_script() const;
template std::vector<std::string> SortedGrid<2>::layers() const;
template void SortedGrid<2>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string SortedGrid<2>::describe(BodyId) const;
template std::vector<LegendEntry> SortedGrid<2>::legend() const;
template std::vector<std::string> SortedGrid<3>::layers() const;
template void SortedGrid<3>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template std::string SortedGrid<3>::describe(BodyId) const;
template std::vector<LegendEntry> SortedGrid<3>::legend() const;

}  // namespace collide
