// Sorts of nearly sorted input, for the broad phases that keep last frame's order: an
// insertion sort that gives up after a budget of moves, a sort that sets aside the few
// elements that jumped far, and that one serial or in blocks on oneTBB's threads.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <tbb/parallel_for.h>

#include "broadphase/common/chunked_sweep.hpp"
#include "parallel/ordered_join.hpp"

namespace collide {

// Insertion sort that gives up after `budget` moves, so a frame where bodies jumped
// (a reset, a drag across the world) costs a full sort instead of O(n^2). Returns false
// when it gave up; every element is still present then. `v` is a vector or a span.
template <typename Range, typename Less>
bool insertion_sort_within(Range&& v, std::size_t budget, Less less) {
    std::size_t moves = 0;
    for (std::size_t i = 1; i < v.size(); ++i) {
        const auto item = v[i];
        std::size_t j = i;
        while (j > 0 && less(item, v[j - 1])) {
            v[j] = v[j - 1];
            --j;
            if (++moves > budget) {
                v[j] = item;
                return false;
            }
        }
        v[j] = item;
    }
    return true;
}

// How far sort_within_reach moves an element before it sets it aside. On 2D powerlaw 1M at
// speed 0.5 about 2,300 of the million go aside at 16 and 3,300 at 8, for the same time.
inline constexpr std::size_t kSortReach = 16;

// Sorts v when most elements are near their place and a few are far from it, in one pass
// that inserts each element into the sorted prefix kept so far, moving it at most `reach`
// places.
// - One that would need more is set aside with the prefix's last element: it jumped back,
//   or a run of the last ones jumped ahead together, and either way the run costs twice its
//   length, not every element after it.
// - The last element also goes aside once `reach` elements in a row have gone in below it:
//   it jumped ahead alone, and would otherwise slide one place per element to its own.
// The rest is compacted as it goes, and the set-aside ones are sorted and merged back in
// from the end. O(n * reach + k log k) for k set aside, where an insertion sort pays each
// far jump's whole distance; but once anything is set aside, every element after it moves
// twice. `v` is a vector or a span; `aside` is scratch.
template <typename Range, typename T, typename Less>
void sort_within_reach(Range&& v, std::size_t reach, std::vector<T>& aside, Less less) {
    aside.clear();
    const std::size_t n = v.size();
    std::size_t kept = 0;        // v[0, kept) is sorted
    std::size_t below_last = 0;  // insertions in a row below v[kept - 1]
    for (std::size_t i = 0; i < n; ++i) {
        const T item = v[i];
        while (kept > 0 && below_last >= reach && less(item, v[kept - 1])) {
            aside.push_back(v[--kept]);
            below_last = 0;
        }
        if (kept == 0 || !less(item, v[kept - 1])) {
            if (kept != i) v[kept] = item;
            ++kept;
            below_last = 0;
            continue;
        }
        const std::size_t lowest = kept > reach ? kept - reach : 0;
        std::size_t place = kept;  // v[place + 1, kept + 1) holds those above item, moved up
        do {
            v[place] = v[place - 1];
            --place;
        } while (place > lowest && less(item, v[place - 1]));
        if (place > 0 && less(item, v[place - 1])) {  // beyond reach: the moves undone
            for (std::size_t k = place; k < kept; ++k) v[k] = v[k + 1];
            aside.push_back(item);
            aside.push_back(v[--kept]);
            below_last = 0;
            continue;
        }
        v[place] = item;
        ++kept;
        ++below_last;
    }
    if (aside.empty()) return;
    std::sort(aside.begin(), aside.end(), less);
    // From the end, the place written next is never below a kept element not yet read.
    std::size_t k = kept, a = aside.size(), out = n;
    while (a > 0) {
        if (k > 0 && less(aside[a - 1], v[k - 1])) {
            v[--out] = v[--k];
        } else {
            v[--out] = aside[--a];
        }
    }
}

// Sorts v from last frame's order: an insertion sort in place while it stays within
// `moves_per_element` moves per element, and where it gives up, sort_within_reach.
template <typename Range, typename T, typename Less>
void sort_in_place_or_within_reach(Range&& v, std::size_t moves_per_element, std::vector<T>& aside,
                                   Less less) {
    if (!insertion_sort_within(v, moves_per_element * v.size() + 64, less)) {
        sort_within_reach(v, kSortReach, aside, less);
    }
}

// Merges in place, on oneTBB's threads, where consecutive sorted runs of a range overlap
// (run r is [starts[r], starts[r + 1]), none empty; starts.back() is the range's size), and
// returns true: the range is then sorted. Returns false, the range untouched, where an
// overlap reaches past the next run, which merging neighbours alone cannot mend.
template <typename It, typename Less>
bool merge_run_overlaps(It first, const std::vector<std::size_t>& starts, Less less) {
    if (starts.size() < 3) return true;  // one run, or none
    const std::size_t runs = starts.size() - 1;
    const auto at = [&](std::size_t i) { return first + static_cast<std::ptrdiff_t>(i); };
    // At the start `mid` of run r + 1: the overlap [from, to) is run r's elements after the
    // first of r + 1 and run r + 1's before the last of r. Merged, it is in order with what
    // lies on either side unless it takes all of run r and run r - 1 ends above it, or all of
    // run r + 1 and run r + 2 starts below it.
    std::vector<std::pair<std::size_t, std::size_t>> overlap(runs - 1);
    std::vector<std::uint8_t> mends(runs - 1, 1);
    tbb::parallel_for(std::size_t{0}, runs - 1, [&](std::size_t r) {
        const std::size_t mid = starts[r + 1];
        if (!less(*at(mid), *at(mid - 1))) {
            overlap[r] = {mid, mid};
            return;
        }
        const auto from = static_cast<std::size_t>(
            std::upper_bound(at(starts[r]), at(mid), *at(mid), less) - first);
        const auto to = static_cast<std::size_t>(
            std::lower_bound(at(mid), at(starts[r + 2]), *at(mid - 1), less) - first);
        overlap[r] = {from, to};
        mends[r] = !(from == starts[r] && r > 0 && less(*at(mid), *at(from - 1))) &&
                   !(to == starts[r + 2] && r + 2 < runs && less(*at(to), *at(mid - 1)));
    });
    for (std::size_t r = 0; r < overlap.size(); ++r) {
        if (!mends[r] || (r > 0 && overlap[r - 1].second > overlap[r].first)) return false;
    }
    tbb::parallel_for(std::size_t{0}, runs - 1, [&](std::size_t r) {
        const auto [from, to] = overlap[r];
        if (from < to) std::inplace_merge(at(from), at(starts[r + 1]), at(to), less);
    });
    assert(std::is_sorted(first, at(starts.back()), less));
    return true;
}

// Sorts v, its blocks of per_block each sorted, where some elements jumped past a whole
// block, on oneTBB's threads: each block's elements outside the medians of the blocks on
// either side are set aside, the rest are copied to `kept` and their runs' overlaps merged,
// and the set-aside ones are sorted and merged back in, run by run. Returns false, v as it
// was, where the kept runs' overlaps do not mend (the medians out of order: most of some
// blocks jumped far).
template <typename T, typename Less>
bool sort_blocks_with_far_jumps(std::vector<T>& v, std::size_t per_block, std::vector<T>& kept,
                                Less less) {
    const std::size_t n = v.size();
    const std::size_t blocks = block_count(n, per_block);
    std::vector<T> median(blocks);
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t begin = b * per_block, end = std::min(n, begin + per_block);
        median[b] = v[begin + (end - begin) / 2];
    }
    const auto near = [&](std::size_t b, const T& x) {
        return (b == 0 || !less(x, median[b - 1])) && (b + 1 == blocks || !less(median[b + 1], x));
    };
    std::vector<std::size_t> kept_at(blocks + 1, 0);  // where each block's kept ones go
    std::vector<std::vector<T>> far(blocks);
    for_each_block(n, per_block, true, [&](std::size_t begin, std::size_t end, std::size_t b) {
        for (std::size_t i = begin; i < end; ++i) {
            if (!near(b, v[i])) far[b].push_back(v[i]);
        }
        kept_at[b + 1] = end - begin - far[b].size();
    });
    for (std::size_t b = 0; b < blocks; ++b) kept_at[b + 1] += kept_at[b];
    kept.reserve(n);  // once: no reallocation (32 MB of new pages at 1M) as the count varies
    kept.resize(kept_at.back());
    for_each_block(n, per_block, true, [&](std::size_t begin, std::size_t end, std::size_t b) {
        std::size_t out = kept_at[b];
        for (std::size_t i = begin; i < end; ++i) {
            if (near(b, v[i])) kept[out++] = v[i];
        }
    });
    std::vector<std::size_t> starts;  // the kept runs, the empty ones left out
    for (std::size_t b = 0; b < blocks; ++b) {
        if (kept_at[b] < kept_at[b + 1]) starts.push_back(kept_at[b]);
    }
    starts.push_back(kept.size());
    if (!merge_run_overlaps(kept.begin(), starts, less)) return false;
    std::vector<T> far_ones;
    std::vector<std::size_t> offsets;
    append_in_order(far, offsets, far_ones);
    std::sort(far_ones.begin(), far_ones.end(), less);
    // Run r of the now sorted kept ones takes the far ones from its first element to the
    // next run's (the first run, those below it too): together they fill v from
    // starts[r] + the far ones before.
    const std::size_t runs = starts.size() - 1;
    if (runs == 0) {
        std::copy(far_ones.begin(), far_ones.end(), v.begin());
        return true;
    }
    const auto far_below = [&](std::size_t r) {
        if (r == 0) return std::size_t{0};
        if (r == runs) return far_ones.size();
        return static_cast<std::size_t>(
            std::lower_bound(far_ones.begin(), far_ones.end(), kept[starts[r]], less) -
            far_ones.begin());
    };
    const auto at = [](auto& c, std::size_t i) {
        return c.begin() + static_cast<std::ptrdiff_t>(i);
    };
    tbb::parallel_for(std::size_t{0}, runs, [&](std::size_t r) {
        const std::size_t lo = far_below(r), hi = far_below(r + 1);
        std::merge(at(kept, starts[r]), at(kept, starts[r + 1]), at(far_ones, lo), at(far_ones, hi),
                   at(v, starts[r] + lo), less);
    });
    return true;
}

