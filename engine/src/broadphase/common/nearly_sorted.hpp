// Sorts of nearly sorted input, for the broad phases that keep last frame's order: an
// insertion sort that gives up after a budget of moves, a sort for the order it leaves
// where some elements jumped far, and the two together, serial or in blocks on oneTBB's
// threads.
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

// Sorts v when most of it is in order but some elements are far from their place (where
// insertion_sort_within gave up): each element out of order with the last one kept is set
// aside together with that one (so one element far ahead does not set aside all that follow
// it), the kept ones stay in order, and the set-aside ones are sorted and merged back in.
// O(n + k log k) for k set aside; `kept` and `aside` are scratch.
template <typename T, typename Less>
void sort_nearly_sorted(std::vector<T>& v, std::vector<T>& kept, std::vector<T>& aside, Less less) {
    kept.clear();
    aside.clear();
    for (const T& x : v) {
        if (!kept.empty() && less(x, kept.back())) {
            aside.push_back(kept.back());
            kept.pop_back();
            aside.push_back(x);
        } else {
            kept.push_back(x);
        }
    }
    std::sort(aside.begin(), aside.end(), less);
    std::merge(kept.begin(), kept.end(), aside.begin(), aside.end(), v.begin(), less);
}

// Elements per block of the parallel sort_from_last_order.
inline constexpr std::size_t kSortBlock = 16384;

// Sorts v from last frame's order.
// - Serial: the insertion sort within `moves_per_element` moves per element, and where it
//   gives up (some elements jumped far), sort_nearly_sorted on what it left.
// - When `parallel` and oneTBB has more than one thread: each block of `per_block` is
//   insertion-sorted by its own task, then where a block's tail and the next one's head
//   overlap, the two are merged in place. Where that does not leave v sorted (an element
//   jumped over a whole block), sort_nearly_sorted follows. On 16 threads the serial sort
//   had left 15 waiting: zorder-sweep's 1M frame fell from 35-42 ms to 23-26.
// `less` must be a strict total order (ties broken, by id say): then every path gives the
// one sorted order, on any number of threads. `kept` and `aside` are scratch.
template <typename T, typename Less>
void sort_from_last_order(std::vector<T>& v, std::size_t moves_per_element, std::vector<T>& kept,
                          std::vector<T>& aside, Less less, bool parallel,
                          std::size_t per_block = kSortBlock) {
    const std::size_t n = v.size();
    const std::size_t blocks = block_count(n, per_block);
    if (!parallel || blocks < 2 || threads_allowed() < 2) {
        if (!insertion_sort_within(v, moves_per_element * n + 1024, less)) {
            sort_nearly_sorted(v, kept, aside, less);
        }
        return;
    }
    for_each_block(n, per_block, true, [&](std::size_t begin, std::size_t end, std::size_t) {
        const std::span<T> block(v.data() + begin, end - begin);
        if (!insertion_sort_within(block, moves_per_element * block.size() + 64, less)) {
            std::sort(block.begin(), block.end(), less);
        }
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
    if (!sorted) sort_nearly_sorted(v, kept, aside, less);
}

}  // namespace collide
