#include "broadphase/common/sorted_patch.hpp"
#include "broadphase/hierarchical_hash.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdio>

#include <tbb/parallel_sort.h>

#include "collide/morton.hpp"

namespace collide {

namespace {

// The smallest e with 2^e >= x, for x > 0 (denormals round up, which only coarsens).
int ceil_exponent(float x) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
    const int e = static_cast<int>((bits >> 23) & 0xffu) - 127;
    return (bits & 0x7fffffu) != 0 ? e + 1 : e;
}

// The key bits of axis 0 (the others are this shifted by the axis).
template <int D>
constexpr std::uint64_t kAxisBits = D == 2 ? 0x5555555555555555ull : 0x1249249249249249ull;

}  // namespace

// Level 0's cell, clamped and monotone in p (boxes far outside share the edge cells, still
// exact); a level-L cell is the level-0 cell shifted by L, as sides double from one origin.
template <int D>
typename HierarchicalHash<D>::Cell HierarchicalHash<D>::cell_of(const Vec<D>& p,
                                                                int level) const {
    Cell c;
    for (int k = 0; k < D; ++k) {
        const double t = std::floor((double(p[k]) - double(origin_[k])) * inv_side0_);
        // NaN (a body the physics lost) takes cell 0: casting it would be undefined.
        c[k] = (!(t > 0.0)               ? 0
                : t >= double(kMaxCoord) ? kMaxCoord
                                         : static_cast<std::uint64_t>(t)) >>
               level;
    }
    return c;
}

template <int D>
std::uint64_t HierarchicalHash<D>::pack(const Cell& c) {
    morton::Coords<D> m;
    for (int k = 0; k < D; ++k) m[k] = static_cast<std::uint32_t>(c[k]);
    return morton::encode<D>(m);
}

template <int D>
typename HierarchicalHash<D>::Cell HierarchicalHash<D>::unpack(std::uint64_t key) const {
    const morton::Coords<D> m = morton::decode<D>(key);
    Cell c;
    for (int k = 0; k < D; ++k) c[k] = m[k];
    return c;
}

template <int D>
Aabb<D> HierarchicalHash<D>::cell_box(const Cell& c, int level) const {
    const double side = std::ldexp(1.0, base_exponent_ + level);
    Aabb<D> box;
    for (int k = 0; k < D; ++k) {
        box.lo[k] = static_cast<float>(double(origin_[k]) + double(c[k]) * side);
        box.hi[k] = static_cast<float>(double(origin_[k]) + double(c[k] + 1) * side);
    }
    return box;
}

// Along an axis a body's cells are a contiguous range, so the first of them inside a parent
// is its lowest cell or one whose coordinate's low `up` bits are 0; the latter are key bits.
template <int D>
std::uint64_t HierarchicalHash<D>::not_first_mask(unsigned first, int up) {
    static constexpr auto kBits = [] {
        std::array<std::uint64_t, 1 << D> bits{};
        for (unsigned f = 0; f < bits.size(); ++f) {
            for (int k = 0; k < D; ++k) {
                if (!((f >> k) & 1u)) bits[f] |= kAxisBits<D> << k;
            }
        }
        return bits;
    }();
    return kBits[first] & morton::level_mask<D>(up);
}

// The pair is reported from the one cell at `level` that holds the lower corner of the two
// boxes' overlap: both boxes touch it, and it is a single cell.
template <int D>
bool HierarchicalHash<D>::owns(std::uint64_t key, int level, const Aabb<D>& a,
                               const Aabb<D>& b) const {
    return pack(cell_of(glm::max(a.lo, b.lo), level)) == key;
}

