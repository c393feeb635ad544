// See detail_pool.h: the subset of oneTBB the web build needs. The sort runs on the calling
// thread: the engine sorts keys whose ties are interchangeable, as with oneTBB's own
// parallel_sort, which is not stable either.
#pragma once

#include <algorithm>
#include <functional>

namespace tbb {

template <typename Iterator, typename Less>
void parallel_sort(Iterator first, Iterator last, const Less& less) {
    std::sort(first, last, less);
}

template <typename Iterator>
void parallel_sort(Iterator first, Iterator last) {
    std::sort(first, last);
}

}  // namespace tbb
