// The sorted grid's invariants (validate()), checked after every update where assertions are
// on, and by the tests.
#include <bit>
#include <cmath>
#include <vector>

#include "broadphase/sorted_grid_cells.hpp"
#include "broadphase/sorted_grid_policy.hpp"

namespace collide {

using sorted_grid::kCellsPerBody;
using sorted_grid::kMinCells;

// The levels' layout (consecutive slices of the cell numbering; a folded level's odd rows
// and reach under half its slots), the cell table (a partition of the entries, each in the
// cell of its lower corner at the level its size picks, inside the padding), each body
// once, the bodies per level, and each pair of occupied levels scanned from one side only.
template <int D>
void SortedGrid<D>::validate() const {
    const InvariantFail fail("sorted-grid");
    const std::size_t n = ids_.size();
    if (levels_.empty()) {  // no update yet
        if (n != 0) fail(str(n) + " entries but no levels");
        return;
    }
    if (levels_.size() != kMaxLevels) fail(str(levels_.size()) + " levels, not " + str(kMaxLevels));
    if (level_of_.size() != n || static_.size() != n)
        fail(str(n) + " entries but " + str(level_of_.size()) + " levels of bodies and " +
             str(static_.size()) + " static flags");
    for (int a = 0; a < D; ++a) {
        if (lo_[a].size() != n + kPad || hi_[a].size() != n + kPad)
            fail("axis " + str(a) + "'s bounds hold " + str(lo_[a].size()) + " and " +
                 str(hi_[a].size()) + " floats for " + str(n) + " entries (+" + str(kPad) + ")");
    }
    std::size_t total = 0;
    for (int k = 0; k < kMaxLevels; ++k) {
        const Level& l = levels_[k];
        const auto name = [&] { return "level " + str(k); };
        if (l.first_cell != total)
            fail(name() + " starts at cell " + str(l.first_cell) + ", not " + str(total));
        if (l.bodies == 0) {
            if (l.cells != 0 || l.scans != 0)
                fail(name() + " has no bodies but " + str(l.cells) + " cells, scans " +
                     str(l.scans));
            continue;
        }
        if (!(l.cell > 0.0f)) fail(name() + " has cell side " + str(l.cell));
        // Memory stays linear in n: a few slots per body (a fold rounds up to a power of 2).
        const double limit = std::max(kCellsPerBody * l.bodies, kMinCells);
        if (double(l.cells) >= 2.0 * limit)
            fail(name() + " has " + str(l.cells) + " cells for " + str(l.bodies) + " bodies");
        if (l.folded) {
            // Odd rows spread a line over all slots; the farthest forward neighbour under
            // half the slots keeps two neighbour offsets from meeting modulo the slots.
            if (!std::has_single_bit(l.cells))
                fail(name() + " is folded into " + str(l.cells) + " slots, not a power of 2");
            double reach = 2;
            for (int a = 0; a + 1 < D; ++a) {
                if (l.dims[a] % 2 == 0)
                    fail(name() + " is folded with an even length " + str(l.dims[a]) + " on axis " +
                         str(a));
                reach = reach * double(l.dims[a]) + 1;
            }
            if (!(2.0 * reach < double(l.cells)))
                fail(name() + " is folded into " + str(l.cells) + " slots, but its forward " +
                     "neighbours reach " + str(reach));
        } else {
            double cells = 1;
            for (int a = 0; a < D; ++a) cells *= double(l.dims[a]);
            if (cells != double(l.cells))
                fail(name() + " has " + str(l.cells) + " cells but its dims make " + str(cells));
        }
        total += l.cells;
    }
    if (start_.size() != total + 1)
        fail("the cell table has " + str(start_.size()) + " ends for " + str(total) + " cells");
    if (start_[0] != 0 || start_[total] != n)
        fail("the cell table runs from " + str(start_[0]) + " to " + str(start_[total]) +
             ", not over the " + str(n) + " entries");
    // The level each body's size picks: the first whose nominal side (before size_grids()
    // coarsens it) holds its box, as choose_levels() computes it.
    std::array<float, kMaxLevels> nominal;
    for (int k = 0; k < kMaxLevels; ++k)
        nominal[k] = base_cell_ * std::pow(kLevelRatio, static_cast<float>(k));
    std::array<std::uint32_t, kMaxLevels> bodies{};
    std::vector<std::uint8_t> seen(n, 0);
    std::size_t occupied = 0;
    int k = 0;  // the level of cell c
    for (std::size_t c = 0; c < total; ++c) {
        if (start_[c] > start_[c + 1] || start_[c + 1] > n)
            fail("cell " + str(c) + " runs from entry " + str(start_[c]) + " to " +
                 str(start_[c + 1]) + " of " + str(n));
        while (c >= levels_[k].first_cell + levels_[k].cells) ++k;
        const Level& l = levels_[k];
        occupied += start_[c] < start_[c + 1];
        for (std::size_t e = start_[c]; e < start_[c + 1]; ++e) {
            const BodyId id = ids_[e];
            const auto entry = [&] { return "entry " + str(e) + " (body " + str(id) + ")"; };
            if (id >= n || seen[id]) fail(entry() + " is out of range or a second one");
            seen[id] = 1;
            const Aabb<D> box = entry_box(e);
            const float side = box.largest_side();
            int want = 0;
            while (side > nominal[want] && want + 1 < kMaxLevels) ++want;
            if (level_of_[id] != k || want != k)
                fail(entry() + " is in level " + str(k) + " and marked level " +
                     str(int(level_of_[id])) + ", but its size " + str(side) + " gives level " +
                     str(want));
            // The pairs rely on it: a box no larger than its cell.
            if (side > l.cell)
                fail(entry() + " has size " + str(side) + " beyond its level's cell " +
                     str(l.cell));
            ++bodies[k];
            if (!l.lows.contains(box.lo))
                fail(entry() + "'s lower corner is outside level " + str(k) + "'s bounds of them");
            const Cell at = cell_of(l, box.lo);
            const std::size_t key = cell_index(l, at);
            if (key != c)
                fail(entry() + " is in cell " + str(c) + " but its box gives cell " + str(key));
            // The padding: forward runs never wrap onto bodies. A NaN or infinite corner, or
            // any corner in a level whose cell an infinite side made infinite, is clamped to
            // an edge column (axis_cell): such bodies' pairs are not defined.
            const bool finite_cell = std::isfinite(l.cell);
            for (int a = 0; a < D; ++a) {
                if (finite_cell && std::isfinite(box.lo[a]) && (at[a] < 1 || at[a] > l.dims[a] - 2))
                    fail(entry() + " is in column " + str(at[a]) + " of 0.." + str(l.dims[a] - 1) +
                         " on axis " + str(a) + " of level " + str(k) + ", in the padding");
            }
        }
    }
    for (k = 0; k < kMaxLevels; ++k) {
        const Level& l = levels_[k];
        if (bodies[k] != l.bodies)
            fail("level " + str(k) + " counts " + str(l.bodies) + " bodies but holds " +
                 str(bodies[k]));
        // Each pair of occupied levels is scanned from exactly one side, or its pairs
        // would come twice or never.
        for (int j = 0; j < kMaxLevels; ++j) {
            const bool down = (l.scans >> j) & 1u;
            const bool up = (levels_[j].scans >> k) & 1u;
            const bool both = l.bodies > 0 && levels_[j].bodies > 0 && j != k;
            if (both ? j < k && down == up : down)
                fail("level " + str(k) + (down ? " scans" : " does not scan") + " level " + str(j) +
                     (up ? ", which scans it" : ", which does not scan it"));
        }
    }
    if (occupied != occupied_)
        fail(str(occupied) + " occupied cells but stats() says " + str(occupied_));
}

// The member defined here; the class itself is instantiated in sorted_grid.cpp.
template void SortedGrid<2>::validate() const;
template void SortedGrid<3>::validate() const;

}  // namespace collide