// Level 0 fits the smallest body, coarsened so that the frame spans at most 2^kBits cells of
// level 0 per axis (keys stay exact) and the largest body fits level kMaxLevels - 1. The frame
// has a margin around the boxes and is kept while they stay inside it and level 0 is not too
// coarse for the smallest body, so that moving bodies keep their keys.
template <int D>
bool HierarchicalHash<D>::refit_frame() {
    Aabb<D> world = Aabb<D>::empty();
    float smallest = std::numeric_limits<float>::infinity();
    float largest = 0.0f;
    for (const Aabb<D>& b : boxes_) {
        world.grow(b);
        const float e = b.largest_side();
        if (e > 0.0f) smallest = std::min(smallest, e);
        largest = std::max(largest, e);
    }
    if (boxes_.empty()) world = {Vec<D>(0.0f), Vec<D>(0.0f)};
    const float span = world.largest_side();
    const float margin = 0.25f * span;
    int base = largest > 0.0f ? ceil_exponent(smallest) : 0;
    if (span > 0.0f) base = std::max(base, ceil_exponent(span + 2.0f * margin) - kBits);
    if (largest > 0.0f) base = std::max(base, ceil_exponent(largest) - (kMaxLevels - 1));
    if (framed_ && base >= base_exponent_ && base <= base_exponent_ + 4) {
        const double reach = std::ldexp(1.0, base_exponent_ + kBits);
        bool inside = true;
        for (int k = 0; k < D; ++k) {
            inside = inside && world.lo[k] >= origin_[k] &&
                     double(world.hi[k]) - double(origin_[k]) < reach;
        }
        if (inside) return false;
    }
    framed_ = true;
    origin_ = world.lo - Vec<D>(margin);
    base_exponent_ = base;
    inv_side0_ = std::ldexp(1.0, -base);
    return true;
}

template <int D>
typename HierarchicalHash<D>::Signature HierarchicalHash<D>::signature(BodyId id) const {
    const Aabb<D>& b = boxes_[id];
    const float e = b.largest_side();
    const int level =
        e > 0.0f ? std::clamp(ceil_exponent(e) - base_exponent_, 0, kMaxLevels - 1) : 0;
    const Cell lo = cell_of(b.lo, level);
    const Cell hi = cell_of(b.hi, level);
    Signature s;
    for (int k = 0; k < D; ++k) {
        s.lo[k] = static_cast<std::uint32_t>(lo[k]);
        s.hi[k] = static_cast<std::uint32_t>(hi[k]);
    }
    s.level = level;
    return s;
}

template <int D>
void HierarchicalHash<D>::append_entries(BodyId id, std::vector<Entry>& to) const {
    const Signature& s = signatures_[id];
    Cell lo, hi;
    for (int k = 0; k < D; ++k) {
        lo[k] = s.lo[k];
        hi[k] = s.hi[k];
    }
    WatchRecorder<D>* watch = this->watch_;
    for_each_in(lo, hi, [&](const Cell& c) {
        unsigned first = 0;
        for (int k = 0; k < D; ++k) first |= unsigned(c[k] == lo[k]) << k;
        to.push_back({down_key(pack(c), s.level), id, static_cast<std::uint8_t>(s.level),
                      static_cast<std::uint8_t>(first), is_static_[id]});
        if (watch) watch->place(id, cell_box(c, s.level));
    });
}

template <int D>
void HierarchicalHash<D>::rebuild() {
    entries_.clear();
    for (BodyId i = 0; i < boxes_.size(); ++i) append_entries(i, entries_);
    if (parallel()) {
        tbb::parallel_sort(entries_.begin(), entries_.end());
    } else {
        std::sort(entries_.begin(), entries_.end());
    }
}

// Only the bodies whose cells changed are re-made: their entries are sorted alone and merged
// with the kept ones, one sequential pass plus O(k log k) for k changed bodies.
template <int D>
void HierarchicalHash<D>::refresh() {
    patch_dirty(entries_, fresh_, dirty_, merged_,
                [&](BodyId i, std::vector<Entry>& to) { append_entries(i, to); });
}

