// The parts the sorted grid's passes over all bodies run in, one per thread: the level choice
// and each phase of the sort cut the bodies (or the cells) the same way.
#pragma once

#include <cstddef>

#include <tbb/parallel_for.h>

namespace collide::sorted_grid {

// Runs body(part) for each part in [0, parts), on oneTBB's threads when there are several.
template <typename Fn>
void for_each_part(std::size_t parts, const Fn& body) {
    if (parts == 1) {
        body(std::size_t{0});
        return;
    }
    tbb::parallel_for(std::size_t{0}, parts, body, tbb::simple_partitioner{});
}

// The range [0, n) cut into `parts` nearly equal pieces: piece p is [cut(p), cut(p + 1)).
inline std::size_t cut(std::size_t n, std::size_t parts, std::size_t p) {
    return n * p / parts;
}

}  // namespace collide::sorted_grid
