#include "broadphase/zorder_sweep.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdio>
#include <type_traits>

#include <tbb/parallel_sort.h>

#include "broadphase/common/gather_prefetch.hpp"
#include "broadphase/common/nearly_sorted.hpp"
#include "broadphase/common/pair_test.hpp"

namespace collide {

template <int D, typename Key>
void KeySweep<D, Key>::build_and_search(std::span<const Aabb<D>> boxes,
                                        std::span<const std::uint8_t> is_static, PairList& out) {
    const std::size_t n = boxes.size();
    WatchRecorder<D>* const watch = this->watch_;
    if (watch) watch->phase("key");
    // The per-body passes (extent, keys, copies) run in blocks, and so does the sort from
    // last frame's order on more than one thread.
    const std::size_t blocks = block_count(n, kBodiesPerBlock);
    block_extent_.resize(blocks);  // each block writes its own
    for_each_block(n, kBodiesPerBlock, true,
                   [&](std::size_t begin, std::size_t end, std::size_t b) {
                       // Grown in a local: the boxes are floats too, so growing the member
                       // would load and store it for every box.
                       Aabb<D> extent = Aabb<D>::empty();
                       for (std::size_t i = begin; i < end; ++i) extent.grow(boxes[i]);
                       block_extent_[b] = extent;
                   });
    Aabb<D> extent = Aabb<D>::empty();
    for (const Aabb<D>& e : block_extent_) extent.grow(e);
    bool rebuilt = (n > 0 && frame_.refit(extent)) || !persistent();
    if (entries_.size() != n) {
        id_bits_ = std::max(1, int(std::bit_width(n)));
        id_mask_ = (std::uint64_t{1} << id_bits_) - 1;
        coord_shift_ = morton::kBits<D> - Key::template coord_bits<D>(64 - id_bits_);
        entries_.resize(n);
        for (std::size_t i = 0; i < n; ++i) entries_[i] = i;
        rebuilt = true;
    }
    // The keys and the copies below read the boxes in last frame's sorted order, prefetched
    // (gather_prefetch.hpp): 2D powerlaw 1M at speed 0.5, 44.3-44.9 -> 42.0-43.1 ms; nothing
    // at 0.05, where that order stays close to the bodies' own.
    block_cells_.resize(blocks);  // each block writes its own
    for_each_block(n, kBodiesPerBlock, true,
                   [&](std::size_t begin, std::size_t end, std::size_t b) {
                       // In locals, as in the copies pass below.
                       const morton::Quantizer<D> frame = frame_;
                       std::uint64_t* const entries = entries_.data();
                       const int id_bits = id_bits_, shift = coord_shift_;
                       const std::uint64_t id_mask = id_mask_;
                       morton::Coords<D> cells{};
                       for (std::size_t i = begin; i < end; ++i) {
                           if (i + kGatherAhead < end)
                               prefetch_read(&boxes[entries[i + kGatherAhead] & id_mask]);
                           const std::uint64_t id = entries[i] & id_mask;
                           const auto corners = frame.corners(boxes[id]);
                           const morton::Coords<D> lo = coarse(corners.lo, shift);
                           const morton::Coords<D> hi = coarse(corners.hi, shift);
                           for (int k = 0; k < D; ++k) cells[k] = std::max(cells[k], hi[k] - lo[k]);
                           entries[i] = Key::template key<D>(lo) << id_bits | id;
                       }
                       block_cells_[b] = cells;
                   });
    max_cells_ = {};
    for (const morton::Coords<D>& cells : block_cells_) {
        for (int k = 0; k < D; ++k) max_cells_[k] = std::max(max_cells_[k], cells[k]);
    }
    max_cells_code_ = morton::encode<D>(max_cells_);
    // Last frame's order is nearly right when bodies move little: sort_from_last_order
    // repairs it in place while that takes at most 2 moves per body, and past that sets aside
    // the few that jumped far (fast ones, or a drag). 2D powerlaw 1M takes 0.2-1M moves a
    // frame at speed 0.05 and 7-8M at 0.5, most of them for a few thousand far jumps; where
    // the repair gave up, the next frames skip it (SortHistory): 2D powerlaw at 0.5, one
    // thread, 1M 47.2 -> 45.1 ms and 100k 3.94 -> 3.72.
    // Ties go by id (the entry's low bits): a total order, the same however the sort is cut.
    const auto less = [](std::uint64_t a, std::uint64_t b) { return a < b; };
    if (watch) watch->phase("sort");
    if (rebuilt) {
        if (parallel_sort()) {
            tbb::parallel_sort(entries_.begin(), entries_.end(), less);
        } else {
            std::sort(entries_.begin(), entries_.end(), less);
        }
    } else {
        sort_from_last_order(entries_, 2, aside_, less, parallel_sort(), kSortBlock,
                             &sort_history_);
    }

    sorted_.resize(n);
    static_.resize(n);
    sampled_entries_.resize((n + kKeyStride - 1) / kKeyStride);
    static_assert(kBodiesPerBlock % kKeyStride == 0);
    for_each_block(n, kBodiesPerBlock, true, [&](std::size_t begin, std::size_t end, std::size_t) {
        for (std::size_t i = begin; i < end; i += kKeyStride)
            sampled_entries_[i / kKeyStride] = entries_[i];
        // Local copies of the pointers: the byte store to static_ may alias anything, so what
        // is read through `this` would be loaded again for every body.
        const std::uint64_t* const entries = entries_.data();
        const std::uint64_t id_mask = id_mask_;
        Aabb<D>* const sorted = sorted_.data();
        std::uint8_t* const fixed = static_.data();
        const std::uint8_t* const input_static = is_static.data();
        for (std::size_t i = begin; i < end; ++i) {
            if (i + kGatherAhead < end) {
                prefetch_read(&boxes[entries[i + kGatherAhead] & id_mask]);
                prefetch_read(&input_static[entries[i + kGatherAhead] & id_mask]);
            }
            const std::uint64_t id = entries[i] & id_mask;
            sorted[i] = boxes[id];
            fixed[i] = input_static[id];
        }
    });

    const BodyCosts* costs = costs_.if_on();
    if (watch) watch->phase("scan");
    // Two copies of the sweep: Watch mode's, and the timed one, which has no recorder calls.
    const auto sweep_rows = [&]<bool kWatch>(std::size_t begin, std::size_t end, PairList& pairs,
                                             std::uint64_t& tests) {
        PairBatch batch(pairs);
        for (std::size_t i = begin; i < end; ++i) {
            const Aabb<D>& a = sorted_[i];
            const bool a_static = static_[i];
            if constexpr (kWatch) {
                const auto test = [&](std::size_t j) {
                    test_pair(id_at(i), a, id_at(j), sorted_[j], a_static && static_[j], batch,
                              tests, costs, watch);
                };
                watch_scan(*watch, i);
                // Each BIGMIN jump: from the scan of i to the rank it lands on (none where
                // that ends the scan).
                scan(i, test, [&](std::size_t j, std::size_t next, bool bigmin) {
                    if (!bigmin) return;
                    const bool lands = next < n && key_at(next) <= hi_key_at(i);
                    watch->jump(id_at(i), lands ? id_at(next) : kNoBody,
                                static_cast<std::uint32_t>(next - j));
                });
            } else {
                const auto test = [&](std::size_t j) {
                    test_pair(id_at(i), a, id_at(j), sorted_[j], a_static && static_[j], batch,
                              tests, costs);
                };
                scan(i, test, [](std::size_t, std::size_t, bool) {});
            }
        }
    };
    if (watch) {
        chunks_.run(
            n, 4096,
            [&](std::size_t b, std::size_t e, PairList& p, std::uint64_t& t) {
                sweep_rows.template operator()<true>(b, e, p, t);
            },
            out);
    } else {
        chunks_.run(
            n, 4096,
            [&](std::size_t b, std::size_t e, PairList& p, std::uint64_t& t) {
                sweep_rows.template operator()<false>(b, e, p, t);
            },
            out);
    }
}

template <int D, typename Key>
void KeySweep<D, Key>::watch_scan(WatchRecorder<D>& watch, std::size_t rank) const {
    watch.cursor(id_at(rank), 0, sorted_[rank].lo[0]);
    // The region a skipping scan tests in, where it walks at all (as scan() decides).
    if (skips() && rank + 1 < entries_.size() && key_at(rank + 1) <= hi_key_at(rank))
        watch.visit(skip_region(rank));
}

template <int D, typename Key>
morton::Coords<D> KeySweep<D, Key>::lowered(morton::Coords<D> c) const {
    for (int k = 0; k < D; ++k) c[k] -= std::min(c[k], max_cells_[k]);
    return c;
}

template <int D, typename Key>
std::size_t KeySweep<D, Key>::seek(std::size_t first, std::uint64_t key) const {
    const std::size_t n = entries_.size();
    // The least entry with that key (id 0): the entries at or above it are those sought.
    const std::uint64_t bound_entry = key << id_bits_;
    const auto lower_bound = [&](std::size_t begin, std::size_t end) {
        return std::lower_bound(entries_.begin() + begin, entries_.begin() + end, bound_entry) -
               entries_.begin();
    };
    // Most jumps are short: gallop over the next entries, which share cache lines with
    // `first`. Invariant: every entry before `first` has a key below `key`.
    std::size_t bound = first;
    for (std::size_t step = 1; bound < n && entries_[bound] < bound_entry; step *= 2) {
        if (step > kKeyStride) break;
        first = bound + 1;
        bound += step;
    }
    if (bound >= n || entries_[bound] >= bound_entry) return lower_bound(first, std::min(bound, n));
    // A long jump: gallop, then search, over the sampled entries past `first` (a small
    // array, mostly in the caches), and finish in the stride below the first sample at or
    // above `key`.
    const std::size_t samples = sampled_entries_.size();
    // Samples from s_first on lie past `first`.
    std::size_t s_first = std::min(first / kKeyStride + 1, samples);
    std::size_t s_bound = s_first;
    for (std::size_t step = 1; s_bound < samples && sampled_entries_[s_bound] < bound_entry;
         step *= 2) {
        s_first = s_bound + 1;
        s_bound += step;
    }
    const std::size_t s =
        std::lower_bound(sampled_entries_.begin() + s_first,
                         sampled_entries_.begin() + std::min(s_bound, samples), bound_entry) -
        sampled_entries_.begin();
    // Sample s - 1 (when past `first`) is below `key`, sample s (when there is one) is not.
    const std::size_t begin = std::max(first, (s - 1) * kKeyStride);
    return lower_bound(begin, std::min(s * kKeyStride, n));
}

template <int D, typename Key>
std::uint64_t KeySweep<D, Key>::region_floor(const Aabb<D>& region) const {
    // A box reaching the region has its max corner at or above region.lo on every axis, so
    // its min corner is at least that minus the largest box size: exact in grid cells.
    return Key::template key<D>(lowered(coarse(frame_(region.lo))));
}

template <int D, typename Key>
void KeySweep<D, Key>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                              QueryTrace<D>* trace) const {
    out.clear();
    // Every box overlapping the region has its min corner's key in [floor, last].
    const std::uint64_t floor = region_floor(region);
    const std::uint64_t last = Key::template key<D>(coarse(frame_(region.hi)));
    const auto test = [&](std::size_t j) {
        if (sorted_[j].overlaps(region)) {
            out.push_back(id_at(j));
        } else if (trace) {
            trace->add(sorted_[j], TraceKind::kRejected);
        }
    };
    walk(seek(0, floor), floor, last, test, [](std::size_t, std::size_t, bool) {});
}

