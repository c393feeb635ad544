// Which body a click hits: the ray through the cursor against every body present, with a
// floor on the radius so that bodies smaller than a pixel can still be clicked.
#pragma once

#include <span>

#include <glm/glm.hpp>

#include "collide/world.hpp"

namespace collidoscope {

// The nearest body of `world` hit by the ray (3D), or the one containing origin.xy whose
// centre is nearest relative to its size (2D; `dir` unused), at positions `pos` (the
// world's own, or the GPU world's as read back); kNoBody if none. Every body counts as at
// least `min_radius` big.
template <int D>
collide::BodyId pick_body(const collide::World<D>& world, std::span<const collide::Vec<D>> pos,
                          const glm::vec3& origin, const glm::vec3& dir, float min_radius);

}  // namespace collidoscope
