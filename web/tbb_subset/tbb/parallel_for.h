// See detail_pool.h: the subset of oneTBB the web build needs.
#pragma once

#include "tbb/blocked_range.h"
#include "tbb/detail_pool.h"

namespace tbb {

// Accepted for the signature; every split is already coarse.
struct simple_partitioner {};

// body(sub-range) over chunks of `range`, none under its grain size.
template <typename Value, typename Body>
void parallel_for(const blocked_range<Value>& range, const Body& body) {
    const std::size_t n = range.size();
    const std::size_t chunks = subset::chunk_count(n, range.grainsize());
    subset::run_tasks(chunks, [&](std::size_t k) {
        const Value lo = range.begin() + static_cast<Value>(n * k / chunks);
        const Value hi = range.begin() + static_cast<Value>(n * (k + 1) / chunks);
        body(blocked_range<Value>(lo, hi, range.grainsize()));
    });
}

// body(i) for every i in [first, last).
template <typename Index, typename Body>
void parallel_for(Index first, Index last, const Body& body) {
    if (!(first < last)) return;
    parallel_for(blocked_range<Index>(first, last), [&](const blocked_range<Index>& r) {
        for (Index i = r.begin(); i < r.end(); ++i) body(i);
    });
}

template <typename Index, typename Body>
void parallel_for(Index first, Index last, const Body& body, const simple_partitioner&) {
    parallel_for(first, last, body);
}

}  // namespace tbb
