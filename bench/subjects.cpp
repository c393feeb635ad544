#include "subjects.hpp"

#include <array>

#include "floor.hpp"
#ifdef COLLIDOSCOPE_PEER_BOX2D
#include "peers/box2d_tree.hpp"
#endif
#ifdef COLLIDOSCOPE_PEER_BULLET
#include "peers/bullet_dbvt.hpp"
#endif
#ifdef COLLIDOSCOPE_PEER_ODE
#include "peers/ode_space.hpp"
#endif
#ifdef COLLIDOSCOPE_PEER_CHIPMUNK
#include "peers/chipmunk_index.hpp"
#endif
// Today's peers, built from source (bench/CMakeLists.txt, COLLIDOSCOPE_FETCH_PEERS).
#ifdef COLLIDOSCOPE_PEER_BOX2D3
#include "peers/box2d3_tree.hpp"
#include "peers/compiled_isa.hpp"
#endif
#ifdef COLLIDOSCOPE_PEER_JOLT
#include "peers/jolt_quadtree.hpp"
#endif

namespace collide::bench {

namespace {

constexpr std::array kReferences = {
    BroadPhaseEntry{kFloor,
                    "Streams every box once and writes one 64-bit key (Morton code of the "
                    "centre); no pairs. The floor every time is divided by (x_floor)",
                    true, true, &make_instance<Floor, 2>, &make_instance<Floor, 3>},
#ifdef COLLIDOSCOPE_PEER_BOX2D
    BroadPhaseEntry{"peer:box2d-tree",
                    "Box2D 2.4 b2DynamicTree as b2BroadPhase drives it: fat boxes, move "
                    "buffer, queries of moved proxies, persistent fat pairs; exact filter",
                    true, false, &make_box2d_tree_peer, nullptr},
#endif
#ifdef COLLIDOSCOPE_PEER_BULLET
    BroadPhaseEntry{"peer:bullet-dbvt",
                    "Bullet btDbvtBroadphase: setAabb per moved body, deferred collide, "
                    "hashed pair cache read each frame; exact filter",
                    true, true, &make_bullet_dbvt_peer<2>, &make_bullet_dbvt_peer<3>},
#endif
#ifdef COLLIDOSCOPE_PEER_ODE
    // ODE: one space, box geoms moved with dGeomSetPosition, dSpaceCollide; 2D at z = 0.
    BroadPhaseEntry{"peer:ode-hash",
                    "ODE 0.16 dHashSpace (multi-resolution hash, rebuilt each collide, levels "
                    "spanning the box sizes): dGeomSetPosition, dSpaceCollide; exact filter",
                    true, true, &make_ode_peer<OdeSpace::kHash, 2>,
                    &make_ode_peer<OdeSpace::kHash, 3>},
    BroadPhaseEntry{"peer:ode-quadtree",
                    "ODE 0.16 dQuadTreeSpace (fixed x-y quadtree over the first frame's "
                    "bounds): dGeomSetPosition, dSpaceCollide; exact filter",
                    true, true, &make_ode_peer<OdeSpace::kQuadTree, 2>,
                    &make_ode_peer<OdeSpace::kQuadTree, 3>},
    BroadPhaseEntry{"peer:ode-sap",
                    "ODE 0.16 dSweepAndPruneSpace (radix sort on x, prune on y, z): "
                    "dGeomSetPosition, dSpaceCollide; exact filter",
                    true, true, &make_ode_peer<OdeSpace::kSap, 2>,
                    &make_ode_peer<OdeSpace::kSap, 3>},
#endif
#ifdef COLLIDOSCOPE_PEER_CHIPMUNK
    // Chipmunk2D: a dynamic index over a static one, as cpSpaceStep drives them.
    BroadPhaseEntry{"peer:chipmunk-hash",
                    "Chipmunk 7 cpSpaceHash as cpSpaceUseSpatialHash sets it (cell = mean "
                    "size, 10 cells per body): cpSpatialIndexReindexQuery; exact filter",
                    true, false, &make_chipmunk_peer<ChipmunkIndex::kHash>, nullptr},
    BroadPhaseEntry{"peer:chipmunk-bbtree",
                    "Chipmunk 7 cpBBTree as cpSpace uses it (velocity-fattened leaves, "
                    "cached pairs, static tree): cpSpatialIndexReindexQuery; exact filter",
                    true, false, &make_chipmunk_peer<ChipmunkIndex::kBBTree>, nullptr},
    BroadPhaseEntry{"peer:chipmunk-sweep1d",
                    "Chipmunk 7 cpSweep1D (sorted sweep on x) over a static cpSweep1D: "
                    "cpSpatialIndexReindexQuery; exact filter",
                    true, false, &make_chipmunk_peer<ChipmunkIndex::kSweep1D>, nullptr},
#endif
#ifdef COLLIDOSCOPE_PEER_BOX2D3
    BroadPhaseEntry{"peer:box2d3-tree",
                    "Box2D v3 b2DynamicTree as v3's b2BroadPhase drives it: static and dynamic "
                    "trees, margin min(0.125 x extent, cap), enlarge + move buffer, queries of "
                    "moved proxies, pair set, partial rebuild; exact filter "
                    "[" COLLIDOSCOPE_COMPILED_ISA "]",
                    true, false, &make_box2d3_tree_peer, nullptr},
#endif
#ifdef COLLIDOSCOPE_PEER_JOLT
    BroadPhaseEntry{"peer:jolt-quadtree",
                    "Jolt BroadPhaseQuadTree as PhysicsSystem drives it: moving and non-moving "
                    "layers, NotifyBodiesAABBChanged, UpdatePrepare/Finalize, "
                    "FindCollidingPairs of the active bodies; exact filter "
                    "[" COLLIDOSCOPE_PEER_JOLT_ISA "]",
                    false, true, nullptr, &make_jolt_quadtree_peer},
#endif
};

}  // namespace

std::span<const BroadPhaseEntry> references() {
    return kReferences;
}

const BroadPhaseEntry* find_subject(std::string_view name) {
    if (const BroadPhaseEntry* e = find_any_broadphase(name)) return e;
    return find_entry(kReferences, name);
}

template <int D>
std::unique_ptr<BroadPhase<D>> make_subject(std::string_view name) {
    return make_from<D>(find_subject(name));
}

template std::unique_ptr<BroadPhase<2>> make_subject<2>(std::string_view);
template std::unique_ptr<BroadPhase<3>> make_subject<3>(std::string_view);

}  // namespace collide::bench
