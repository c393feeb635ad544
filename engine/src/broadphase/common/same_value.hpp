// The comparisons validate() makes between a stored value and the one it should equal: a
// copy of a body's box, a key, a fitted union, a cell's centre. NaN matches NaN, since a
// body the physics lost (NaN sides) is still one every structure must hold; -0 matches 0.
#pragma once

#include "collide/core.hpp"

namespace collide {

inline bool same_value(float a, float b) {
    return a == b || (a != a && b != b);
}

template <int D>
bool same_point(const Vec<D>& a, const Vec<D>& b) {
    for (int k = 0; k < D; ++k)
        if (!same_value(a[k], b[k])) return false;
    return true;
}

// A stored union against the union of its parts, which min and max make exact whatever
// order they were grown in.
template <int D>
bool same_box(const Aabb<D>& a, const Aabb<D>& b) {
    return same_point<D>(a.lo, b.lo) && same_point<D>(a.hi, b.hi);
}

}  // namespace collide
