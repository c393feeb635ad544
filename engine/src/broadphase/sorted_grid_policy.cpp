// The sorted grid's level policy: level 0 sized from the bodies' median size, each body's level
// by its size, each level's grid made coarser (or folded) to a few slots per body, and which
// side scans each pair of occupied levels.
#include <algorithm>
#include <array>
#include <cmath>

#include "broadphase/sorted_grid.hpp"
#include "broadphase/sorted_grid_parts.hpp"
#include "broadphase/sorted_grid_policy.hpp"

namespace collide {

using sorted_grid::cut;
using sorted_grid::for_each_part;
using sorted_grid::kCellsPerBody;
using sorted_grid::kMinCells;

namespace {

// The size estimate reads at most this many boxes, spread evenly over the ids.
constexpr std::size_t kSample = 4096;

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
    // The largest body is only known after a pass over all of them, so the levels are first
    // chosen from last frame's base cell, in the pass that finds it; they are chosen again
    // only where this frame's base differs (bodies changed size). Bodies keep their sizes from
    // frame to frame, so a frame reads the boxes once here, not twice.
    const float largest = assign_levels(boxes);
    float base = cell_scale() * std::min(2.0f * median, largest);
    if (!(base > 0.0f) || !std::isfinite(base)) base = 1.0f;
    if (base != base_cell_) {
        base_cell_ = base;
        assign_levels(boxes);
    }
}

template <int D>
float SortedGrid<D>::assign_levels(std::span<const Aabb<D>> boxes) {
    const std::size_t n = boxes.size();
    levels_.assign(kMaxLevels, Level{});
    for (int k = 0; k < kMaxLevels; ++k)
        levels_[k].cell = base_cell_ * std::pow(kLevelRatio, static_cast<float>(k));
    level_of_.resize(n);
    // Per part of the bodies: each level's bodies and bounds of lower corners, the top
    // level's cell and the largest side, merged after the pass (a part's share of 16 levels
    // is small beside its bodies).
    struct Tally {
        std::array<std::uint32_t, kMaxLevels> bodies{};
        std::array<Aabb<D>, kMaxLevels> lows;
        float top_cell = 0.0f;
        float largest = 0.0f;
    };
    std::array<Tally, kMaxParts> tallies;
    std::array<float, kMaxLevels> cells;
    for (int k = 0; k < kMaxLevels; ++k) cells[k] = levels_[k].cell;
    for_each_part(parts_, [&](std::size_t p) {
        // Tallied in locals, level 0's (most bodies') apart: the byte stores to level_of_ may
        // alias anything, so tallies behind a reference would each be a load and a store, in
        // a chain from one body to the next (the level choice at 2D uniform 1M: 4.1 -> 2.2 ms).
        Tally t;
        t.lows.fill(Aabb<D>::empty());
        std::uint32_t bodies0 = 0;
        Aabb<D> lows0 = Aabb<D>::empty();
        float largest = 0.0f;
        for (std::size_t i = cut(n, parts_, p), end = cut(n, parts_, p + 1); i < end; ++i) {
            const float e = boxes[i].largest_side();
            largest = std::max(largest, e);
            int k = 0;
            while (e > cells[k] && k + 1 < kMaxLevels) ++k;
            level_of_[i] = static_cast<std::uint8_t>(k);
            if (k == 0) {
                ++bodies0;
                lows0.grow({boxes[i].lo, boxes[i].lo});
                continue;
            }
            ++t.bodies[k];
            t.lows[k].grow({boxes[i].lo, boxes[i].lo});
            // The top level takes whatever is left, however large.
            if (k + 1 == kMaxLevels) t.top_cell = std::max(t.top_cell, e);
        }
        t.bodies[0] += bodies0;
        t.lows[0].grow(lows0);
        t.largest = largest;
        tallies[p] = t;
    });
    float largest = 0.0f;
    for (std::size_t p = 0; p < parts_; ++p) {
        for (int k = 0; k < kMaxLevels; ++k) {
            levels_[k].bodies += tallies[p].bodies[k];
            levels_[k].lows.grow(tallies[p].lows[k]);
        }
        Level& top = levels_[kMaxLevels - 1];
        top.cell = std::max(top.cell, tallies[p].top_cell);
        largest = std::max(largest, tallies[p].largest);
    }
    return largest;
}

template <int D>
void SortedGrid<D>::size_grids() {
    std::size_t total = 0;
    for (Level& level : levels_) {
        level.first_cell = total;
        level.cells = 0;
        level.folded = false;
        if (level.bodies == 0) continue;
        const double limit = std::max(kCellsPerBody * level.bodies, kMinCells);
        double slots = kMinCells;
        while (slots < limit) slots *= 2.0;
        double cell = level.cell;
        std::array<double, D> dims{};
        for (;;) {
            double cells = 1;
            for (int k = 0; k < D; ++k) {
                // A cell and a half of padding below (a lower corner never rounds into cell
                // 0) and at least one whole cell above, so the forward runs stay inside the
                // level and never wrap onto bodies.
                // A level whose corners are not finite (bodies with NaN or infinite sides)
                // is sized as a point, rather than doubling its cell forever.
                double span = double(level.lows.hi[k]) - double(level.lows.lo[k]);
                if (!std::isfinite(span)) span = 0.0;
                dims[k] = std::floor(span / cell + 1.5) + 3;  // + 1 more for rounding
                cells *= dims[k];
            }
            if (cells <= limit) {
                level.cells = static_cast<std::size_t>(cells);
                break;
            }
            // Folded, where coarser cells crowded last time: odd rows (and planes) make the index
            // modulo a power of two spread a line or plane of cells along any axis over all slots.
            // The farthest forward neighbour must stay under half the slots, so that two neighbour
            // offsets never meet modulo the slots and each pair is still found from one side only.
            double reach = 2;
            for (int k = 0; k + 1 < D; ++k) {
                dims[k] += std::fmod(dims[k], 2.0) == 0.0 ? 1.0 : 0.0;
                reach = reach * dims[k] + 1;
            }
            if (crowded_[&level - levels_.data()] && 2.0 * reach < slots && cells < 1e18) {
                level.cells = static_cast<std::size_t>(slots);
                level.folded = true;
                break;
            }
            cell *= 2.0;
        }
        for (int k = 0; k < D; ++k) level.dims[k] = static_cast<std::int64_t>(dims[k]);
        level.cell = static_cast<float>(cell);
        level.inv_cell = static_cast<float>(1.0 / cell);
        level.origin = level.lows.lo - Vec<D>(1.5f * level.cell);
        total += level.cells;
    }
    start_.resize(total + 1);
    for_each_part(parts_, [&](std::size_t p) {
        std::fill(start_.begin() + static_cast<std::ptrdiff_t>(cut(total + 1, parts_, p)),
                  start_.begin() + static_cast<std::ptrdiff_t>(cut(total + 1, parts_, p + 1)), 0);
    });
}

// Each pair of occupied levels is scanned from the side that visits fewer cell runs: a
// coarse body covers about (coarse / fine cell + 2)^(D - 1) rows of finer cells, a fine body
// at most 2^(D - 1) rows of coarse ones. Big bodies over much finer, crowded cells (a
// `centerline` line of tiny bodies under the free ones) are cheaper seen from below.
template <int D>
void SortedGrid<D>::choose_scans() {
    for (Level& level : levels_) level.scans = 0;
    for (int k = 1; k < kMaxLevels; ++k) {
        if (levels_[k].bodies == 0) continue;
        for (int j = 0; j < k; ++j) {
            if (levels_[j].bodies == 0) continue;
            // A folded level is read slot by slot (far cells alias into each one), so a
            // coarse body pays for every fine cell it covers there, not for every row.
            const double rows = levels_[k].cell / levels_[j].cell + 2.0;
            double down = levels_[k].bodies * (levels_[j].folded ? rows : 1.0);
            double up = levels_[j].bodies;
            for (int a = 1; a < D; ++a) {
                down *= rows;
                up *= 2.0;
            }
            if (up < down) {
                levels_[j].scans |= 1u << k;
            } else {
                levels_[k].scans |= 1u << j;
            }
        }
    }
}

// The members defined here; the class itself is instantiated in sorted_grid.cpp.
template void SortedGrid<2>::choose_levels(std::span<const Aabb<2>>);
template float SortedGrid<2>::assign_levels(std::span<const Aabb<2>>);
template void SortedGrid<2>::size_grids();
template void SortedGrid<2>::choose_scans();
template void SortedGrid<3>::choose_levels(std::span<const Aabb<3>>);
template float SortedGrid<3>::assign_levels(std::span<const Aabb<3>>);
template void SortedGrid<3>::size_grids();
template void SortedGrid<3>::choose_scans();

}  // namespace collide
