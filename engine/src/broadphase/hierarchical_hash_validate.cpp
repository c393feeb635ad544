// The hierarchical hash's invariants (validate()), checked after every update where assertions
// are on, and by the tests.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <vector>

#include "broadphase/hierarchical_hash.hpp"

namespace collide {

// Per body: its signature is what its box gives now (level by size, cells), and it has
// exactly those entries, each once. The entries: sorted, each with its body's level, first
// bits, static flag and box. The levels' counts and table layout, the active list, and
// (where the index was built) every run found through its hash slot and filter bit.
template <int D>
void HierarchicalHash<D>::validate() const {
    const InvariantFail fail("hierarchical-hash");
    const std::size_t n = boxes_.size();
    check_per_body(fail, n, is_static_.size(), signatures_.size(), "signatures");
    if (n > 0 && (!framed_ || inv_side0_ != std::ldexp(1.0, -base_exponent_)))
        fail("the frame is unset or its inverse cell side does not match 2^" + str(base_exponent_));
    std::vector<std::uint64_t> cells(n, 0);  // entries each body still lacks
    for (BodyId i = 0; i < n; ++i) {
        const Signature& s = signatures_[i];
        const Signature now = signature(i);
        if (s != now)
            fail("body " + str(i) + " has entries at level " + str(s.level) + " from (" +
                 str(s.lo[0]) + ", " + str(s.lo[1]) + ", ...) but its box gives level " +
                 str(now.level) + " from (" + str(now.lo[0]) + ", " + str(now.lo[1]) + ", ...)");
        cells[i] = 1;
        for (int k = 0; k < D; ++k) cells[i] *= std::uint64_t{s.hi[k]} - s.lo[k] + 1;
    }
    if (entry_boxes_.size() != entries_.size())
        fail(str(entry_boxes_.size()) + " entry boxes for " + str(entries_.size()) + " entries");
    std::array<std::uint32_t, kMaxLevels> entries{}, runs{};
    std::vector<std::size_t> run_of(n, ~std::size_t{0});  // last run each body was met in
    std::size_t run = 0;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        const Entry& e = entries_[i];
        const auto entry = [&] {
            return "entry " + str(i) + " (body " + str(e.id) + ", level " + str(int(e.level)) +
                   ", key " + hex(e.key()) + ")";
        };
        if (i > 0 && e < entries_[i - 1]) fail(entry() + " is before entry " + str(i - 1));
        const bool first = i == 0 || !entries_[i - 1].same_cell(e);
        run += first && i > 0;
        if (e.id >= n || cells[e.id] == 0 || run_of[e.id] == run)
            fail(entry() + " is of no body, one past its cells, or twice in its cell");
        --cells[e.id];
        run_of[e.id] = run;
        const Signature& s = signatures_[e.id];
        if (e.level != s.level || e.level >= kMaxLevels)
            fail(entry() + " is not at its body's level " + str(s.level));
        if (down_key(e.key(), e.level) != e.start)
            fail(entry() + " starts at " + hex(e.start) + ", not at a level-" + str(int(e.level)) +
                 " cell corner");
        const Cell c = unpack(e.key());
        unsigned want = 0;
        for (int k = 0; k < D; ++k) {
            if (c[k] < s.lo[k] || c[k] > s.hi[k])
                fail(entry() + "'s cell is outside its body's cells on axis " + str(k));
            want |= unsigned(c[k] == s.lo[k]) << k;
        }
        if (e.first != want || e.is_static != is_static_[e.id])
            fail(entry() + " has first bits " + str(int(e.first)) + " and static " +
                 str(int(e.is_static)) + "; its body gives " + str(want) + " and " +
                 str(int(is_static_[e.id])));
        const Aabb<D>& box = entry_boxes_[i];
        if (!same_box(box, boxes_[e.id])) fail(entry() + "'s box is not its body's");
        ++entries[e.level];
        runs[e.level] += first;
    }
    for (BodyId i = 0; i < n; ++i) {
        if (cells[i] != 0) fail("body " + str(i) + " lacks " + str(cells[i]) + " of its entries");
    }
    // The levels and the table layout, as gather() makes them.
    std::uint32_t slot_at = 0;
    std::size_t filter_at = 0, cells_total = 0, active = 0;
    for (int m = 0; m < kMaxLevels; ++m) {
        const Level& l = levels_[m];
        const auto level = [&] { return "level " + str(m); };
        if (l.entries != entries[m] || l.cells != runs[m])
            fail(level() + " counts " + str(l.entries) + " entries in " + str(l.cells) +
                 " cells but holds " + str(entries[m]) + " in " + str(runs[m]));
        if (l.slot_begin != slot_at)
            fail(level() + "'s slots begin at " + str(l.slot_begin) + ", not " + str(slot_at));
        if (coarser_[m] != int(active + (active < active_.size() && active_[active] == m)))
            fail(level() + "'s first coarser active level is number " + str(coarser_[m]));
        if (l.cells == 0) continue;
        if (active >= active_.size() || active_[active] != m)
            fail(level() + " has cells but is not next in the active list");
        ++active;
        const int log2_slots = std::max(3, static_cast<int>(std::bit_width(2 * l.cells - 1)));
        if (l.log2_slots != log2_slots || l.filter_begin != filter_at ||
            l.log2_filter != std::max(7, log2_slots + 3))
            fail(level() + " has 2^" + str(l.log2_slots) + " slots and 2^" + str(l.log2_filter) +
                 " filter bits from bit " + str(l.filter_begin) + " for " + str(l.cells) +
                 " cells");
        slot_at += std::uint32_t{1} << l.log2_slots;
        filter_at += std::size_t{1} << l.log2_filter;
        cells_total += l.cells;
    }
    if (active != active_.size() || cells_total != cells_ || slot_at != slot_count_ ||
        filter_at != filter_bits_)
        fail(str(active_.size()) + " active levels, " + str(cells_) + " cells, " +
             str(slot_count_) + " slots and " + str(filter_bits_) + " filter bits, but the " +
             "levels give " + str(active) + ", " + str(cells_total) + ", " + str(slot_at) +
             " and " + str(filter_at));
    if (!indexed_) return;  // built on demand; not this update's, or not yet
    if (slots_.size() != slot_count_) fail(str(slots_.size()) + " slots, not " + str(slot_count_));
    const bool filter = !occupied_.empty();
    if (filter && occupied_.size() != filter_bits_ / 64)
        fail(str(occupied_.size()) + " filter words, not " + str(filter_bits_ / 64));
    std::array<std::uint32_t, kMaxLevels> used{};
    for (int m : active_) {
        const Level& l = levels_[m];
        for (std::uint32_t s = 0; s < (std::uint32_t{1} << l.log2_slots); ++s) {
            const Slot& slot = slots_[l.slot_begin + s];
            if (slot.begin == kNoSlot) continue;
            ++used[m];
            const std::uint32_t b = slot.begin;
            if (b >= entries_.size() || entries_[b].level != m ||
                (b > 0 && entries_[b - 1].same_cell(entries_[b])) ||
                slot.tag != tag_of(entries_[b].key()))
                fail("level " + str(m) + "'s slot " + str(s) + " (entry " + str(b) + ", tag " +
                     str(slot.tag) + ") is not the first entry of a level-" + str(m) +
                     " cell with that tag");
        }
        if (used[m] != l.cells)
            fail("level " + str(m) + " has " + str(used[m]) + " slots in use for " + str(l.cells) +
                 " cells");
    }
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        const Entry& e = entries_[i];
        if (i > 0 && entries_[i - 1].same_cell(e)) continue;
        if (find(e.key(), e.level).first != i || (filter && !may_hold(e.key(), e.level)))
            fail("the cell of entry " + str(i) + " (level " + str(int(e.level)) + ", key " +
                 hex(e.key()) + ") is not found through its table" + (filter ? " or filter" : ""));
    }
}

// The member defined here; the class itself is instantiated in hierarchical_hash.cpp.
template void HierarchicalHash<2>::validate() const;
template void HierarchicalHash<3>::validate() const;

}  // namespace collide