// Groups of 8 consecutive keys (a 64-byte line of slots) go to a hashed line of the table,
// in key order inside it: lookups in key order reuse lines, while the groups themselves are
// spread at random. (Mapping whole tiles of the table's size in order made clusters that
// grew into long probe chains.)
template <int D>
std::uint64_t HierarchicalHash<D>::slot_of(std::uint64_t key, int log2_slots) {
    const std::uint64_t line = ((key >> 3) * 0x9E3779B97F4A7C15ull) >> (64 - log2_slots);
    return (line & ~std::uint64_t{7}) | (key & 7);
}

template <int D>
std::uint32_t HierarchicalHash<D>::run_end(std::uint32_t begin) const {
    const Entry& e = entries_[begin];
    std::uint32_t j = begin + 1;
    while (j < entries_.size() && entries_[j].same_cell(e)) ++j;
    return j;
}

template <int D>
std::pair<std::uint32_t, std::uint32_t> HierarchicalHash<D>::find(std::uint64_t key,
                                                                  int level) const {
    const Level& l = levels_[level];
    if (l.cells == 0) return {0, 0};
    const std::uint64_t mask = (std::uint64_t{1} << l.log2_slots) - 1;
    const Slot* table = slots_.data() + l.slot_begin;
    const std::uint64_t start = down_key(key, level);
    const std::uint32_t tag = tag_of(key);
    for (std::uint64_t s = slot_of(key, l.log2_slots);; s = (s + 1) & mask) {
        const Slot slot = table[s];
        if (slot.begin == kNoSlot) return {0, 0};
        if (slot.tag == tag && entries_[slot.begin].start == start &&
            entries_[slot.begin].level == level) {
            return {slot.begin, run_end(slot.begin)};
        }
    }
}

// Each entry's box in entry order and the cells per level, then per level a table of twice
// its cells filled with the runs' first entries, in one pass over the entries.
template <int D>
void HierarchicalHash<D>::gather() {
    const std::size_t count = entries_.size();
    entry_boxes_.resize(count);
    for (Level& l : levels_) l.entries = l.cells = 0;
    // The boxes are read at random: fetched some entries ahead, the misses overlap instead
    // of stalling one by one (the same for the slots below).
    constexpr std::size_t kAhead = 16;
    for (std::size_t i = 0; i < count; ++i) {
        const Entry& e = entries_[i];
        if (i + kAhead < count) __builtin_prefetch(&boxes_[entries_[i + kAhead].id]);
        entry_boxes_[i] = boxes_[e.id];
        Level& l = levels_[e.level];
        ++l.entries;
        l.cells += i == 0 || !entries_[i - 1].same_cell(e);
    }
    active_.clear();
    std::uint32_t slot_at = 0;
    std::size_t filter_at = 0;
    cells_ = 0;
    for (int m = 0; m < kMaxLevels; ++m) {
        Level& l = levels_[m];
        l.slot_begin = slot_at;
        if (l.cells == 0) continue;
        active_.push_back(m);
        l.log2_slots = std::max(3, static_cast<int>(std::bit_width(2 * l.cells - 1)));
        slot_at += std::uint32_t{1} << l.log2_slots;
        l.filter_begin = filter_at;
        l.log2_filter = std::max(7, l.log2_slots + 3);  // at least two words
        filter_at += std::size_t{1} << l.log2_filter;
        cells_ += l.cells;
    }
    int above = static_cast<int>(active_.size());
    for (int m = kMaxLevels - 1; m >= 0; --m) {
        coarser_[m] = above;
        if (above > 0 && active_[above - 1] == m) --above;
    }
    slot_count_ = slot_at;
    filter_bits_ = filter_at;
    indexed_ = false;
}

