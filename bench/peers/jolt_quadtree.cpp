// How Jolt's PhysicsSystem (Jolt/Physics/PhysicsSystem.cpp) drives BroadPhaseQuadTree, and
// what this peer keeps of it:
// - bodies live in a BodyManager; a BroadPhaseLayerInterface maps the object layers to two
//   broad-phase layers, each its own quadtree: non-moving (static bodies) and moving; the
//   layer filters let moving bodies meet both layers and static bodies never meet static
//   ones; bodies enter with AddBodiesPrepare/AddBodiesFinalize, all at once;
// - Update(), one collision step: FrameSync, LockModifications, UpdatePrepare (builds the new
//   top of the trees whose bodies moved, running beside the next item), FindCollidingPairs
//   for every active body (each queries, with its bounds grown by the speculative contact
//   distance, the trees its layer may meet; a pair of two active bodies is reported once),
//   UpdateFinalize (swaps in the rebuilt trees), then the integration moves the bodies,
//   recomputes their bounds and calls NotifyBodiesAABBChanged (the leaf gets the new bounds,
//   its ancestors grow to hold it), and UnlockModifications.
// The peer's frame is the end of one step and the start of the next: the bodies whose box
// changed are moved (SetPositionAndRotationInternal recomputes their bounds) and notified,
// then UpdatePrepare, FindCollidingPairs and UpdateFinalize, with a pair collector that keeps
// the pairs whose real boxes overlap; all of it in the frame's time. Our bodies are boxes, so
// each is a BoxShape of its half-sides with no convex radius (its bounds are the box), and no
// body sleeps (every non-static body stays active, as in a world where nothing rests). The
// speculative distance (Jolt's default 0.02 m; one metre taken as five median radii, as the
// Box2D peers do) also covers the rounding of Jolt's centre-and-extent bounds.
#include "jolt_quadtree.hpp"

#include <Jolt/Jolt.h>

#include <Jolt/Core/Factory.h>
#include <Jolt/Physics/Body/Body.h>
#include <Jolt/Physics/Body/BodyCreationSettings.h>
#include <Jolt/Physics/Body/BodyManager.h>
#include <Jolt/Physics/Body/BodyPair.h>
#include <Jolt/Physics/Collision/BroadPhase/BroadPhaseQuadTree.h>
#include <Jolt/Physics/Collision/Shape/BoxShape.h>
#include <Jolt/RegisterTypes.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "compiled_isa.hpp"
#include "peer_scale.hpp"

namespace collide::bench {

namespace {

// What --list says (COLLIDOSCOPE_PEER_JOLT_ISA, from Jolt's CMake options) must be what this
// file, compiled with Jolt's public flags, was built for.
static_assert(std::string_view(COLLIDOSCOPE_COMPILED_ISA) == COLLIDOSCOPE_PEER_JOLT_ISA);

namespace layers {
constexpr JPH::ObjectLayer kNonMoving = 0;
constexpr JPH::ObjectLayer kMoving = 1;
constexpr JPH::BroadPhaseLayer kBroadNonMoving(0);
constexpr JPH::BroadPhaseLayer kBroadMoving(1);
}  // namespace layers

class LayerInterface final : public JPH::BroadPhaseLayerInterface {
public:
    JPH::uint GetNumBroadPhaseLayers() const override { return 2; }
    JPH::BroadPhaseLayer GetBroadPhaseLayer(JPH::ObjectLayer layer) const override {
        return layer == layers::kNonMoving ? layers::kBroadNonMoving : layers::kBroadMoving;
    }
#if defined(JPH_EXTERNAL_PROFILE) || defined(JPH_PROFILE_ENABLED)
    const char* GetBroadPhaseLayerName(JPH::BroadPhaseLayer layer) const override {
        return layer == layers::kBroadNonMoving ? "non-moving" : "moving";
    }
#endif
};

class ObjectVsBroadPhase final : public JPH::ObjectVsBroadPhaseLayerFilter {
public:
    bool ShouldCollide(JPH::ObjectLayer layer, JPH::BroadPhaseLayer broad) const override {
        return layer == layers::kMoving || broad == layers::kBroadMoving;
    }
};

class ObjectPairs final : public JPH::ObjectLayerPairFilter {
public:
    bool ShouldCollide(JPH::ObjectLayer a, JPH::ObjectLayer b) const override {
        return a == layers::kMoving || b == layers::kMoving;
    }
};

// Jolt's allocator, factory and types, registered once for the process.
void register_jolt() {
    static std::once_flag once;
    std::call_once(once, [] {
        JPH::RegisterDefaultAllocator();
        static JPH::Factory factory;
        JPH::Factory::sInstance = &factory;
        JPH::RegisterTypes();
    });
}

// A BodyManager and its broad phase, made and torn down together (the broad phase first).
struct JoltWorld {
    JPH::BodyManager bodies;
    JPH::BroadPhaseQuadTree broad_phase;
};

class JoltQuadtreePeer final : public BroadPhase<3> {
public:
    JoltQuadtreePeer() { register_jolt(); }

