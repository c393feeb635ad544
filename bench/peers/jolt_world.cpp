// How Jolt's PhysicsSystem (Jolt/Physics/PhysicsSystem.cpp) drives BroadPhaseQuadTree, and
// what peer:jolt-quadtree keeps of it:
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
// then UpdatePrepare, FindCollidingPairs and UpdateFinalize. Our bodies are boxes, so each is
// a BoxShape of its half-sides with no convex radius (its bounds are the box), and no body
// sleeps (every non-static body stays active, as in a world where nothing rests).
// Only Jolt's types and plain arrays here (see jolt_world.hpp for why).
#include "jolt_world.hpp"

#include <Jolt/Jolt.h>

#include <Jolt/Core/Factory.h>
#include <Jolt/Physics/Body/Body.h>
#include <Jolt/Physics/Body/BodyCreationSettings.h>
#include <Jolt/Physics/Body/BodyManager.h>
#include <Jolt/Physics/Body/BodyPair.h>
#include <Jolt/Physics/Collision/BroadPhase/BroadPhaseQuadTree.h>
#include <Jolt/Physics/Collision/Shape/BoxShape.h>
#include <Jolt/RegisterTypes.h>

#include <mutex>
#include <optional>
#include <string_view>

#include "compiled_isa.hpp"