template <int D>
void HierarchicalHash<D>::ensure_index() const {
    if (indexed_) return;
    indexed_ = true;
    const std::size_t count = entries_.size();
    constexpr std::size_t kAhead = 16;
    slots_.assign(slot_count_, Slot{0, kNoSlot});
    // Only the lookups of the hash-probe sweep read the filter.
    const bool filter = filtered() && !walk();
    occupied_.assign(filter ? filter_bits_ / 64 : 0, 0);
    for (std::size_t i = 0; i < count; ++i) {
        const Entry& e = entries_[i];
        if (i + kAhead < count) {
            const Entry& next = entries_[i + kAhead];
            const Level& l = levels_[next.level];
            __builtin_prefetch(&slots_[l.slot_begin + slot_of(next.key(), l.log2_slots)], 1);
        }
        if (i > 0 && entries_[i - 1].same_cell(e)) continue;
        const Level& l = levels_[e.level];
        const std::uint64_t mask = (std::uint64_t{1} << l.log2_slots) - 1;
        Slot* table = slots_.data() + l.slot_begin;
        const std::uint64_t key = e.key();
        std::uint64_t s = slot_of(key, l.log2_slots);
        while (table[s].begin != kNoSlot) s = (s + 1) & mask;
        table[s] = {tag_of(key), static_cast<std::uint32_t>(i)};
        if (filter) occupied_[filter_word(key, e.level)] |= std::uint64_t{1} << (key & 63);
    }
}

