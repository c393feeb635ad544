// The join of lists that parallel tasks filled, one list per task's block of work, in block
// order: the result is the same on any number of threads. The broad phases join their pair
// lists this way, and the world its bodies at walls.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include <tbb/parallel_for.h>

namespace collide {

// Appends the lists to `out` in list order, each list copied by its own task when
// `parallel`: at a million pairs a serial join is a millisecond that no thread count
// shortens. `offsets` is scratch.
template <typename T>
void append_in_order(const std::vector<std::vector<T>>& lists, std::vector<std::size_t>& offsets,
                     std::vector<T>& out, bool parallel = true) {
    offsets.resize(lists.size() + 1);
    offsets[0] = out.size();
    for (std::size_t c = 0; c < lists.size(); ++c) offsets[c + 1] = offsets[c] + lists[c].size();
    out.resize(offsets.back());
    const auto copy = [&](std::size_t c) {
        std::copy(lists[c].begin(), lists[c].end(),
                  out.begin() + static_cast<std::ptrdiff_t>(offsets[c]));
    };
    if (parallel && lists.size() > 1) {
        tbb::parallel_for(std::size_t{0}, lists.size(), copy);
    } else {
        for (std::size_t c = 0; c < lists.size(); ++c) copy(c);
    }
}

}  // namespace collide