namespace collide::bench::jolt {

namespace {

// What --list says (COLLIDOSCOPE_PEER_JOLT_ISA, from Jolt's CMake options) must be what this
// file, compiled with Jolt's public flags, was built for.
static_assert(std::string_view(COLLIDOSCOPE_COMPILED_ISA) == COLLIDOSCOPE_PEER_JOLT_ISA);

constexpr JPH::ObjectLayer kNonMoving = 0;
constexpr JPH::ObjectLayer kMoving = 1;
constexpr JPH::BroadPhaseLayer kBroadNonMoving(0);
constexpr JPH::BroadPhaseLayer kBroadMoving(1);

class LayerInterface final : public JPH::BroadPhaseLayerInterface {
public:
    JPH::uint GetNumBroadPhaseLayers() const override { return 2; }
    JPH::BroadPhaseLayer GetBroadPhaseLayer(JPH::ObjectLayer layer) const override {
        return layer == kNonMoving ? kBroadNonMoving : kBroadMoving;
    }
#if defined(JPH_EXTERNAL_PROFILE) || defined(JPH_PROFILE_ENABLED)
    const char* GetBroadPhaseLayerName(JPH::BroadPhaseLayer layer) const override {
        return layer == kBroadNonMoving ? "non-moving" : "moving";
    }
#endif
};

class ObjectVsBroadPhase final : public JPH::ObjectVsBroadPhaseLayerFilter {
public:
    bool ShouldCollide(JPH::ObjectLayer layer, JPH::BroadPhaseLayer broad) const override {
        return layer == kMoving || broad == kBroadMoving;
    }
};

class ObjectPairs final : public JPH::ObjectLayerPairFilter {
public:
    bool ShouldCollide(JPH::ObjectLayer a, JPH::ObjectLayer b) const override {
        return a == kMoving || b == kMoving;
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

JPH::Vec3 vec(const float* v) {
    return {v[0], v[1], v[2]};
}

// A BoxShape of these half-sides with no convex radius: its bounds are the box.
JPH::RefConst<JPH::Shape> box_shape(const float* half) {
    JPH::BoxShapeSettings settings(vec(half), 0.0f);
    settings.SetEmbedded();  // on the stack: its reference count must not free it
    return settings.Create().Get();
}

class PairCollector final : public JPH::BodyPairCollector {
public:
    PairCollector(PairSink sink, void* context) : sink_(sink), context_(context) {}
    void AddHit(const JPH::BodyPair& p) override {
        sink_(context_, p.mBodyA.GetIndex(), p.mBodyB.GetIndex());
    }

private:
    PairSink sink_;
    void* context_;
};

class BodyCollector final : public JPH::CollideShapeBodyCollector {
public:
    BodyCollector(BodySink sink, void* context) : sink_(sink), context_(context) {}
    void AddHit(const JPH::BodyID& id) override { sink_(context_, id.GetIndex()); }

private:
    BodySink sink_;
    void* context_;
};

// A BodyManager and its broad phase, made and torn down together (the broad phase first).
struct Bodies {
    JPH::BodyManager manager;
    JPH::BroadPhaseQuadTree broad_phase;
};

JPH::BodyCreationSettings body_settings(const float* centre, const float* half, bool fixed) {
    JPH::BodyCreationSettings s(box_shape(half), vec(centre), JPH::Quat::sIdentity(),
                                fixed ? JPH::EMotionType::Static : JPH::EMotionType::Dynamic,
                                fixed ? kNonMoving : kMoving);
    s.mAllowSleeping = false;
    // Mass plays no part here; given, so that flat or empty boxes make valid bodies.
    s.mOverrideMassProperties = JPH::EOverrideMassProperties::MassAndInertiaProvided;
    s.mMassPropertiesOverride.mMass = 1.0f;
    return s;
}

}  // namespace

struct World::Impl {
    LayerInterface layer_interface;
    ObjectVsBroadPhase object_vs_broad_phase;
    ObjectPairs object_pairs;
    std::optional<Bodies> bodies;
    JPH::Array<JPH::BodyID> ids;      // per body (a body's index is its id in the bench)
    JPH::Array<JPH::BodyID> changed;  // bodies to notify
    JPH::Array<JPH::BodyID> active;   // FindCollidingPairs' copy of the active list
    JPH::Array<JPH::BodyID> batch, waking;  // remove() and add()'s lists
};

World::World() : impl_(std::make_unique<Impl>()) {
    register_jolt();
}

World::~World() = default;

std::size_t World::max_bodies() {
    return std::size_t{JPH::BodyID::cMaxBodyIndex} + 1;
}

void World::reset(const float* centres, const float* halves, const std::uint8_t* is_static,
                  std::uint32_t n) {
    Impl& w = *impl_;
    w.bodies.reset();
    w.bodies.emplace();
    w.bodies->manager.Init(n, 0, w.layer_interface);
    w.bodies->broad_phase.Init(&w.bodies->manager, w.layer_interface);
    w.ids.resize(n);
    w.changed.clear();
    w.active.clear();
    for (std::uint32_t i = 0; i < n; ++i) {
        const bool fixed = is_static[i] != 0;
        JPH::Body* body =
            w.bodies->manager.AllocateBody(body_settings(centres + 3 * i, halves + 3 * i, fixed));
        w.bodies->manager.AddBody(body);
        w.ids[i] = body->GetID();
        if (!fixed) w.active.push_back(w.ids[i]);
    }
    // PhysicsSystem's AddBodiesPrepare/Finalize, then BodyInterface activates them.
    JPH::Array<JPH::BodyID> adding = w.ids;
    auto state = w.bodies->broad_phase.AddBodiesPrepare(adding.data(), static_cast<int>(n));
    w.bodies->broad_phase.AddBodiesFinalize(adding.data(), static_cast<int>(n), state);
    w.bodies->manager.ActivateBodies(w.active.data(), static_cast<int>(w.active.size()));
}


void World::remove(const std::uint32_t* bodies, std::uint32_t count) {
    Impl& w = *impl_;
    w.batch.clear();
    for (std::uint32_t i = 0; i < count; ++i) w.batch.push_back(w.ids[bodies[i]]);
    w.bodies->manager.DeactivateBodies(w.batch.data(), static_cast<int>(count));
    w.bodies->broad_phase.RemoveBodies(w.batch.data(), static_cast<int>(count));
}

void World::add(const std::uint32_t* bodies, const float* centres, const float* halves,
                const std::uint8_t* is_static, std::uint32_t count) {
    Impl& w = *impl_;
    JPH::BodyManager& manager = w.bodies->manager;
    w.batch.clear();
    w.waking.clear();
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t index = bodies[i];
        const bool fixed = is_static[i] != 0;
        const float* centre = centres + 3 * i;
        const float* half = halves + 3 * i;
        JPH::BodyID& id = w.ids[index];
        JPH::Body* b = manager.GetBodies()[id.GetIndex()];
        if (b->IsStatic() != fixed) {
            manager.DestroyBodies(&id, 1);
            b = manager.AllocateBody(body_settings(centre, half, fixed));
            id = JPH::BodyID(index, static_cast<JPH::uint8>(id.GetSequenceNumber() + 1));
            manager.AddBodyWithCustomID(b, id);
        } else {
            b->SetShapeInternal(box_shape(half), false);
            b->SetPositionAndRotationInternal(vec(centre), JPH::Quat::sIdentity(), false);
        }
        w.batch.push_back(id);
        if (!fixed) w.waking.push_back(id);
    }
    auto state = w.bodies->broad_phase.AddBodiesPrepare(w.batch.data(), static_cast<int>(count));
    w.bodies->broad_phase.AddBodiesFinalize(w.batch.data(), static_cast<int>(count), state);
    manager.ActivateBodies(w.waking.data(), static_cast<int>(w.waking.size()));
}

void World::move(std::uint32_t body, const float* centre, const float* half, float tolerance) {
    Impl& w = *impl_;
    JPH::Body& b = *w.bodies->manager.GetBodies()[w.ids[body].GetIndex()];
    const auto& shape = static_cast<const JPH::BoxShape&>(*b.GetShape());
    if ((shape.GetHalfExtent() - vec(half)).Abs().ReduceMax() > tolerance)
        b.SetShapeInternal(box_shape(half), false);  // as BodyInterface::SetShape does
    b.SetPositionAndRotationInternal(vec(centre), JPH::Quat::sIdentity(), false);
    w.changed.push_back(w.ids[body]);
}

std::size_t World::step(float speculative, PairSink sink, void* context) {
    Impl& w = *impl_;
    JPH::BroadPhaseQuadTree& bp = w.bodies->broad_phase;
    bp.FrameSync();
    bp.LockModifications();
    const std::size_t moved = w.changed.size();
    bp.NotifyBodiesAABBChanged(w.changed.data(), static_cast<int>(moved), false);
    w.changed.clear();
    const JPH::BroadPhase::UpdateState state = bp.UpdatePrepare();
    // PhysicsSystem hands FindCollidingPairs a copy of the active list (it reorders it).
    const JPH::uint count = w.bodies->manager.GetNumActiveBodies(JPH::EBodyType::RigidBody);
    if (count > 0) {
        const JPH::BodyID* list =
            w.bodies->manager.GetActiveBodiesUnsafe(JPH::EBodyType::RigidBody);
        w.active.assign(list, list + count);
        PairCollector collect(sink, context);
        bp.FindCollidingPairs(w.active.data(), static_cast<int>(count), speculative,
                              w.object_vs_broad_phase, w.object_pairs, collect);
    }
    bp.UpdateFinalize(state);
    bp.UnlockModifications();
    return moved;
}

void World::query(const float* lo, const float* hi, BodySink sink, void* context) const {
    if (!impl_->bodies) return;
    BodyCollector collect(sink, context);
    impl_->bodies->broad_phase.CollideAABox(JPH::AABox(vec(lo), vec(hi)), collect, {}, {});
}

std::size_t World::bytes() const {
    const std::size_t n = impl_->ids.size();
    // BroadPhaseQuadTree::Init's node pool: 2 x (leaves + leaves / 3) nodes for n / 2 leaves,
    // 128 bytes each (4 children's boxes, ids, parent, flags); then the bodies and shapes.
    const std::size_t leaves = (n + 1) / 2;
    return 2 * (leaves + (leaves + 2) / 3) * 128 + n * (sizeof(JPH::Body) + sizeof(JPH::BoxShape)) +
           (impl_->ids.capacity() + impl_->changed.capacity() + impl_->active.capacity()) *
               sizeof(JPH::BodyID);
}

}  // namespace collide::bench::jolt
