// One metaball's field term, shared by the field, its gradient and the polygonizers.
#pragma once

#include <algorithm>
#include <cmath>

#include "collide/implicit.hpp"

namespace collide {

// min((r^2 / d^2)^(p / 2), kMaxTerm): powers 2 and 4 (the common ones) without pow.
inline float field_term(float r2, float d2, float power) {
    if (!(d2 > 0.0f)) return kMaxTerm;
    const float q = r2 / d2;
    float t;
    if (power == 2.0f) {
        t = q;
    } else if (power == 4.0f) {
        t = q * q;
    } else {
        t = std::pow(q, 0.5f * power);
    }
    return std::min(t, kMaxTerm);
}

}  // namespace collide
