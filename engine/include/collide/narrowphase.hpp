// Narrow phase: exact circle/sphere overlap tests on the pairs the broad phase found.
#pragma once

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

// Contacts of every pair in `pairs` whose spheres really overlap, sorted by (a, b) so the
// solver's result does not depend on the order the broad phase reported them in.
template <int D>
void find_contacts(std::span<const Vec<D>> pos, std::span<const float> radius,
                   std::span<const Pair> pairs, std::vector<Contact<D>>& out);

}  // namespace collide
