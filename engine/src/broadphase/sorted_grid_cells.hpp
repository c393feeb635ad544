// The sorted grid's cells and entries as its sources read them: the cell of a point, a cell's
// global index, the runs of sorted entries a box reaches, an entry's box. Defined here, inline,
// because the sort, the pair kernels, the search and validate() (each in a source of its own)
// run them for every body: a call across sources for each would cost the hot loops.
#pragma once

#include <algorithm>
#include <cstdint>

#include "broadphase/sorted_grid.hpp"

namespace collide {

template <int D>
inline std::int64_t SortedGrid<D>::axis_cell(const Level& level, float v, int k) const {
    const float g = (v - level.origin[k]) * level.inv_cell;
    if (!(g > 0.0f)) return 0;  // NaN too
    if (g >= static_cast<float>(level.dims[k] - 1)) return level.dims[k] - 1;
    return static_cast<std::int64_t>(g);
}

template <int D>
inline typename SortedGrid<D>::Cell SortedGrid<D>::cell_of(const Level& level,
                                                           const Vec<D>& p) const {
    Cell c;
    for (int k = 0; k < D; ++k) c[k] = axis_cell(level, p[k], k);
    return c;
}

template <int D>
inline std::size_t SortedGrid<D>::cell_index(const Level& level, const Cell& c) const {
    std::int64_t index = c[D - 1];
    for (int k = D - 2; k >= 0; --k) index = index * level.dims[k] + c[k];
    auto slot = static_cast<std::size_t>(index);
    if (level.folded) slot &= level.cells - 1;
    return level.first_cell + slot;
}

template <int D>
template <typename Fn>
void SortedGrid<D>::visit_slots(const Level& level, std::size_t slot, std::size_t count,
                                const Fn& visit) const {
    const std::size_t base = level.first_cell;
    if (count >= level.cells) {
        visit(start_[base], start_[base + level.cells]);
        return;
    }
    if (slot >= level.cells) slot -= level.cells;
    const std::size_t end = slot + count;
    if (end <= level.cells) {
        visit(start_[base + slot], start_[base + end]);
    } else {
        visit(start_[base + slot], start_[base + level.cells]);
        visit(start_[base], start_[base + end - level.cells]);
    }
}

template <int D>
inline bool SortedGrid<D>::overlaps(std::size_t e, const Aabb<D>& b) const {
    for (int a = 0; a < D; ++a) {
        if (lo_[a][e] > b.hi[a] || b.lo[a] > hi_[a][e]) return false;
    }
    return true;
}

template <int D>
inline Aabb<D> SortedGrid<D>::entry_box(std::size_t e) const {
    Aabb<D> b;
    for (int a = 0; a < D; ++a) {
        b.lo[a] = lo_[a][e];
        b.hi[a] = hi_[a][e];
    }
    return b;
}

template <int D>
template <typename Fn>
void SortedGrid<D>::for_each_run(const Level& level, const Aabb<D>& box, Runs& slots,
                                 const Fn& visit) const {
    Cell lo, hi;
    double footprint = 1;
    for (int k = 0; k < D; ++k) {
        lo[k] = axis_cell(level, box.lo[k] - level.cell, k);
        hi[k] = axis_cell(level, box.hi[k], k);
        footprint *= double(hi[k] - lo[k] + 1);
    }
    const std::size_t base = level.first_cell;
    if (footprint >= double(level.cells)) {
        visit_slots(level, 0, level.cells, visit);  // every slot once
        return;
    }
    const auto count = static_cast<std::size_t>(hi[0] - lo[0] + 1);
    // Rows far apart in a folded level can share slots: then the runs are merged first, so
    // that no slot (and no pair) is visited twice.
    std::int64_t span = hi[D - 1] - lo[D - 1];
    for (int k = D - 2; k >= 0; --k) span = span * level.dims[k] + hi[k] - lo[k];
    const bool merge = level.folded && span + 1 >= static_cast<std::int64_t>(level.cells);
    slots.clear();
    Cell c = lo;
    for (;;) {
        c[0] = lo[0];
        const std::size_t first = cell_index(level, c) - base;
        if (merge) {
            const std::size_t end = first + count;
            if (end <= level.cells) {
                slots.push_back({first, end});
            } else {
                slots.push_back({first, level.cells});
                slots.push_back({0, end - level.cells});
            }
        } else {
            visit_slots(level, first, count, visit);
        }
        int k = 1;
        while (k < D && ++c[k] > hi[k]) c[k] = lo[k], ++k;
        if (k == D) break;
    }
    if (!merge) return;
    std::sort(slots.begin(), slots.end());
    std::size_t from = slots[0].first, to = slots[0].second;
    for (const auto& [a, b] : slots) {
        if (a > to) {
            visit(start_[base + from], start_[base + to]);
            from = a;
        }
        to = std::max(to, b);
    }
    visit(start_[base + from], start_[base + to]);
}

template <int D>
inline Aabb<D> SortedGrid<D>::cell_box(const Level& level, const Cell& c) const {
    Aabb<D> b;
    for (int k = 0; k < D; ++k) {
        b.lo[k] = level.origin[k] + static_cast<float>(c[k]) * level.cell;
        b.hi[k] = b.lo[k] + level.cell;
    }
    return b;
}

}  // namespace collide