// Elements per block of the parallel sort_from_last_order.
inline constexpr std::size_t kSortBlock = 16384;

// Sorts v from last frame's order with sort_in_place_or_within_reach.
// - Serial: over v at once.
// - When `parallel` and oneTBB has more than one thread: each block of `per_block` is
//   sorted by its own task, then where a block's tail and the next one's head overlap, the
//   two are merged in place. Where that does not leave v sorted (an element jumped over a
//   whole block), sort_blocks_with_far_jumps, also on the threads, and only where that
//   fails too, sort_within_reach on one. On 16 threads the serial sort had left 15
//   waiting: zorder-sweep's 1M frame fell from 35-42 ms to 23-26.
// `less` must be a strict total order (ties broken, by id say): then every path gives the
// one sorted order, on any number of threads. `aside` is scratch.
template <typename T, typename Less>
void sort_from_last_order(std::vector<T>& v, std::size_t moves_per_element, std::vector<T>& aside,
                          Less less, bool parallel, std::size_t per_block = kSortBlock) {
    const std::size_t n = v.size();
    const std::size_t blocks = block_count(n, per_block);
    if (!parallel || blocks < 2 || threads_allowed() < 2) {
        sort_in_place_or_within_reach(v, moves_per_element, aside, less);
        return;
    }
    for_each_block(n, per_block, true, [&](std::size_t begin, std::size_t end, std::size_t) {
        std::vector<T> block_aside;  // allocates only where something jumped far
        sort_in_place_or_within_reach(std::span<T>(v.data() + begin, end - begin),
                                      moves_per_element, block_aside, less);
    });
    std::vector<std::size_t> starts(blocks + 1);
    for (std::size_t b = 0; b < blocks; ++b) starts[b] = b * per_block;
    starts[blocks] = n;
    if (merge_run_overlaps(v.begin(), starts, less)) return;
    if (sort_blocks_with_far_jumps(v, per_block, aside, less)) return;
    sort_within_reach(v, kSortReach, aside, less);
}

}  // namespace collide
