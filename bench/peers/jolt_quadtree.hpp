// peer:jolt-quadtree: Jolt's BroadPhaseQuadTree (built from source, see bench/CMakeLists.txt),
// driven the way Jolt's PhysicsSystem drives it, as a reference point for our 3D broad
// phases. A static library of its own with this one factory, so Jolt's CPU flags (-mavx2
// -mfma ...) stay in that library. See jolt_quadtree.cpp for how it is driven.
#pragma once

#include <memory>

#include "collide/broadphase.hpp"

namespace collide::bench {

std::unique_ptr<BroadPhase<3>> make_jolt_quadtree_peer();

}  // namespace collide::bench
