#include "subjects.hpp"

#include <array>

#include "floor.hpp"
#ifdef COLLIDOSCOPE_PEER_BOX2D
#include "peers/box2d_tree.hpp"
#endif
#ifdef COLLIDOSCOPE_PEER_BULLET
#include "peers/bullet_dbvt.hpp"
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
};

}  // namespace

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
