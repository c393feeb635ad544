#include "subjects.hpp"

#include <array>

#include "floor.hpp"
#ifdef COLLIDOSCOPE_PEER_BOX2D
#include "peers/box2d_tree.hpp"
#endif
#ifdef COLLIDOSCOPE_PEER_BULLET
#include "peers/bullet_dbvt.hpp"
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

bool param_matches(std::string_view param_name, std::string_view given) {
    if (param_name.size() != given.size()) return false;
    for (std::size_t i = 0; i < given.size(); ++i) {
        const char g = given[i] == '-' || given[i] == '_' ? ' ' : given[i];
        if (g != param_name[i]) return false;
    }
    return true;
}

std::span<const BroadPhaseEntry> references() {
    return kReferences;
}

const BroadPhaseEntry* find_subject(std::string_view name) {
    if (const BroadPhaseEntry* e = find_broadphase(name)) return e;
    return find_entry(kReferences, name);
}

template <int D>
std::unique_ptr<BroadPhase<D>> make_subject(std::string_view name) {
    return make_from<D>(find_subject(name));
}

template std::unique_ptr<BroadPhase<2>> make_subject<2>(std::string_view);
template std::unique_ptr<BroadPhase<3>> make_subject<3>(std::string_view);

}  // namespace collide::bench
