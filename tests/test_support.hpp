// Helpers shared by the engine test suites: an independent pair reference.
#pragma once

#include <span>

#include "collide/core.hpp"
#include "tooling/pair_check.hpp"

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
