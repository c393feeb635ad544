#include "broadphase/sorted_grid.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace collide {

namespace {

// The size estimate reads at most this many boxes, spread evenly over the ids.
constexpr std::size_t kSample = 4096;
// A level's grid has at most this many cells per body (and at least kMinCells): cells grow
// when the bodies spread far, so memory and the count pass stay linear in n.
constexpr double kCellsPerBody = 4.0;
constexpr double kMinCells = 64.0;
constexpr std::size_t kEntriesPerChunk = 8192;

}  // namespace

template <int D>
void SortedGrid<D>::choose_levels(std::span<const Aabb<D>> boxes) {
    const std::size_t n = boxes.size();
    // Level 0 is sized for the typical body: twice the median extent, or the largest if all
    // are smaller (a uniform scene then has one level whose cells fit every body).
    sample_.clear();
    const std::size_t step = std::max<std::size_t>(1, n / kSample);
    for (std::size_t i = 0; i < n; i += step) sample_.push_back(boxes[i].largest_side());
    float median = 0.0f;
    if (!sample_.empty()) {
        const auto mid = sample_.begin() + static_cast<std::ptrdiff_t>(sample_.size() / 2);
        std::nth_element(sample_.begin(), mid, sample_.end());
        median = *mid;
    }
    float largest = 0.0f;
    for (const Aabb<D>& b : boxes) largest = std::max(largest, b.largest_side());
    base_cell_ = cell_scale() * std::min(2.0f * median, largest);
    if (!(base_cell_ > 0.0f) || !std::isfinite(base_cell_)) base_cell_ = 1.0f;

    levels_.assign(kMaxLevels, Level{});
    for (int k = 0; k < kMaxLevels; ++k)
        levels_[k].cell = base_cell_ * std::pow(kLevelRatio, static_cast<float>(k));
    level_of_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const float e = boxes[i].largest_side();
        int k = 0;
        while (e > levels_[k].cell && k + 1 < kMaxLevels) ++k;
        level_of_[i] = static_cast<std::uint8_t>(k);
        Level& level = levels_[k];
        ++level.bodies;
        level.lows.grow({boxes[i].lo, boxes[i].lo});
        // The top level takes whatever is left, however large.
        if (k + 1 == kMaxLevels) level.cell = std::max(level.cell, e);
    }
}

template <int D>
void SortedGrid<D>::size_grids() {
    std::size_t total = 0;
    for (Level& level : levels_) {
        level.first_cell = total;
        level.cells = 0;
        if (level.bodies == 0) continue;
        const double limit = std::max(kCellsPerBody * level.bodies, kMinCells);
        double cell = level.cell;
        std::array<double, D> dims{};
        double cells = 0;
        for (;;) {
            cells = 1;
            for (int k = 0; k < D; ++k) {
                // A cell and a half of padding below (a lower corner never rounds into cell
                // 0) and at least one whole cell above, so the forward runs stay inside the
                // level and never wrap onto bodies.
                const double span = double(level.lows.hi[k]) - double(level.lows.lo[k]);
                dims[k] = std::floor(span / cell + 1.5) + 3;  // + 1 more for rounding
                cells *= dims[k];
            }
            if (cells <= limit) break;
            cell *= 2.0;
        }
        for (int k = 0; k < D; ++k) level.dims[k] = static_cast<std::int64_t>(dims[k]);
        level.cell = static_cast<float>(cell);
        level.inv_cell = static_cast<float>(1.0 / cell);
        level.origin = level.lows.lo - Vec<D>(1.5f * level.cell);
        level.cells = static_cast<std::size_t>(cells);
        total += level.cells;
    }
    start_.assign(total + 1, 0);
}

template <int D>
std::int64_t SortedGrid<D>::axis_cell(const Level& level, float v, int k) const {
    const float g = (v - level.origin[k]) * level.inv_cell;
    if (!(g > 0.0f)) return 0;  // NaN too
    if (g >= static_cast<float>(level.dims[k] - 1)) return level.dims[k] - 1;
    return static_cast<std::int64_t>(g);
}

template <int D>
typename SortedGrid<D>::Cell SortedGrid<D>::cell_of(const Level& level, const Vec<D>& p) const {
    Cell c;
    for (int k = 0; k < D; ++k) c[k] = axis_cell(level, p[k], k);
    return c;
}

template <int D>
std::size_t SortedGrid<D>::cell_index(const Level& level, const Cell& c) const {
    std::int64_t index = c[D - 1];
    for (int k = D - 2; k >= 0; --k) index = index * level.dims[k] + c[k];
    return level.first_cell + static_cast<std::size_t>(index);
}

