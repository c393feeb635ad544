// The simulation's per-item parallel loop, shared by the world and the contact solver.
#pragma once

#include <cstddef>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace collide {

// fn(i) for i in [0, n) on oneTBB's threads, in ranges of at least `grain`: each i writes
// only its own outputs, so the result does not depend on how the range is cut.
template <typename Fn>
void for_each_index(std::size_t n, std::size_t grain, const Fn& fn) {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, grain),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                          for (std::size_t i = r.begin(); i != r.end(); ++i) fn(i);
                      });
}

}  // namespace collide