// Rows are the entries in Z order of their cells' lower corners, a cell before the finer
// cells inside it. Each row tests the later entries of its own cell, then the cell containing
// it at every coarser non-empty level: kept open from the rows before (Walk), or looked up
// through that level's hash. Along the rows the parent keys at any one level never decrease,
// so the last lookup is reused while the parent does not change, and the run it finds was
// visited a moment ago (it precedes the cells inside it).
template <int D>
template <bool Walk, bool Watched>
void HierarchicalHash<D>::sweep_rows(std::size_t i0, std::size_t i1, PairList& out,
                                     std::uint64_t& tests_out) const {
    WatchRecorder<D>* const watch = Watched ? this->watch_ : nullptr;
    std::uint64_t tests = 0;  // in a register, not through the reference
    const Entry* entries = entries_.data();
    const Aabb<D>* boxes = entry_boxes_.data();
    const std::size_t count = entries_.size();
    std::array<std::uint64_t, kMaxLevels> last;  // per coarser level, last parent looked up
    std::array<std::pair<std::uint32_t, std::uint32_t>, kMaxLevels> found;
    last.fill(kNoKey);
    const int levels = static_cast<int>(active_.size());
    const bool filter = filtered();
    // Walk: the cells whose runs the rows have entered and not yet left, by level (bit m of
    // `open`); all contain the current row's lower corner, and are the only coarser cells
    // holding it, as a cell precedes the cells inside it. The chunk's first row finds the
    // ones it starts inside by binary search.
    struct Open {
        std::uint64_t end_start;  // first start past the cell
        std::uint32_t begin, end;
    };
    std::array<Open, kMaxLevels> open_cells;
    std::uint64_t open = 0;
    const auto end_start = [](std::uint64_t start, int level) {
        const std::uint64_t past = start + down_key(1, level);
        return D * level >= 64 || past < start ? kNoKey : past;
    };
    if constexpr (Walk) {
        if (i0 < i1) {
            const std::uint64_t start = entries[i0].start;
            for (int m : active_) {
                Entry cell{};
                cell.start = down_key(up_key(start, m), m);
                cell.level = static_cast<std::uint8_t>(m);
                const auto begin = static_cast<std::uint32_t>(
                    std::lower_bound(entries, entries + i0, cell) - entries);
                if (begin < i0 && entries[begin].same_cell(cell)) {
                    open_cells[m] = {end_start(cell.start, m), begin, run_end(begin)};
                    open |= std::uint64_t{1} << m;
                }
            }
        }
    }
    for (std::size_t i = i0; i < i1; ++i) {
        const Entry& a = entries[i];
        const Aabb<D>& box = boxes[i];
        const std::uint64_t key = a.key();
        if constexpr (Watched) {
            watch->cursor(a.id, 0, box.lo[0]);
            watch->visit(cell_box(unpack(key), a.level));
        }
        std::size_t j = i + 1;
        for (; j < count && entries[j].same_cell(a); ++j) {
            if (a.is_static & entries[j].is_static) continue;
            ++tests;
            costs_.add_pair(a.id, entries[j].id);
            if constexpr (Watched) watch->test(a.id, entries[j].id, box.overlaps(boxes[j]));
            if (!box.overlaps(boxes[j]) || !owns(key, a.level, box, boxes[j])) continue;
            if constexpr (Watched) watch->emit(a.id, entries[j].id);
            out.push_back(make_pair(a.id, entries[j].id));
        }
        if constexpr (Walk) {
            if (i == 0 || !entries[i - 1].same_cell(a)) {
                open_cells[a.level] = {end_start(a.start, a.level), static_cast<std::uint32_t>(i),
                                       static_cast<std::uint32_t>(j)};
                open |= std::uint64_t{1} << a.level;
            }
            for (std::uint64_t above = open & ~((std::uint64_t{2} << a.level) - 1); above != 0;
                 above &= above - 1) {
                const int m = std::countr_zero(above);
                const Open& c = open_cells[m];
                if (c.end_start <= a.start) {  // the rows have left it
                    open &= ~(std::uint64_t{1} << m);
                    continue;
                }
                const int up = m - a.level;
                if ((key & not_first_mask(a.first, up)) != 0) continue;
                const std::uint64_t parent = up_key(a.start, m);
                if constexpr (Watched) watch->enter(cell_box(unpack(parent), m));
                for (std::uint32_t k = c.begin; k < c.end; ++k) {
                    if (a.is_static & entries[k].is_static) continue;
                    ++tests;
                    costs_.add_pair(a.id, entries[k].id);
                    if constexpr (Watched) watch->test(a.id, entries[k].id, box.overlaps(boxes[k]));
                    if (!box.overlaps(boxes[k]) || !owns(parent, m, box, boxes[k])) continue;
                    if constexpr (Watched) watch->emit(a.id, entries[k].id);
                    out.push_back(make_pair(a.id, entries[k].id));
                }
            }
            continue;
        }
        for (int p = coarser_[a.level]; p < levels; ++p) {
            const int m = active_[p];
            const int up = m - a.level;
            // Another cell of the body, inside the same parent, looks it up.
            if ((key & not_first_mask(a.first, up)) != 0) continue;
            const std::uint64_t parent = up_key(a.start, m);
            if (last[m] != parent) {
                last[m] = parent;
                found[m] = !filter || may_hold(parent, m) ? find(parent, m)
                                                          : std::pair<std::uint32_t, std::uint32_t>{};
            }
            const auto [begin, end] = found[m];
            if constexpr (Watched) {
                const Aabb<D> cell = cell_box(unpack(parent), m);
                begin < end ? watch->enter(cell) : watch->prune(cell);
            }
            for (std::uint32_t j = begin; j < end; ++j) {
                if (a.is_static & entries[j].is_static) continue;
                ++tests;
                costs_.add_pair(a.id, entries[j].id);
                if constexpr (Watched) watch->test(a.id, entries[j].id, box.overlaps(boxes[j]));
                if (!box.overlaps(boxes[j]) || !owns(parent, m, box, boxes[j])) continue;
                if constexpr (Watched) watch->emit(a.id, entries[j].id);
                out.push_back(make_pair(a.id, entries[j].id));
            }
        }
    }
    tests_out += tests;
}

