// Helpers shared by the sweeping broad phases: an insertion sort for nearly sorted input,
// a parallel driver that sweeps rows in fixed chunks, per-body passes in fixed blocks, the
// stats of a sorted sweep.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include <tbb/parallel_for.h>

#include "collide/broadphase.hpp"
#include "collide/core.hpp"

namespace collide {

// Insertion sort that gives up after `budget` moves, so a frame where bodies jumped
// (a reset, a drag across the world) costs a full sort instead of O(n^2). Returns false
// when it gave up; every element is still present then.
template <typename T, typename Less>
bool insertion_sort_within(std::vector<T>& v, std::size_t budget, Less less) {
    std::size_t moves = 0;
    for (std::size_t i = 1; i < v.size(); ++i) {
        const T item = v[i];
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

// Sorts v from last frame's order: the insertion sort within `budget` moves, and where it
// gives up (some elements jumped far), sort_nearly_sorted on what it left.
template <typename T, typename Less>
void sort_from_last_order(std::vector<T>& v, std::size_t budget, std::vector<T>& kept,
                          std::vector<T>& aside, Less less) {
    if (!insertion_sort_within(v, budget, less)) sort_nearly_sorted(v, kept, aside, less);
}

// Rows are cut into fixed chunks swept in parallel (oneTBB), each into its own pair list;
// the lists are joined in chunk order, so the output does not depend on the thread count.
class ChunkedSweep {
public:
    // sweep_rows(begin, end, pairs, tests) sweeps rows [begin, end), appending to `pairs`
    // and counting candidate tests in `tests`.
    template <typename SweepRows>
    void run(std::size_t rows, std::size_t rows_per_chunk, const SweepRows& sweep_rows,
             PairList& out) {
        const std::size_t chunks =
            std::max<std::size_t>(1, (rows + rows_per_chunk - 1) / rows_per_chunk);
        pairs_.resize(chunks);
        tests_.assign(chunks, 0);
        const auto sweep_chunk = [&](std::size_t c) {
            pairs_[c].clear();
            sweep_rows(c * rows_per_chunk, std::min(rows, (c + 1) * rows_per_chunk), pairs_[c],
                       tests_[c]);
        };
        if (chunks == 1) {
            sweep_chunk(0);
        } else {
            tbb::parallel_for(std::size_t{0}, chunks, sweep_chunk);
        }
        // Joined in chunk order, each chunk copied by its own task: at a million pairs a
        // serial join is a millisecond that no thread count shortens.
        offsets_.resize(chunks + 1);
        offsets_[0] = out.size();
        for (std::size_t c = 0; c < chunks; ++c) offsets_[c + 1] = offsets_[c] + pairs_[c].size();
        out.resize(offsets_[chunks]);
        const auto join_chunk = [&](std::size_t c) {
            std::copy(pairs_[c].begin(), pairs_[c].end(),
                      out.begin() + static_cast<std::ptrdiff_t>(offsets_[c]));
        };
        if (chunks == 1) {
            join_chunk(0);
        } else {
            tbb::parallel_for(std::size_t{0}, chunks, join_chunk);
        }
    }

    // The same sweep on the calling thread, straight into `out` (no chunk lists to join),
    // for algorithms whose parallel pass is switched off or does not apply.
    template <typename SweepRows>
    void run_serial(std::size_t rows, const SweepRows& sweep_rows, PairList& out) {
        tests_.assign(1, 0);
        sweep_rows(0, rows, out, tests_[0]);
    }

    // run() when `parallel`, else run_serial(): the algorithms' "parallel" switch.
    template <typename SweepRows>
    void run(bool parallel, std::size_t rows, std::size_t rows_per_chunk,
             const SweepRows& sweep_rows, PairList& out) {
        if (parallel) {
            run(rows, rows_per_chunk, sweep_rows, out);
        } else {
            run_serial(rows, sweep_rows, out);
        }
    }

    std::uint64_t tests() const {
        return std::accumulate(tests_.begin(), tests_.end(), std::uint64_t{0});
    }
    std::size_t bytes() const {
        std::size_t bytes = pairs_.capacity() * sizeof(PairList) + tests_.capacity() * 8;
        for (const PairList& p : pairs_) bytes += p.capacity() * sizeof(Pair);
        return bytes;
    }

private:
    std::vector<PairList> pairs_;
    std::vector<std::uint64_t> tests_;
    std::vector<std::size_t> offsets_;  // where each chunk's pairs go in the joined list
};

// How many blocks of per_block items n items make (the last one may be short).
inline std::size_t block_count(std::size_t n, std::size_t per_block) {
    return (n + per_block - 1) / per_block;
}

// body(begin, end, block) for the blocks [block * per_block, ...) of n items, on oneTBB's
// threads when `parallel`, else in order on the calling thread. Blocks depend on n alone, so
// results kept per block and combined in block order are the same either way.
template <typename Body>
void for_each_block(std::size_t n, std::size_t per_block, bool parallel, const Body& body) {
    const std::size_t blocks = block_count(n, per_block);
    const auto run = [&](std::size_t b) {
        body(b * per_block, std::min(n, (b + 1) * per_block), b);
    };
    if (parallel && blocks > 1) {
        tbb::parallel_for(std::size_t{0}, blocks, run);
    } else {
        for (std::size_t b = 0; b < blocks; ++b) run(b);
    }
}

// The stats of the sweeps over boxes kept in a sorted order (sort-and-sweep, the key
// sweeps): the sorted entries, the boxes and static flags copied in that order, the chunks.
template <int D, typename Entry>
BroadPhaseStats sorted_sweep_stats(const std::vector<Entry>& entries,
                                   const std::vector<Aabb<D>>& sorted,
                                   const std::vector<std::uint8_t>& is_static,
                                   const ChunkedSweep& chunks) {
    return {.candidate_tests = chunks.tests(),
            .structure_bytes = entries.capacity() * sizeof(Entry) +
                               sorted.capacity() * sizeof(Aabb<D>) + is_static.capacity() +
                               chunks.bytes(),
            .nodes = entries.size(),
            .depth = 0};
}

}  // namespace collide
