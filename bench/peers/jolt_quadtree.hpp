// peer:jolt-quadtree: Jolt's BroadPhaseQuadTree (built from source, see bench/CMakeLists.txt),
// driven the way Jolt's PhysicsSystem drives it, as a reference point for our 3D broad
// phases. A static library of its own with this one factory; the part compiled with Jolt's
// CPU flags (-mavx2 -mfma ...) is jolt_world.cpp, in a library below it. See jolt_world.cpp
// for how Jolt is driven.
#pragma once

#include <memory>

#include "collide/broadphase.hpp"

namespace collide::bench {

std::unique_ptr<BroadPhase<3>> make_jolt_quadtree_peer();

}  // namespace collide::bench