template <int D, typename Key>
BroadPhaseStats KeySweep<D, Key>::stats() const {
    BroadPhaseStats stats = sorted_sweep_stats(entries_, sorted_, static_, chunks_);
    stats.structure_bytes += aside_.capacity() * sizeof(std::uint64_t) +
                             sampled_entries_.capacity() * sizeof(std::uint64_t);
    return stats;
}

// Every body once, each entry's key that of its box copy's min corner in the current frame,
// the entries in key order, and the largest box size in grid cells
// (the skips' reach) current.
template <int D, typename Key>
void KeySweep<D, Key>::validate() const {
    const char* name = Key::kSkips ? "zorder-sweep" : "norm-sweep";
    const InvariantFail fail(name);
    const std::size_t n = entries_.size();
    if (sorted_.size() != n || static_.size() != n)
        fail(str(n) + " entries but " + str(sorted_.size()) + " boxes and " + str(static_.size()) +
             " static flags");
    if (sampled_entries_.size() != (n + kKeyStride - 1) / kKeyStride)
        fail(str(sampled_entries_.size()) + " sampled entries for " + str(n) + " entries");
    if (id_bits_ != std::max(1, int(std::bit_width(n))) ||
        id_mask_ != (std::uint64_t{1} << id_bits_) - 1)
        fail(str(id_bits_) + " id bits (mask " + hex(id_mask_) + ") for " + str(n) + " entries");
    std::vector<std::uint8_t> seen(n, 0);
    morton::Coords<D> max_cells{};
    for (std::size_t i = 0; i < n; ++i) {
        const BodyId id = id_at(i);
        const auto entry = [&] { return "entry " + str(i) + " (body " + str(id) + ")"; };
        if (id >= n || seen[id]) fail(entry() + " is out of range or a second one");
        seen[id] = 1;
        const morton::Coords<D> lo = coarse(frame_(sorted_[i].lo));
        const morton::Coords<D> hi = coarse(frame_(sorted_[i].hi));
        const std::uint64_t lo_key = Key::template key<D>(lo);
        if (key_at(i) != lo_key || (lo_key << id_bits_ >> id_bits_) != lo_key)
            fail(entry() + " has key " + hex(key_at(i)) + " but its box gives " + hex(lo_key) +
                 " (" + str(64 - id_bits_) + " bits)");
        if (i > 0 && entries_[i] < entries_[i - 1])
            fail(entry() + " is below entry " + str(i - 1) + " (" + hex(entries_[i]) + " < " +
                 hex(entries_[i - 1]) + ")");
        if (i % kKeyStride == 0 && sampled_entries_[i / kKeyStride] != entries_[i])
            fail("sample " + str(i / kKeyStride) + " is not entry " + str(i));
        for (int k = 0; k < D; ++k) max_cells[k] = std::max(max_cells[k], hi[k] - lo[k]);
    }
    for (int k = 0; k < D; ++k) {
        if (max_cells[k] != max_cells_[k])
            fail("the largest box spans " + str(max_cells[k]) + " cells on axis " + str(k) +
                 ", not " + str(max_cells_[k]));
    }
    if (max_cells_code_ != morton::encode<D>(max_cells_))
        fail("the largest box size's code is " + hex(max_cells_code_) + ", not " +
             hex(morton::encode<D>(max_cells_)));
}

template class KeySweep<2, MortonKey>;
template class KeySweep<3, MortonKey>;
template class KeySweep<2, NormKey>;
template class KeySweep<3, NormKey>;

}  // namespace collide