// A counting sort by global cell whose input is last frame's order: while bodies keep their
// cells, the scatter below writes nearly in sequence.
template <int D>
void SortedGrid<D>::sort_bodies(std::span<const Aabb<D>> boxes,
                                std::span<const std::uint8_t> is_static) {
    const std::size_t n = boxes.size();
    if (order_.size() != n) {
        order_.resize(n);
        std::iota(order_.begin(), order_.end(), BodyId{0});
    }
    keys_.resize(n);
    occupied_ = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const BodyId id = order_[k];
        const Level& level = levels_[level_of_[id]];
        const auto key = static_cast<std::uint32_t>(cell_index(level, cell_of(level, boxes[id].lo)));
        keys_[k] = key;
        occupied_ += start_[key + 1]++ == 0;
    }
    for (std::size_t c = 1; c < start_.size(); ++c) start_[c] += start_[c - 1];
    ids_.resize(n);
    static_.resize(n);
    for (int a = 0; a < D; ++a) {
        lo_[a].resize(n);
        hi_[a].resize(n);
    }
    for (std::size_t k = 0; k < n; ++k) {
        const BodyId id = order_[k];
        const std::uint32_t e = start_[keys_[k]]++;
        ids_[e] = id;
        static_[e] = is_static[id];
        for (int a = 0; a < D; ++a) {
            lo_[a][e] = boxes[id].lo[a];
            hi_[a][e] = boxes[id].hi[a];
        }
    }
    // The scatter left each cell's start at the next cell's; move them back one.
    for (std::size_t c = start_.size() - 1; c > 0; --c) start_[c] = start_[c - 1];
    start_[0] = 0;
    order_.assign(ids_.begin(), ids_.end());
}

template <int D>
bool SortedGrid<D>::overlaps(std::size_t e, const Aabb<D>& b) const {
    for (int a = 0; a < D; ++a) {
        if (lo_[a][e] > b.hi[a] || b.lo[a] > hi_[a][e]) return false;
    }
    return true;
}

template <int D>
Aabb<D> SortedGrid<D>::entry_box(std::size_t e) const {
    Aabb<D> b;
    for (int a = 0; a < D; ++a) {
        b.lo[a] = lo_[a][e];
        b.hi[a] = hi_[a][e];
    }
    return b;
}

template <int D>
void SortedGrid<D>::pairs_within(std::size_t e0, std::size_t e1, PairList& out,
                                 std::uint64_t& tests) const {
    // Cell by cell: every entry of a cell tests the same runs of neighbours (the rest of its
    // own cell and the next one along x, the three cells above in 2D; five runs in 3D).
    std::size_t level_index = 0;
    std::size_t c = static_cast<std::size_t>(
        std::upper_bound(start_.begin(), start_.end(), static_cast<std::uint32_t>(e0)) -
        start_.begin() - 1);
    std::array<std::pair<std::size_t, std::size_t>, D == 2 ? 1 : 4> above;
    for (std::size_t i = e0; i < e1;) {
        while (start_[c + 1] <= i) ++c;
        while (c >= levels_[level_index].first_cell + levels_[level_index].cells) ++level_index;
        const Level& level = levels_[level_index];
        const std::size_t w = static_cast<std::size_t>(level.dims[0]);
        above[0] = {start_[c + w - 1], start_[c + w + 2]};  // x - 1 .. x + 1, one row up
        if constexpr (D == 3) {
            const std::size_t plane = w * static_cast<std::size_t>(level.dims[1]);
            // and the three rows y - 1 .. y + 1 of the plane above.
            above[1] = {start_[c + plane - w - 1], start_[c + plane - w + 2]};
            above[2] = {start_[c + plane - 1], start_[c + plane + 2]};
            above[3] = {start_[c + plane + w - 1], start_[c + plane + w + 2]};
        }
        const std::size_t along = start_[c + 2];  // the end of the next cell along x
        const std::size_t cell_end = std::min<std::size_t>(start_[c + 1], e1);
        for (; i < cell_end; ++i) {
            const Aabb<D> box = entry_box(i);
            const bool fixed = static_[i] != 0;
            const auto run = [&](std::size_t from, std::size_t to) {
                tests += to - from;
                for (std::size_t j = from; j < to; ++j) {
                    costs_.add_pair(ids_[i], ids_[j]);
                    if (overlaps(j, box) && !(fixed && static_[j]))
                        out.push_back(make_pair(ids_[i], ids_[j]));
                }
            };
            run(i + 1, along);
            for (const auto& [from, to] : above) run(from, to);
        }
    }
}

