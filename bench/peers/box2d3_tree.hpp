// peer:box2d3-tree: Box2D v3's b2DynamicTree (built from source, see bench/CMakeLists.txt),
// driven the way v3's b2BroadPhase drives it, as a reference point for our 2D broad phases.
// A static library of its own with this one factory, so v3's C types never meet Box2D 2.4's
// in one translation unit. See box2d3_tree.cpp for how it is driven.
#pragma once

#include <memory>

#include "collide/broadphase.hpp"

namespace collide::bench {

std::unique_ptr<BroadPhase<2>> make_box2d3_tree_peer();

}  // namespace collide::bench
