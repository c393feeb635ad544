// Sorts of nearly sorted input, for the broad phases that keep last frame's order: an
// insertion sort that gives up after a budget of moves, a sort that sets aside the few
// elements that jumped far, and that one serial or in blocks on oneTBB's threads.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

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

// A caller's record of its last sorts from last frame's order. Where the insertion sort gave
// up, the moves it made first were wasted (2D powerlaw 1M at speed 0.5: 0.8 of a 5.4 ms
// sort), and bodies that move that fast now will next frame too: the next sorts go straight
// to sort_within_reach, and every kSkipsAfterGivingUp + 1-th tries the insertion sort again,
// so a scene that calms down gets it back. Either way the result is the one sorted order.
struct SortHistory {
    static constexpr std::uint32_t kSkipsAfterGivingUp = 7;
    std::uint32_t skips_left = 0;
};

// Sorts v from last frame's order: an insertion sort in place while it stays within
// `moves_per_element` moves per element, and where it gives up, sort_within_reach.
template <typename Range, typename T, typename Less>
void sort_in_place_or_within_reach(Range&& v, std::size_t moves_per_element, std::vector<T>& aside,
                                   Less less, SortHistory* history = nullptr) {
    if (history && history->skips_left > 0) {
        --history->skips_left;
        sort_within_reach(v, kSortReach, aside, less);
        return;
    }
    if (!insertion_sort_within(v, moves_per_element * v.size() + 64, less)) {
        if (history) history->skips_left = SortHistory::kSkipsAfterGivingUp;
        sort_within_reach(v, kSortReach, aside, less);
    }
}

// Sorts v, nearly sorted, in blocks of per_block on oneTBB's threads, with one pass over v
// at most beyond the blocks' own sorts:
// - Cuts split the values where v's blocks start, each the median of the five elements
//   around a block's start (so one element that jumped does not move a cut), the cuts
//   then sorted. Block b's range is [cuts[b], cuts[b + 1]).
// - Each block's task takes out its elements outside its range (strays: they crossed a
//   cut) and sorts the rest in place. The blocks, one after another, are then in order.
// - Where there were strays, they are sorted, and a task per block merges its kept
//   elements with the strays in its range into `scratch`, which is then swapped with v.
// Any input is sorted: many strays only make their sort the larger part.
template <typename T, typename Less>
void sort_blocks_between_cuts(std::vector<T>& v, std::size_t moves_per_element,
                              std::vector<T>& scratch, Less less, std::size_t per_block) {
    const std::size_t n = v.size();
    const std::size_t blocks = block_count(n, per_block);
    if (blocks < 2) {
        sort_in_place_or_within_reach(v, moves_per_element, scratch, less);
        return;
    }
    std::vector<T> cuts(blocks);  // cuts[0] is not used: block 0 has no lower bound
    for (std::size_t b = 1; b < blocks; ++b) {
        const std::size_t at = b * per_block;
        std::array<T, 5> around;
        const std::size_t from = at >= 2 ? at - 2 : 0, to = std::min(n, from + around.size());
        std::copy(v.begin() + static_cast<std::ptrdiff_t>(from),
                  v.begin() + static_cast<std::ptrdiff_t>(to), around.begin());
        const std::size_t count = to - from;
        std::nth_element(around.begin(), around.begin() + count / 2, around.begin() + count, less);
        cuts[b] = around[count / 2];
    }
    std::sort(cuts.begin() + 1, cuts.end(), less);
    std::vector<std::vector<T>> strays(blocks);
    std::vector<std::size_t> kept(blocks + 1, 0);  // kept[b + 1]: block b's, then summed
    for_each_block(n, per_block, true, [&](std::size_t begin, std::size_t end, std::size_t b) {
        const bool first = b == 0, last = b + 1 == blocks;
        // One pass takes the strays out and insertion-sorts the rest (the block is read from
        // memory once; a pass of each cost more than the whole serial sort on 2 threads).
        // Past the moves' budget the rest is only compacted, and sorted within reach after.
        const std::size_t budget = moves_per_element * (end - begin) + 64;
        std::size_t moves = 0, w = begin;
        bool sorting = true;
        for (std::size_t i = begin; i < end; ++i) {
            const T x = v[i];
            if ((!first && less(x, cuts[b])) || (!last && !less(x, cuts[b + 1]))) {
                strays[b].push_back(x);
                continue;
            }
            std::size_t j = w++;  // v[w] is x's own place or one a stray left
            while (sorting && j > begin && less(x, v[j - 1])) {
                v[j] = v[j - 1];
                --j;
                sorting = ++moves <= budget;
            }
            v[j] = x;
        }
        kept[b + 1] = w - begin;
        if (!sorting) {
            std::vector<T> aside;  // allocates only here, where something jumped far
            sort_within_reach(std::span<T>(v.data() + begin, w - begin), kSortReach, aside, less);
        }
    });
    std::vector<T> far;
    std::vector<std::size_t> offsets;
    append_in_order(strays, offsets, far);
    if (far.empty()) return;  // every block kept all of its own
    tbb::parallel_sort(far.begin(), far.end(), less);
    for (std::size_t b = 0; b < blocks; ++b) kept[b + 1] += kept[b];
    // The strays below a block's range.
    const auto far_below = [&](std::size_t b) {
        if (b == 0) return std::size_t{0};
        if (b == blocks) return far.size();
        return static_cast<std::size_t>(std::lower_bound(far.begin(), far.end(), cuts[b], less) -
                                        far.begin());
    };
    const auto at = [](auto& c, std::size_t i) {
        return c.begin() + static_cast<std::ptrdiff_t>(i);
    };
    scratch.resize(n);
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
        const std::size_t begin = b * per_block;
        const std::size_t count = kept[b + 1] - kept[b];
        const std::size_t lo = far_below(b), hi = far_below(b + 1);
        std::merge(at(v, begin), at(v, begin + count), at(far, lo), at(far, hi),
                   at(scratch, kept[b] + lo), less);
    });
    assert(std::is_sorted(scratch.begin(), scratch.end(), less));
    v.swap(scratch);
}

// Elements per block of the parallel sort_from_last_order.
inline constexpr std::size_t kSortBlock = 16384;

// Sorts v from last frame's order with sort_in_place_or_within_reach: serially over v at
// once, or when `parallel` and oneTBB has more than one thread, with
// sort_blocks_between_cuts (v's buffer may then be swapped with aside's). On 16 threads the
// serial sort had left 15 waiting: zorder-sweep's 1M frame fell from 35-42 ms to 23-26.
// `less` must be a strict total order (ties broken, by id say): then every path gives the
// one sorted order, on any number of threads. `aside` is scratch; `history`, where given,
// lets the serial path skip an insertion sort that gave up last time.
template <typename T, typename Less>
void sort_from_last_order(std::vector<T>& v, std::size_t moves_per_element, std::vector<T>& aside,
                          Less less, bool parallel, std::size_t per_block = kSortBlock,
                          SortHistory* history = nullptr) {
    if (!parallel || block_count(v.size(), per_block) < 2 || threads_allowed() < 2) {
        sort_in_place_or_within_reach(v, moves_per_element, aside, less, history);
        return;
    }
    sort_blocks_between_cuts(v, moves_per_element, aside, less, per_block);
}

}  // namespace collide
