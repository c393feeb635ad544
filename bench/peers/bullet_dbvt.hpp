// peer:bullet-dbvt: Bullet's btDbvtBroadphase (libbullet-dev) with its hashed pair cache,
// driven as a btCollisionWorld drives it, as a reference point for our broad phases. Built
// only when CMake finds Bullet; 2D bodies get z = [0, 0]. See bullet_dbvt.cpp.
#pragma once

#include <memory>

#include "collide/broadphase.hpp"

namespace collide::bench {

template <int D>
std::unique_ptr<BroadPhase<D>> make_bullet_dbvt_peer();

}  // namespace collide::bench
