// peer:ode-hash, peer:ode-quadtree, peer:ode-sap: the Open Dynamics Engine's collision
// spaces (libode-dev), driven the way an ODE world step drives them, as reference points
// for our hierarchical hash, our trees and our sweeps. Built only when CMake finds ODE;
// 3D, and 2D as boxes standing on the z = 0 plane. See ode_space.cpp.
#pragma once

#include <memory>

#include "collide/broadphase.hpp"

namespace collide::bench {

enum class OdeSpace {
    kHash,      // dHashSpace: multi-resolution hashing
    kQuadTree,  // dQuadTreeSpace: a fixed quadtree over x and y
    kSap,       // dSweepAndPruneSpace: radix-sorted sweep on x, pruned on y and z
};

template <OdeSpace S, int D>
std::unique_ptr<BroadPhase<D>> make_ode_peer();

}  // namespace collide::bench