template <int D>
void HierarchicalHash<D>::build_and_search(std::span<const Aabb<D>> boxes,
                                           std::span<const std::uint8_t> is_static, PairList& out) {
    const std::size_t n = boxes.size();
    const bool changed = settings_changed(params_, built_with_, is_static, is_static_);
    boxes_.assign(boxes.begin(), boxes.end());
    is_static_.assign(is_static.begin(), is_static.end());
    const bool moved = refit_frame();
    const bool full = moved || !persistent() || n != signatures_.size() || changed;
    WatchRecorder<D>* watch = this->watch_;
    if (watch) watch->phase("cells");
    signatures_.resize(n);
    dirty_.assign(n, 0);
    reinserted_ = 0;
    for (BodyId i = 0; i < n; ++i) {
        const Signature s = signature(i);
        if (full || s != signatures_[i]) {
            signatures_[i] = s;
            dirty_[i] = 1;
            ++reinserted_;
        }
    }
    if (full) {
        rebuild();
    } else if (reinserted_ > 0) {
        refresh();
    }
    gather();
    if (!walk()) ensure_index();
    const bool walking = walk();
    // The sweep recorded is an instantiation of its own, so the unwatched one has no hook.
    if (watch) {
        watch->phase("pairs");
        const auto rows = [&](std::size_t b, std::size_t e, PairList& p, std::uint64_t& t) {
            walking ? sweep_rows<true, true>(b, e, p, t) : sweep_rows<false, true>(b, e, p, t);
        };
        sweep_.run(parallel(), entries_.size(), 16384, rows, out);
        return;
    }
    const auto rows = [&](std::size_t b, std::size_t e, PairList& p, std::uint64_t& t) {
        walking ? sweep_rows<true, false>(b, e, p, t) : sweep_rows<false, false>(b, e, p, t);
    };
    sweep_.run(parallel(), entries_.size(), 16384, rows, out);
}

// Per level: the region's cells looked up in the table, or, when the region covers more
// cells than the level has, the level's entries scanned. Either way a body is taken only
// from its cell holding the lower corner of its overlap with the region.
template <int D>
void HierarchicalHash<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                                 QueryTrace<D>* trace) const {
    out.clear();
    ensure_index();
    const auto take = [&](std::uint32_t j) {
        const Entry& e = entries_[j];
        const Aabb<D>& box = entry_boxes_[j];
        if (box.overlaps(region) && owns(e.key(), e.level, box, region)) out.push_back(e.id);
    };
    for (int m : active_) {
        const Cell lo = cell_of(region.lo, m);
        const Cell hi = cell_of(region.hi, m);
        double cells = 1.0;
        for (int k = 0; k < D; ++k) cells *= double(hi[k] - lo[k] + 1);
        const Level& l = levels_[m];
        if (cells > double(l.cells)) {
            // More cells in the region than the level holds: walk the level's own table
            // instead (its slots, about twice its cells), not every entry of every level.
            const Slot* table = slots_.data() + l.slot_begin;
            for (std::size_t s = 0; s < (std::size_t{1} << l.log2_slots); ++s) {
                if (table[s].begin == kNoSlot) continue;
                for (std::uint32_t j = table[s].begin, end = run_end(j); j < end; ++j) take(j);
            }
            continue;
        }
        // A traced query records the cells it looked up, on levels where they are few.
        const bool traced = trace && cells <= kMaxTracedCells;
        for_each_in(lo, hi, [&](const Cell& c) {
            const auto [begin, end] = find(pack(c), m);
            for (std::uint32_t j = begin; j < end; ++j) take(j);
            if (traced)
                trace->add(cell_box(c, m), begin < end ? TraceKind::kTaken : TraceKind::kPruned);
        });
    }
}

template <int D>
BroadPhaseStats HierarchicalHash<D>::stats() const {
    const std::size_t bytes =
        (boxes_.capacity() + entry_boxes_.capacity()) * sizeof(Aabb<D>) +
        is_static_.capacity() + dirty_.capacity() + signatures_.capacity() * sizeof(Signature) +
        (entries_.capacity() + fresh_.capacity() + merged_.capacity()) * sizeof(Entry) +
        slots_.capacity() * sizeof(Slot) + occupied_.capacity() * sizeof(std::uint64_t) + active_.capacity() * sizeof(int) + sweep_.bytes();
    return {.candidate_tests = sweep_.tests(),
            .structure_bytes = bytes,
            .nodes = cells_,
            .depth = static_cast<int>(active_.size()),
            .reinserted = reinserted_};
}

template class HierarchicalHash<2>;
template class HierarchicalHash<3>;

}  // namespace collide