    void update(std::span<const Aabb<3>> boxes, std::span<const std::uint8_t> is_static,
                PairList& out) override;
    void query(const Aabb<3>& region, std::vector<BodyId>& out,
               QueryTrace<3>* trace = nullptr) const override;
    BroadPhaseStats stats() const override { return stats_; }
    std::span<Param> params() override { return params_; }

private:
    // Keeps the pairs FindCollidingPairs reports whose real boxes overlap.
    class Collector final : public JPH::BodyPairCollector {
    public:
        Collector(std::span<const Aabb<3>> boxes, PairList& out) : boxes_(boxes), out_(out) {}
        void AddHit(const JPH::BodyPair& p) override {
            const auto a = static_cast<BodyId>(p.mBodyA.GetIndex());
            const auto b = static_cast<BodyId>(p.mBodyB.GetIndex());
            if (boxes_[a].overlaps(boxes_[b])) out_.push_back(make_pair(a, b));
        }

    private:
        std::span<const Aabb<3>> boxes_;
        PairList& out_;
    };

    void rebuild(std::span<const Aabb<3>> boxes, std::span<const std::uint8_t> is_static);
    // Moves the bodies whose box changed (and gives a new shape to those whose box changed size).
    void move(std::span<const Aabb<3>> boxes);

    LayerInterface layer_interface_;
    ObjectVsBroadPhase object_vs_broad_phase_;
    ObjectPairs object_pairs_;
    std::optional<JoltWorld> world_;
    float speculative_ = 0;  // in our units
    float built_param_ = -1;
    std::vector<Aabb<3>> boxes_;  // as of the last update
    std::vector<std::uint8_t> static_;
    std::vector<JPH::BodyID> ids_;      // per body (its index is the body's id)
    std::vector<JPH::BodyID> changed_;  // bodies to notify
    std::vector<JPH::BodyID> active_;   // FindCollidingPairs' copy of the active list
    std::vector<float> scratch_;
    BroadPhaseStats stats_;
    std::array<Param, 1> params_ = {{{"speculative", 0.1f, 0.001f, 4.0f}}};
};

JPH::Vec3 half_size(const Aabb<3>& b) {
    const Vec<3> h = 0.5f * b.size();
    return {h.x, h.y, h.z};
}

JPH::RVec3 centre(const Aabb<3>& b) {
    const Vec<3> c = b.center();
    return {c.x, c.y, c.z};
}

// A BoxShape of the box's half-sides with no convex radius: its bounds are the box.
JPH::RefConst<JPH::Shape> box_shape(const Aabb<3>& b) {
    JPH::BoxShapeSettings settings(half_size(b), 0.0f);
    settings.SetEmbedded();  // on the stack: its reference count must not free it
    return settings.Create().Get();
}

void JoltQuadtreePeer::rebuild(std::span<const Aabb<3>> boxes,
                               std::span<const std::uint8_t> is_static) {
    world_.reset();
    world_.emplace();
    const auto n = static_cast<JPH::uint>(boxes.size());
    world_->bodies.Init(n, 0, layer_interface_);
    world_->broad_phase.Init(&world_->bodies, layer_interface_);
    built_param_ = params_[0].value;
    speculative_ = params_[0].value * median_radius<3>(boxes, scratch_);
    boxes_.assign(boxes.begin(), boxes.end());
    static_.assign(is_static.begin(), is_static.end());
    ids_.resize(n);
    active_.clear();
    for (JPH::uint i = 0; i < n; ++i) {
        const bool fixed = static_[i] != 0;
        JPH::BodyCreationSettings s(box_shape(boxes[i]), centre(boxes[i]), JPH::Quat::sIdentity(),
                                    fixed ? JPH::EMotionType::Static : JPH::EMotionType::Dynamic,
                                    fixed ? layers::kNonMoving : layers::kMoving);
        s.mAllowSleeping = false;
        // Mass plays no part here; given, so that flat or empty boxes make valid bodies.
        s.mOverrideMassProperties = JPH::EOverrideMassProperties::MassAndInertiaProvided;
        s.mMassPropertiesOverride.mMass = 1.0f;
        JPH::Body* body = world_->bodies.AllocateBody(s);
        world_->bodies.AddBody(body);
        ids_[i] = body->GetID();
        if (!fixed) active_.push_back(ids_[i]);
    }
    // PhysicsSystem::AddBodiesPrepare/Finalize, then BodyInterface activates them.
    std::vector<JPH::BodyID> adding = ids_;
    auto state = world_->broad_phase.AddBodiesPrepare(adding.data(), static_cast<int>(n));
    world_->broad_phase.AddBodiesFinalize(adding.data(), static_cast<int>(n), state);
    world_->bodies.ActivateBodies(active_.data(), static_cast<int>(active_.size()));
    stats_.reinserted = n;
}

void JoltQuadtreePeer::move(std::span<const Aabb<3>> boxes) {
    changed_.clear();
    const JPH::BodyVector& bodies = world_->bodies.GetBodies();
    // Sizes recomputed from moved corners differ in the last bits; a body gets a new shape
    // (as BodyInterface::SetShape does it) only past a quarter of the speculative distance,
    // which the query's growth then still covers on both sides.
    const float tolerance = 0.25f * speculative_;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const Aabb<3>& b = boxes[i];
        if (b.lo == boxes_[i].lo && b.hi == boxes_[i].hi) continue;
        boxes_[i] = b;
        JPH::Body& body = *bodies[ids_[i].GetIndex()];
        const auto& shape = static_cast<const JPH::BoxShape&>(*body.GetShape());
        if ((shape.GetHalfExtent() - half_size(b)).Abs().ReduceMax() > tolerance)
            body.SetShapeInternal(box_shape(b), false);
        body.SetPositionAndRotationInternal(centre(b), JPH::Quat::sIdentity(), false);
        changed_.push_back(ids_[i]);
    }
    world_->broad_phase.NotifyBodiesAABBChanged(changed_.data(), static_cast<int>(changed_.size()),
                                                false);
    stats_.reinserted = changed_.size();
}

void JoltQuadtreePeer::update(std::span<const Aabb<3>> boxes,
                              std::span<const std::uint8_t> is_static, PairList& out) {
    out.clear();
    if (boxes.empty()) {  // a BodyManager needs room for at least one body
        world_.reset();
        static_.clear();
        return;
    }
    const bool fresh =
        !world_ || !same_bodies(is_static, static_) || params_[0].value != built_param_;
    if (fresh) rebuild(boxes, is_static);
    JPH::BroadPhaseQuadTree& bp = world_->broad_phase;
    bp.FrameSync();
    bp.LockModifications();
    if (!fresh) move(boxes);
    const JPH::BroadPhase::UpdateState state = bp.UpdatePrepare();
    // PhysicsSystem hands FindCollidingPairs a copy of the active list (it reorders it).
    const JPH::uint count = world_->bodies.GetNumActiveBodies(JPH::EBodyType::RigidBody);
    if (count > 0) {
        const JPH::BodyID* list = world_->bodies.GetActiveBodiesUnsafe(JPH::EBodyType::RigidBody);
        active_.assign(list, list + count);
        Collector collect(boxes, out);
        bp.FindCollidingPairs(active_.data(), static_cast<int>(active_.size()), speculative_,
                              object_vs_broad_phase_, object_pairs_, collect);
    }
    bp.UpdateFinalize(state);
    bp.UnlockModifications();

    stats_.candidate_tests = 0;  // Jolt's pair tests happen inside FindCollidingPairs
    stats_.nodes = boxes.size();
    // Jolt's node pool (BroadPhaseQuadTree::Init): 2 x (leaves + leaves / 3) nodes for n / 2
    // leaves, 128 bytes each (4 children's boxes, ids, parent, flags; private to Jolt).
    const std::size_t leaves = (boxes.size() + 1) / 2;
    stats_.structure_bytes =
        2 * (leaves + (leaves + 2) / 3) * 128 +
        boxes.size() * (sizeof(JPH::Body) + sizeof(JPH::BoxShape)) +
        boxes_.capacity() * sizeof(Aabb<3>) +
        (ids_.capacity() + changed_.capacity() + active_.capacity()) * sizeof(JPH::BodyID);
}

void JoltQuadtreePeer::query(const Aabb<3>& region, std::vector<BodyId>& out,
                             QueryTrace<3>*) const {
    out.clear();
    if (!world_) return;
    class Collect final : public JPH::CollideShapeBodyCollector {
    public:
        Collect(const std::vector<Aabb<3>>& boxes, const Aabb<3>& region, std::vector<BodyId>& out)
            : boxes_(boxes), region_(region), out_(out) {}
        void AddHit(const JPH::BodyID& id) override {
            const auto body = static_cast<BodyId>(id.GetIndex());
            if (boxes_[body].overlaps(region_)) out_.push_back(body);
        }

    private:
        const std::vector<Aabb<3>>& boxes_;
        const Aabb<3>& region_;
        std::vector<BodyId>& out_;
    } collect(boxes_, region, out);
    const JPH::AABox box(JPH::Vec3(region.lo.x, region.lo.y, region.lo.z),
                         JPH::Vec3(region.hi.x, region.hi.y, region.hi.z));
    world_->broad_phase.CollideAABox(box, collect, {}, {});
}

}  // namespace

std::unique_ptr<BroadPhase<3>> make_jolt_quadtree_peer() {
    return std::make_unique<JoltQuadtreePeer>();
}

}  // namespace collide::bench
