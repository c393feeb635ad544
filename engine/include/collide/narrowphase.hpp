// Narrow phase: exact circle/sphere overlap tests on the pairs the broad phase found.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "collide/core.hpp"

namespace collide {

template <int D>
struct Contact {
    BodyId a;
    BodyId b;
    Vec<D> normal;  // unit, from a towards b
    float depth;    // penetration, >= 0
};

// Fills `c` and returns true when the circles/spheres (pa, ra) and (pb, rb) overlap or touch.
template <int D>
bool sphere_contact(const Vec<D>& pa, float ra, const Vec<D>& pb, float rb, Contact<D>& c);

// How far (as a fraction of the smaller radius) two bodies may sink into each other within
// a step before it counts as an impact: resting and sliding contacts stay with the solver.
inline constexpr float kImpactSlop = 0.01f;

// Swept spheres: a moves in a straight line from a0 to a1 and b from b0 to b1 over t in
// [0, 1]. The first t at which they touch, if they are apart at t = 0 and touch by t = 1;
// for bodies already touching at t = 0, the first t at which they have sunk in by the slop.
template <int D>
std::optional<float> time_of_impact(const Vec<D>& a0, const Vec<D>& a1, float ra,
                                    const Vec<D>& b0, const Vec<D>& b1, float rb);

// The smallest distance between the centres over the same motion.
template <int D>
float closest_approach(const Vec<D>& a0, const Vec<D>& a1, const Vec<D>& b0, const Vec<D>& b1);

// Pairs per task of find_contacts' parallel loop.
inline constexpr std::size_t kContactPairsPerTask = 4096;

// Contacts of every pair in `pairs` whose spheres really overlap, sorted by (a, b) so the
// solver's result does not depend on the order the broad phase reported them in (nor on
// the thread count: the pairs are tested in parallel tasks).
template <int D>
void find_contacts(std::span<const Vec<D>> pos, std::span<const float> radius,
                   std::span<const Pair> pairs, std::vector<Contact<D>>& out);

}  // namespace collide
