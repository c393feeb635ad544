// The hierarchical hash as the viewer sees it: its levels as overlay layers, the occupied cells
// coloured by level, the cells the selected body and the query looked up; the text on one body.
#include <cmath>
#include <cstdio>

#include "broadphase/hierarchical_hash.hpp"

namespace collide {
namespace {

constexpr Color kLookedUpColor = rgba(1.0f, 0.85f, 0.2f, 0.9f);

}  // namespace

template <int D>
std::vector<std::string> HierarchicalHash<D>::layers() const {
    std::vector<std::string> names;
    for (int m : active_) {
        char text[96];
        std::snprintf(text, sizeof text, "level %d: cell %.4g, %u cells", m,
                      std::ldexp(1.0, base_exponent_ + m), levels_[m].cells);
        names.emplace_back(text);
    }
    return names;
}

template <int D>
void HierarchicalHash<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    ensure_index();
    const bool selecting = which.selected < boxes_.size();
    if (which.flags.structure) {
        // Each occupied cell once (the first entry of its run), coloured by level.
        const float span = std::max(1, active_.empty() ? 1 : active_.back() - active_.front());
        std::array<int, kMaxLevels> layer_of{};
        for (std::size_t layer = 0; layer < active_.size(); ++layer) {
            layer_of[active_[layer]] = static_cast<int>(layer);
        }
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            const Entry& e = entries_[i];
            if (i > 0 && entries_[i - 1].same_cell(e)) continue;
            const int layer = layer_of[e.level];
            if (layer < 64 && (which.flags.hidden_layers >> layer) & 1u) continue;
            const float t = float(e.level - active_.front()) / span;
            draw.cell(cell_box(unpack(e.key()), e.level), ramp_color(t, selecting ? 0.35f : 0.8f),
                      1.0f, ramp_color(t, 0.15f));
        }
    }
    if (selecting) {
        // The coarser cells the body looked up (yellow), then its own cells (white).
        const BodyId id = which.selected;
        const int own = signatures_[id].level;
        for (int m : active_) {
            if (m <= own) continue;
            for_each_cell(boxes_[id], m,
                          [&](const Cell& c) { draw.box(cell_box(c, m), kLookedUpColor); });
        }
        for_each_cell(boxes_[id], own,
                      [&](const Cell& c) { draw.box(cell_box(c, own), kHighlightColor); });
    }
    if (which.query) {
        // The cells the query looked up at each level (green where a body was found there).
        for (const auto& r : which.query->regions) {
            draw.box(r.box, r.kind == TraceKind::kTaken ? kTraceTakenColor : kTracePrunedColor);
        }
    }
}

template <int D>
std::vector<LegendEntry> HierarchicalHash<D>::legend() const {
    return {
        LegendEntry::ramp("occupied cells by level: finest (blue) to coarsest (red)"),
        LegendEntry::selection(kHighlightColor, "selected body's cells"),
        LegendEntry::selection(kLookedUpColor, "coarser cells it looked up"),
        LegendEntry::query(kTraceTakenColor, "cell where a body was found"),
        LegendEntry::query(kTracePrunedColor, "cell looked up, empty"),
    };
}

template <int D>
std::string HierarchicalHash<D>::describe(BodyId id) const {
    if (id >= boxes_.size()) return {};
    ensure_index();
    const int own = signatures_[id].level;
    char text[128];
    std::snprintf(text, sizeof text, "Level %d: cells of side %.4g", own,
                  std::ldexp(1.0, base_exponent_ + own));
    std::string s = text;
    s +=
        dirty_[id] ? "\nIts entries were re-made this frame" : "\nIts entries kept from last frame";
    const auto occupants = [&](const Cell& c, int m) {
        const auto [begin, end] = find(pack(c), m);
        return std::size_t{end - begin};
    };
    for_each_cell(boxes_[id], own, [&](const Cell& c) {
        s += "\nCell (";
        for (int k = 0; k < D; ++k) {
            if (k > 0) s += ", ";
            s += std::to_string(c[k]);
        }
        s.append("): ").append(std::to_string(occupants(c, own) - 1)).append(" other bodies");
    });
    for (int m : active_) {
        if (m <= own) continue;
        std::size_t cells = 0, found = 0;
        for_each_cell(boxes_[id], m, [&](const Cell& c) {
            ++cells;
            found += occupants(c, m);
        });
        s.append("\nChecked level ").append(std::to_string(m)).append(": ");
        s.append(std::to_string(cells)).append(" cells, ").append(std::to_string(found));
        s.append(" entries");
    }
    s += '\n';
    s += std::to_string(reinserted_);
    s += " bodies changed cells this frame";
    return s;
}

// The steps of one update as hierarchical_hash.cpp takes them.
template <int D>
WatchScript HierarchicalHash<D>::watch_script() const {
    return {{"level L: cells 2^L times level 0's side",
             "cell key: Morton code of its coordinates",
             "for each body: its level is the smallest",
             "  whose cells are at least its size",
             "  cells changed (or a rebuild): an entry",
             "  per cell it touches there (at most 2^D)",
             "merge new entries into the Z-ordered list",
             "  (a cell before the cells inside it)",
             "for each entry a, in that order:",
             "  its own cell: each later entry b",
             "  each coarser level holding bodies:",
             "    only from a's body's first cell in it,",
             "    the cell there holding a's (open in",
             "    the sweep, or found by hash): each b",
             "  skip two statics; test a's box and b's",
             "  report (a, b) if they overlap and the",
             "  cell holds their overlap's low corner"},
            {{WatchStep::kPhase, "cells", 2},
             {WatchStep::kPlace, "cells", 4},
             {WatchStep::kPhase, "pairs", 8},
             {WatchStep::kCursor, "pairs", 8},
             {WatchStep::kVisit, "pairs", 9},
             {WatchStep::kEnter, "pairs", 12},
             {WatchStep::kPrune, "pairs", 12},
             {WatchStep::kTest, "pairs", 14},
             {WatchStep::kEmit, "pairs", 15}}};
}

// The members defined here; the class itself is instantiated in hierarchical_hash.cpp.
#define COLLIDE_HIERARCHICAL_HASH_VIEW(D)                                             \
    template std::vector<std::string> HierarchicalHash<D>::layers() const;            \
    template void HierarchicalHash<D>::draw(DebugDraw<D>&, const Overlays<D>&) const; \
    template std::string HierarchicalHash<D>::describe(BodyId) const;                 \
    template std::vector<LegendEntry> HierarchicalHash<D>::legend() const;            \
    template WatchScript HierarchicalHash<D>::watch_script() const;
COLLIDE_HIERARCHICAL_HASH_VIEW(2)
COLLIDE_HIERARCHICAL_HASH_VIEW(3)
#undef COLLIDE_HIERARCHICAL_HASH_VIEW

}  // namespace collide
