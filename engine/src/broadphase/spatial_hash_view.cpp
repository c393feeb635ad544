// The spatial hash as the viewer sees it: occupied cells and fat boxes (two layers), the selected
// body's cells, the query's trace; the text on one body.
#include "broadphase/spatial_hash.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdio>

namespace collide {
namespace {

constexpr Color kCellOutlineColor = rgba(0.8f, 0.8f, 0.9f, 0.3f);
constexpr Color kFatBoxColor = rgba(0.3f, 0.9f, 1.0f, 0.35f);

// A cell's heat: colour and opacity both follow its share of the fullest cell in view, so
// cells holding one or two bodies stay faint and the full ones stand out.
Color heat(float t) {
    return ramp_color(t, 0.06f + 0.5f * t);
}

}  // namespace

template <int D>
template <typename Fn>
void SpatialHash<D>::for_each_cell_of(BodyId id, const Fn& visit) const {
    if (id >= boxes_.size() || oversize(ranges_[id])) return;
    for_each_cell_in<D>(ranges_[id].lo, ranges_[id].hi, [&](const Cell& c) {
        const auto [first, end] = find_cell(c);
        visit(c, first, end);
    });
}

template <int D>
std::vector<std::string> SpatialHash<D>::layers() const {
    return {"cells", "fat boxes"};
}

template <int D>
void SpatialHash<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    const bool selecting = which.selected < boxes_.size();
    if (which.flags.structure && !(which.flags.hidden_layers & 1u)) {
        // Occupied cells in view as a heat map of their entry counts, with thin outlines;
        // the hash's grid runs past the world, so cell() clips them to it.
        std::size_t top = 1;
        for (std::size_t i = 0, j = 0; i < entries_.size(); i = j) {
            for (j = i + 1; j < entries_.size() && entries_[j].same_cell(entries_[i]); ++j) {
            }
            if (cell_box(entries_[i].cell).overlaps(draw.view)) top = std::max(top, j - i);
        }
        for (std::size_t i = 0, j = 0; i < entries_.size(); i = j) {
            for (j = i + 1; j < entries_.size() && entries_[j].same_cell(entries_[i]); ++j) {
            }
            draw.cell(cell_box(entries_[i].cell),
                      selecting ? scale_alpha(kCellOutlineColor, 0.5f) : kCellOutlineColor,
                      static_cast<float>(j - i), heat(float(j - i) / float(top)));
        }
    }
    if (which.flags.structure && !(which.flags.hidden_layers & 2u)) {
        // Weight 0: a fat box too small to read is dropped, not added to the tint.
        for (BodyId i = 0; i < fat_.size(); ++i) draw.cell(fat_[i], kFatBoxColor, 0.0f);
    }
    if (selecting) {
        for_each_cell_of(which.selected, [&](const Cell& c, std::size_t, std::size_t) {
            draw.fill(cell_box(c), rgba(1, 1, 1, 0.35f));
            draw.box(cell_box(c), kHighlightColor);
        });
        draw.box(fat_[which.selected], kHighlightColor);
    }
    if (which.query) {
        // The cells the query looks up: green where occupied, grey where empty.
        for (const auto& r : which.query->regions) {
            draw.box(r.box, r.kind == TraceKind::kTaken ? kTraceTakenColor : kTracePrunedColor);
        }
    }
}

template <int D>
std::vector<LegendEntry> SpatialHash<D>::legend() const {
    return {
        LegendEntry::ramp("cells by bodies held: few (blue, faint) to the fullest in view (red)"),
        {kCellOutlineColor, "cell outline"},
        {kFatBoxColor, "fat boxes (re-bucketed only when a body leaves its own)"},
        LegendEntry::selection(kHighlightColor, "selected body's cells and fat box"),
        LegendEntry::query(kTraceTakenColor, "occupied cell looked up"),
        LegendEntry::query(kTracePrunedColor, "empty cell"),
    };
}

template <int D>
std::string SpatialHash<D>::describe(BodyId id) const {
    if (id >= boxes_.size()) return {};
    const Range& r = ranges_[id];
    char line[160];
    std::string s;
    std::snprintf(line, sizeof line, "Cell side %.4g, %zu cells", double(cell_), cells_of(r));
    s += line;
    s += "\nCells from (";
    for (int k = 0; k < D; ++k) s += (k ? ", " : "") + std::to_string(r.lo[k]);
    s += ") to (";
    for (int k = 0; k < D; ++k) s += (k ? ", " : "") + std::to_string(r.hi[k]);
    s += ")";
    std::snprintf(line, sizeof line, "\nFat box (%.4g, %.4g) - (%.4g, %.4g)%s",
                  double(fat_[id].lo[0]), double(fat_[id].lo[1]), double(fat_[id].hi[0]),
                  double(fat_[id].hi[1]), D == 3 ? " (x, y)" : "");
    s += line;
    if (oversize(r)) {
        s += "\nOversize: no entries, tested against every body";
    } else {
        std::size_t sharing = 0;
        for_each_cell_of(id, [&](const Cell&, std::size_t first, std::size_t end) {
            sharing += end - first - 1;
        });
        s += "\n" + std::to_string(sharing) + " other entries share its cells";
    }
    s += dirty_[id] ? "\nRe-bucketed this frame" : "\nKept its cells this frame";
    s += "\n" + std::to_string(reinserted_) + " bodies re-bucketed this frame" +
         (rebuilt_ ? " (full rebuild)" : "");
    return s;
}

// The steps of one update as spatial_hash.cpp takes them.
template <int D>
WatchScript SpatialHash<D>::watch_script() const {
    return {{"cell side: 2 x a percentile of box sizes",
             "  (kept unless that drifts 1.5x)",
             "for each body that left its fat box",
             "  (every body at a rebuild):",
             "  new fat box: its box x the fat scale",
             "  if its cells changed: put it in each",
             "  cell of its fat box, hashed to a bucket",
             "  (too many cells: the oversize list)",
             "merge moved entries into the sorted table",
             "for each occupied cell:",
             "  for each two bodies in it:",
             "    skip two statics, or a pair whose",
             "    lowest shared cell is another one",
             "    test their boxes",
             "    report the pair if they overlap",
             "for each oversize body:",
             "  the bodies whose low x reaches it",
             "  and later oversize bodies: test boxes",
             "  report the pair if they overlap"},
            {{WatchStep::kPhase, "cell size", 0},
             {WatchStep::kPhase, "bucket", 2},
             {WatchStep::kPlace, "bucket", 5},
             {WatchStep::kPhase, "pairs in cells", 9},
             {WatchStep::kVisit, "pairs in cells", 9},
             {WatchStep::kTest, "pairs in cells", 13},
             {WatchStep::kEmit, "pairs in cells", 14},
             {WatchStep::kPhase, "oversize", 15},
             {WatchStep::kTest, "oversize", 17},
             {WatchStep::kEmit, "oversize", 18}}};
}

// The members defined here; the class itself is instantiated in spatial_hash.cpp.
template std::vector<std::string> SpatialHash<2>::layers() const;
template void SpatialHash<2>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string SpatialHash<2>::describe(BodyId) const;
template std::vector<LegendEntry> SpatialHash<2>::legend() const;
template WatchScript SpatialHash<2>::watch_script() const;
template std::vector<std::string> SpatialHash<3>::layers() const;
template void SpatialHash<3>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template std::string SpatialHash<3>::describe(BodyId) const;
template std::vector<LegendEntry> SpatialHash<3>::legend() const;
template WatchScript SpatialHash<3>::watch_script() const;

}  // namespace collide
