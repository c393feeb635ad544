// Helpers shared by the engine test suites: an independent pair reference.
#pragma once

#include <cstdlib>
#include <span>
#include <string>

#include <gtest/gtest.h>

#include "collide/core.hpp"
#include "collide/gpu/catalog.hpp"
#include "tooling/pair_check.hpp"

// At the top of a test of the broad phase `name`: a GPU row with no GL 4.3 context skips,
// saying why, except in CI (CI set), where it fails: CI must run the GPU suites.
#define SKIP_WITHOUT_GPU(name)                                                               \
    if (const auto why = ::collide::gpu_unavailable_reason(name)) {                          \
        if (std::getenv("CI") != nullptr) FAIL() << "CI must run " << (name) << ": " << *why; \
        GTEST_SKIP() << (name) << " skipped: " << *why;                                      \
    }

namespace collide::testing {

// The pairs a correct broad phase must report: a plain double loop, written here rather
// than taken from the registry so brute force itself is checked too.
template <int D>
PairList reference_pairs(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static) {
    PairList out;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        for (std::size_t j = i + 1; j < boxes.size(); ++j) {
            if (is_static[i] && is_static[j]) continue;
            if (boxes[i].overlaps(boxes[j])) out.push_back({BodyId(i), BodyId(j)});
        }
    }
    return out;  // already sorted by (a, b)
}

}  // namespace collide::testing
