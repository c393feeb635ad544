// What the peers share: Box2D and Bullet fatten boxes by a margin fixed in their own units
// (0.1 m in Box2D, 0.05 in Bullet), compiled into the libraries. To give them a margin in
// proportion to our bodies, the peers feed them boxes scaled so that the library's margin
// is the chosen fraction of the median body radius. Multiplying by a positive float is
// monotonic, so boxes that overlap still overlap once scaled (ties may appear, never
// gaps); the pairs the libraries report are then filtered against the unscaled boxes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "collide/core.hpp"

namespace collide::bench {

// The median of the boxes' largest half-extents (their radii); 0 when there are none.
template <int D>
float median_radius(std::span<const Aabb<D>> boxes, std::vector<float>& scratch) {
    scratch.clear();
    for (const Aabb<D>& b : boxes) {
        const Vec<D> s = b.size();
        float r = 0;
        for (int k = 0; k < D; ++k) r = std::max(r, 0.5f * s[k]);
        scratch.push_back(r);
    }
    if (scratch.empty()) return 0.0f;
    const auto mid = scratch.begin() + static_cast<std::ptrdiff_t>(scratch.size() / 2);
    std::nth_element(scratch.begin(), mid, scratch.end());
    return *mid;
}

// The factor that makes `library_margin` (library units) equal `fraction` times the
// median of the boxes' largest half-extents. 1 where that is zero or not finite.
template <int D>
float peer_scale(std::span<const Aabb<D>> boxes, float fraction, float library_margin,
                 std::vector<float>& scratch) {
    const float scale = library_margin / (fraction * median_radius<D>(boxes, scratch));
    return std::isfinite(scale) && scale > 0 ? scale : 1.0f;
}

// Whether the static flags or the body count changed: then the peers start over.
inline bool same_bodies(std::span<const std::uint8_t> is_static,
                        const std::vector<std::uint8_t>& known) {
    return is_static.size() == known.size() &&
           std::equal(is_static.begin(), is_static.end(), known.begin());
}

}  // namespace collide::bench
