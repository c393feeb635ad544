// Helpers shared by the sweeping broad phases: a parallel driver that sweeps rows in fixed
// chunks (its pair lists joined by append_in_order), per-body passes in fixed blocks, the
// stats of a sorted sweep.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <numeric>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "collide/broadphase.hpp"
#include "collide/core.hpp"
#include "parallel/ordered_join.hpp"

namespace collide {

// The threads oneTBB may use here: the caller's, handed in as the task arena it calls from
// (the bench's and the app's --threads); the engine reads no process-wide limit.
inline std::size_t threads_allowed() {
    return static_cast<std::size_t>(tbb::this_task_arena::max_concurrency());
}

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
    // On one thread, in order without oneTBB: the same results, without its tasks (in a
    // one-thread arena its parallel_for cost sort-and-sweep about a tenth at 50,000 bodies).
    if (parallel && blocks > 1 && threads_allowed() > 1) {
        tbb::parallel_for(std::size_t{0}, blocks, run);
    } else {
        for (std::size_t b = 0; b < blocks; ++b) run(b);
    }
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
        sweep_chunks(rows, rows_per_chunk, sweep_rows);
        append_in_order(pairs_, offsets_, out);
    }

    // The same chunks swept from the last to the first, for a caller that makes its rows final
    // from the back (the sorted grid's scatter), and joined in that order. begin_from_back(),
    // then sweep_tail(first, ...) whenever rows [first, rows) are final: it sweeps the chunks
    // wholly inside them at once, while their rows are still in cache. Serial ones are swept
    // on the calling thread straight into `out` (no lists to join), so sweep_tail may only be
    // called then. finish() sweeps the rest (in parallel unless serial). Either way the output
    // is the same: the chunks' pairs, last chunk first.
    void begin_from_back(std::size_t rows, std::size_t rows_per_chunk, bool serial, PairList& out) {
        rows_ = rows;
        rows_per_chunk_ = rows_per_chunk;
        unswept_ = chunk_count(rows, rows_per_chunk);
        direct_ = serial ? &out : nullptr;
        tests_.assign(unswept_, 0);
    }
    template <typename SweepRows>
    void sweep_tail(std::size_t first_row, const SweepRows& sweep_rows) {
        assert(direct_ != nullptr);
        while (unswept_ > 0 && (unswept_ - 1) * rows_per_chunk_ >= first_row) {
            --unswept_;
            sweep_rows(unswept_ * rows_per_chunk_,
                       std::min(rows_, (unswept_ + 1) * rows_per_chunk_), *direct_,
                       tests_[unswept_]);
        }
    }
    template <typename SweepRows>
    void finish(const SweepRows& sweep_rows, PairList& out) {
        swept_early_ = chunks() - unswept_;
        if (direct_ != nullptr) {
            sweep_tail(0, sweep_rows);
            direct_ = nullptr;
            return;
        }
        sweep_chunks(rows_, rows_per_chunk_, sweep_rows);
        std::reverse(pairs_.begin(), pairs_.end());
        append_in_order(pairs_, offsets_, out);
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

    // The last sweep's chunks, and how many of them begin_from_back's caller swept before
    // finish() (through sweep_tail).
    std::size_t chunks() const { return tests_.size(); }
    std::size_t swept_early() const { return swept_early_; }

    std::uint64_t tests() const {
        return std::accumulate(tests_.begin(), tests_.end(), std::uint64_t{0});
    }
    std::size_t bytes() const {
        std::size_t bytes = pairs_.capacity() * sizeof(PairList) + tests_.capacity() * 8;
        for (const PairList& p : pairs_) bytes += p.capacity() * sizeof(Pair);
        return bytes;
    }

private:
    // At least one chunk, so that an empty sweep still clears its count.
    static std::size_t chunk_count(std::size_t rows, std::size_t rows_per_chunk) {
        return std::max<std::size_t>(1, (rows + rows_per_chunk - 1) / rows_per_chunk);
    }

    // Every chunk into its own list (pairs_), in parallel.
    template <typename SweepRows>
    void sweep_chunks(std::size_t rows, std::size_t rows_per_chunk, const SweepRows& sweep_rows) {
        const std::size_t chunks = chunk_count(rows, rows_per_chunk);
        pairs_.resize(chunks);
        tests_.assign(chunks, 0);
        const auto sweep_chunk = [&](std::size_t c) {
            // The chunk's list and count live on this thread's stack while it sweeps (a move,
            // no copy): neighbouring chunks' list headers and counts share cache lines, and
            // written in place at every pair, the cores fight over those lines at 16 threads.
            PairList pairs = std::move(pairs_[c]);
            std::uint64_t tests = 0;
            pairs.clear();
            sweep_rows(c * rows_per_chunk, std::min(rows, (c + 1) * rows_per_chunk), pairs, tests);
            pairs_[c] = std::move(pairs);
            tests_[c] = tests;
        };
        // A block a chunk: on one thread they go in order without oneTBB's tasks.
        for_each_block(chunks, 1, true,
                       [&](std::size_t c, std::size_t, std::size_t) { sweep_chunk(c); });
    }

    // begin_from_back's state: the rows, and chunks [0, unswept_) still to sweep, into
    // direct_ when serial.
    std::size_t rows_ = 0, rows_per_chunk_ = 1, unswept_ = 0, swept_early_ = 0;
    PairList* direct_ = nullptr;
    std::vector<PairList> pairs_;
    std::vector<std::uint64_t> tests_;
    std::vector<std::size_t> offsets_;  // where each chunk's pairs go in the joined list
};

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
