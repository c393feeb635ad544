// The candidate test of two bodies, written once for every algorithm that tests pairs one
// at a time: two static bodies are never a pair; any other test is counted (the stats, and
// for the heat map both bodies while tracking), and the pair is kept when the boxes overlap.
#pragma once

#include <cstdint>

#include "broadphase/common/body_costs.hpp"
#include "collide/core.hpp"

namespace collide {

template <int D>
inline void test_pair(BodyId a, const Aabb<D>& box_a, BodyId b, const Aabb<D>& box_b,
                      bool both_static, PairList& out, std::uint64_t& tests,
                      const BodyCosts* costs) {
    if (both_static) return;
    ++tests;
    if (costs) costs->add_pair(a, b);
    if (box_a.overlaps(box_b)) out.push_back(make_pair(a, b));
}

}  // namespace collide
