// Helpers shared by the engine test suites: an independent pair reference.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "collide/core.hpp"
#include "collide/gpu/catalog.hpp"
#include "collide/registry.hpp"
#include "tooling/pair_check.hpp"
#include "tooling/random.hpp"

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

// A second reference for large n: a sweep along x over the boxes sorted by their low x
// (the double loop's pair set, at a fraction of its cost where few boxes share an x).
template <int D>
PairList swept_reference_pairs(std::span<const Aabb<D>> boxes,
                               std::span<const std::uint8_t> is_static) {
    std::vector<std::uint32_t> order(boxes.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return boxes[a].lo[0] < boxes[b].lo[0]; });
    PairList out;
    for (std::size_t p = 0; p < order.size(); ++p) {
        const std::uint32_t i = order[p];
        for (std::size_t q = p + 1; q < order.size(); ++q) {
            const std::uint32_t j = order[q];
            if (boxes[j].lo[0] > boxes[i].hi[0]) break;
            if (is_static[i] && is_static[j]) continue;
            if (boxes[i].overlaps(boxes[j])) out.push_back({std::min(i, j), std::max(i, j)});
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Bodies far larger than the spread of the centres: radii with a Pareto tail (exponent
// `tail`, from 0.05 up to three times the side of the cube the centres fill), and three
// bodies of that largest size placed at the low corner, the middle and the high corner, so
// some search starts early in any sort order. A giant meets every body; gpu-lbvh lost those
// pairs past a driver's loop limit, and every tree or grid sees its bounds stretched far
// past where the centres are.
template <int D>
std::vector<Aabb<D>> giant_bodies(std::size_t n, std::uint64_t seed, float tail = 1.0f,
                                  float side = 50.0f) {
    Rng rng(seed);
    constexpr float kMin = 0.05f;
    const float largest = 3.0f * side;
    std::vector<Aabb<D>> out;
    for (std::size_t i = 0; i < n; ++i) {
        const Vec<D> c = i < 3 ? Vec<D>(side * 0.5f * static_cast<float>(i))
                               : rng.in_box<D>(Vec<D>(0.0f), Vec<D>(side));
        const float r = i < 3 ? largest
                              : std::min(kMin * std::pow(1.0f - rng.uniform(), -1.0f / tail),
                                         largest);
        out.push_back(Aabb<D>::around(c, r));
    }
    return out;
}

// A registry row in one dimension, for suites that run every row in both.
using Param = std::pair<std::string, int>;

inline std::vector<Param> rows_by_dim() {
    std::vector<Param> out;
    for (const BroadPhaseEntry& e : all_broadphases())
        for (int dim : {2, 3})
            if (e.supports(dim)) out.emplace_back(e.name, dim);
    return out;
}

inline std::string row_name(const ::testing::TestParamInfo<Param>& info) {
    std::string name = info.param.first + "_" + std::to_string(info.param.second) + "d";
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

}  // namespace collide::testing
