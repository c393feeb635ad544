// peer:chipmunk-hash, peer:chipmunk-bbtree, peer:chipmunk-sweep1d: Chipmunk2D's spatial
// indexes (libchipmunk-dev), driven the way cpSpaceStep drives them, as reference points
// for our spatial hash, our dynamic tree and our sweeps. Built only when CMake finds
// Chipmunk; 2D only. See chipmunk_index.cpp.
#pragma once

#include <memory>

#include "collide/broadphase.hpp"

namespace collide::bench {

enum class ChipmunkIndex {
    kHash,     // cpSpaceHash, as cpSpaceUseSpatialHash sets it up
    kBBTree,   // cpBBTree, cpSpace's default, with its velocity-fattened leaves
    kSweep1D,  // cpSweep1D: a sorted sweep on x
};

template <ChipmunkIndex I>
std::unique_ptr<BroadPhase<2>> make_chipmunk_peer();

}  // namespace collide::bench