template <int D>
template <typename Fn>
void SortedGrid<D>::for_each_run(const Level& level, const Aabb<D>& box, const Fn& visit) const {
    Cell lo, hi;
    for (int k = 0; k < D; ++k) {
        lo[k] = axis_cell(level, box.lo[k] - level.cell, k);
        hi[k] = axis_cell(level, box.hi[k], k);
    }
    Cell c = lo;
    for (;;) {
        c[0] = lo[0];
        const std::size_t first = cell_index(level, c);
        visit(start_[first], start_[first + static_cast<std::size_t>(hi[0] - lo[0]) + 1]);
        int k = 1;
        while (k < D && ++c[k] > hi[k]) c[k] = lo[k], ++k;
        if (k == D) return;
    }
}

template <int D>
void SortedGrid<D>::pairs_across(std::size_t e0, std::size_t e1, PairList& out,
                                 std::uint64_t& tests) const {
    for (std::size_t i = e0; i < e1; ++i) {
        const BodyId id = ids_[i];
        const int own = level_of_[id];
        const Aabb<D> box = entry_box(i);
        const bool fixed = static_[i] != 0;
        for (int j = 0; j < own; ++j) {
            if (levels_[j].bodies == 0) continue;
            for_each_run(levels_[j], box, [&](std::size_t from, std::size_t to) {
                tests += to - from;
                for (std::size_t e = from; e < to; ++e) {
                    costs_.add_pair(id, ids_[e]);
                    if (fixed && static_[e]) continue;
                    if (overlaps(e, box)) out.push_back(make_pair(id, ids_[e]));
                }
            });
        }
    }
}

template <int D>
void SortedGrid<D>::update(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                           PairList& out) {
    out.clear();
    choose_levels(boxes);
    size_grids();
    sort_bodies(boxes, is_static);
    const std::size_t n = boxes.size();
    costs_.reset(n);
    const auto within = [this](std::size_t b, std::size_t e, PairList& p, std::uint64_t& t) {
        pairs_within(b, e, p, t);
    };
    // Entries of level 1 and up are the coarse bodies that scan the finer levels.
    const std::size_t coarse = start_[levels_[1].first_cell];
    const auto across = [this, coarse](std::size_t b, std::size_t e, PairList& p,
                                       std::uint64_t& t) { pairs_across(coarse + b, coarse + e, p, t); };
    within_.run(parallel(), n, kEntriesPerChunk, within, out);
    across_.run(parallel(), n - coarse, kEntriesPerChunk / 8, across, out);
}

template <int D>
void SortedGrid<D>::query(const Aabb<D>& region, std::vector<BodyId>& out,
                      QueryTrace<D>* /*trace*/) const {
    out.clear();
    for (const Level& level : levels_) {
        if (level.bodies == 0) continue;
        for_each_run(level, region, [&](std::size_t from, std::size_t to) {
            for (std::size_t e = from; e < to; ++e) {
                if (overlaps(e, region)) out.push_back(ids_[e]);
            }
        });
    }
}

template <int D>
Aabb<D> SortedGrid<D>::cell_box(const Level& level, const Cell& c) const {
    Aabb<D> b;
    for (int k = 0; k < D; ++k) {
        b.lo[k] = level.origin[k] + static_cast<float>(c[k]) * level.cell;
        b.hi[k] = b.lo[k] + level.cell;
    }
    return b;
}

template <int D>
BroadPhaseStats SortedGrid<D>::stats() const {
    std::size_t bytes = (order_.capacity() + keys_.capacity() + ids_.capacity() +
                         start_.capacity()) * 4 +
                        static_.capacity() + level_of_.capacity() + sample_.capacity() * 4 +
                        within_.bytes() + across_.bytes() + levels_.capacity() * sizeof(Level);
    for (int a = 0; a < D; ++a) bytes += (lo_[a].capacity() + hi_[a].capacity()) * 4;
    return {.candidate_tests = within_.tests() + across_.tests(),
            .structure_bytes = bytes,
            .nodes = occupied_,
            .depth = static_cast<int>(std::count_if(levels_.begin(), levels_.end(),
                                                    [](const Level& l) { return l.bodies > 0; }))};
}

template class SortedGrid<2>;
template class SortedGrid<3>;

}  // namespace collide
