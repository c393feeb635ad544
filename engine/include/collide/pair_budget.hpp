// The pair budget: how many overlapping pairs a world may have. Pairs grow with the square of
// the bodies that share a place (50,000 bodies at one point make 1.25e9 pairs, 10 GB), so
// the edges that take scenes count a scene's pairs before building a world on it, and the
// world stops a step whose broad phase found more than its budget.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "collide/core.hpp"

namespace collide {

// 50 million pairs: 400 MB of pair list, 30 times what a million-body scene of touching
// bodies has.
inline constexpr std::size_t kMaxPairs = 50'000'000;

// The pairs of overlapping boxes (not both static), counted by a sweep on x that stops once
// the count passes `limit`: the exact count when it is at most `limit`, else limit + 1.
// Takes O(n log n + min(pairs, limit)) tests, never storing a pair.
template <int D>
std::size_t count_pairs_up_to(std::span<const Aabb<D>> boxes,
                              std::span<const std::uint8_t> is_static, std::size_t limit);

}  // namespace collide
