// See detail_pool.h: the subset of oneTBB the web build needs.
#pragma once

#include "tbb/detail_pool.h"

namespace tbb {

template <typename First, typename Second>
void parallel_invoke(const First& first, const Second& second) {
    subset::run_tasks(2, [&](std::size_t k) {
        if (k == 0) first();
        else second();
    });
}

}  // namespace tbb
