// peer:box2d-tree: Box2D 2.4's b2DynamicTree (libbox2d-dev), driven the way Box2D's own
// b2BroadPhase and contact manager drive it, as a reference point for our broad phases.
// Built only when CMake finds Box2D; 2D only. See box2d_tree.cpp for how it is driven.
#pragma once

#include <memory>

#include "collide/broadphase.hpp"

namespace collide::bench {

std::unique_ptr<BroadPhase<2>> make_box2d_tree_peer();

}  // namespace collide::bench
