// Sorts of nearly sorted input, for the broad phases that keep last frame's order: an
// insertion sort that gives up after a budget of moves, a sort that sets aside the few
// elements that jumped far, and that one serial or in blocks on oneTBB's threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <tbb/parallel_for.h>

#include "broadphase/common/chunked_sweep.hpp"

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

// Elements per block of the parallel sort_from_last_order.
inline constexpr std::size_t kSortBlock = 16384;

// Sorts v from last frame's order with sort_in_place_or_within_reach.
// - Serial: over v at once.
// - When `parallel` and oneTBB has more than one thread: each block of `per_block` is
//   sorted by its own task, then where a block's tail and the next one's head overlap, the
//   two are merged in place. Where that does not leave v sorted (an element jumped over a
//   whole block), sort_within_reach follows. On 16 threads the serial sort had left 15
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
    // At the boundary `mid` of blocks b and b + 1: the overlap [from, to) is block b's
    // elements after the first of b + 1 and block b + 1's before the last of b.
    std::vector<std::pair<std::size_t, std::size_t>> overlap(blocks - 1);
    const auto at = [&](std::size_t i) { return v.begin() + static_cast<std::ptrdiff_t>(i); };
    tbb::parallel_for(std::size_t{0}, blocks - 1, [&](std::size_t b) {
        const std::size_t mid = (b + 1) * per_block;
        if (!less(v[mid], v[mid - 1])) {
            overlap[b] = {mid, mid};
            return;
        }
        const std::size_t from = std::upper_bound(at(b * per_block), at(mid), v[mid], less) - at(0);
        const std::size_t to =
            std::lower_bound(at(mid), at(std::min(n, mid + per_block)), v[mid - 1], less) - at(0);
        overlap[b] = {from, to};
    });
    // Merged in place only where the overlaps stay apart; each then ends sorted.
    bool apart = true;
    for (std::size_t b = 1; b < overlap.size(); ++b)
        apart = apart && overlap[b - 1].second <= overlap[b].first;
    if (apart) {
        tbb::parallel_for(std::size_t{0}, blocks - 1, [&](std::size_t b) {
            const auto [from, to] = overlap[b];
            if (from < to) std::inplace_merge(at(from), at((b + 1) * per_block), at(to), less);
        });
    }
    // v is now sorted pieces (the blocks' untouched parts and the merged overlaps): sorted
    // as a whole when each piece's edge is in order.
    const auto in_order = [&](std::size_t i) { return i == 0 || i == n || !less(v[i], v[i - 1]); };
    bool sorted = apart;
    for (std::size_t b = 0; b < overlap.size() && sorted; ++b) {
        sorted = in_order(overlap[b].first) && in_order(overlap[b].second);
    }
    if (!sorted) sort_within_reach(v, kSortReach, aside, less);
}

}  // namespace collide
