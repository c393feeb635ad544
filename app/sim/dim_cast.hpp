// Conversions between the engine's Vec<D> and the app's glm::vec3, which carries 2D
// positions with z = 0 so that the renderer and the UI work the same in both dimensions.
#pragma once

#include <glm/glm.hpp>

#include "collide/core.hpp"

namespace collidoscope {

template <int D>
glm::vec3 to3(const collide::Vec<D>& v) {
    if constexpr (D == 2) {
        return {v.x, v.y, 0.0f};
    } else {
        return v;
    }
}

template <int D>
collide::Vec<D> from3(const glm::vec3& v) {
    if constexpr (D == 2) {
        return {v.x, v.y};
    } else {
        return v;
    }
}

// Boxes likewise: a world box in 3D coordinates (z dropped in 2D) and back (z = 0).
template <int D>
collide::Aabb<D> from3(const collide::Aabb<3>& b) {
    return {from3<D>(b.lo), from3<D>(b.hi)};
}

template <int D>
collide::Aabb<3> to3(const collide::Aabb<D>& b) {
    return {to3<D>(b.lo), to3<D>(b.hi)};
}

}  // namespace collidoscope
