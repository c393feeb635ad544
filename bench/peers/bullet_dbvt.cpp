// How a btCollisionWorld uses btDbvtBroadphase, and what this peer keeps of it:
// - every body is a proxy made by createProxy; static bodies in the static filter group
//   with a mask that leaves out that group, so no static-static pair enters the cache;
// - each frame setAabb is called for every body whose box changed (how Bullet moves a
//   proxy: the leaf is re-inserted, fattened by the library's margin, only when the new
//   box left it), then calculateOverlappingPairs with a dispatcher;
// - with deferred collide (m_deferedcollide, a toggle here, on by default) setAabb only
//   marks the leaf and calculateOverlappingPairs collides the whole dynamic tree with
//   itself and with the fixed tree; off, each re-inserted leaf is collided as it moves;
// - the btHashedOverlappingPairCache keeps the pairs between frames and drops those whose
//   leaves parted in its clean-up; the peer reads the whole cache each frame and keeps the
//   pairs whose real boxes overlap (that filter is counted in the frame's time).
// The library margin (gDbvtMargin, 0.05) is scaled to our bodies; see peer_scale.hpp.
// Fed changes (update_changes), it does what btCollisionWorld does as objects come and go
// (removeCollisionObject: destroyProxy, which drops the proxy's pairs from the cache;
// addCollisionObject: createProxy, in the static group for a still body) and calls setAabb
// for the moving bodies alone.
#include "bullet_dbvt.hpp"

#include <array>
#include <cstdint>
#include <optional>

#include <btBulletCollisionCommon.h>

#include "peer_changes.hpp"
#include "peer_scale.hpp"

namespace collide::bench {

namespace {

// The broad phase and its pair cache, made and torn down together.
class DbvtWorld {
public:
    explicit DbvtWorld(bool deferred) { broadphase_.m_deferedcollide = deferred; }
    ~DbvtWorld() {
        // destroyProxy searches the pair cache for each proxy's pairs; the whole cache goes
        // anyway, so point the broad phase at an empty one first.
        broadphase_.m_paircache = &no_pairs_;
        for (btBroadphaseProxy* p : proxies_)
            if (p != nullptr) broadphase_.destroyProxy(p, nullptr);
    }
    DbvtWorld(const DbvtWorld&) = delete;
    DbvtWorld& operator=(const DbvtWorld&) = delete;

    btDbvtBroadphase& broadphase() { return broadphase_; }
    const btDbvtBroadphase& broadphase() const { return broadphase_; }
    btHashedOverlappingPairCache& cache() { return cache_; }
    std::vector<btBroadphaseProxy*>& proxies() { return proxies_; }

private:
    btNullPairCache no_pairs_;
    btHashedOverlappingPairCache cache_;
    btDbvtBroadphase broadphase_{&cache_};
    std::vector<btBroadphaseProxy*> proxies_;  // per body (null: none); owned by the broad phase
};

template <int D>
class BulletDbvtPeer final : public BroadPhase<D> {
public:
    BulletDbvtPeer() : dispatcher_(&config_) {}

    void update_whole(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                      PairList& out) override;
    void update_changes(const BodyChanges<D>& changes, PairList& out) override;
    void search(const Aabb<D>& region, std::vector<BodyId>& out,
                QueryTrace<D>* trace = nullptr) const override;
    BroadPhaseStats stats() const override;
    std::span<Param> params() override { return params_; }

private:
    float margin() const { return params_[Setting::kMargin].as_real(); }
    bool deferred() const { return params_[Setting::kDeferredCollide].is_on(); }
    std::pair<btVector3, btVector3> scaled(const Aabb<D>& b) const {
        const float z0 = D == 3 ? b.lo[D - 1] * scale_ : 0.0f;
        const float z1 = D == 3 ? b.hi[D - 1] * scale_ : 0.0f;
        return {btVector3(b.lo[0] * scale_, b.lo[1] * scale_, z0),
                btVector3(b.hi[0] * scale_, b.hi[1] * scale_, z1)};
    }
    static BodyId id_of(const btBroadphaseProxy* p) {
        return static_cast<BodyId>(reinterpret_cast<std::uintptr_t>(p->m_clientObject));
    }
    // Every body anew; fed changes, only the present ones (`changes`).
    void rebuild(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                 const PeerChanges* changes = nullptr);
    void create_proxy(BodyId id, const Aabb<D>& box);
    void set_aabb(BodyId id, const Aabb<D>& box);
    // calculateOverlappingPairs, then the cache's pairs whose real boxes overlap.
    void collide(std::span<const Aabb<D>> boxes, PairList& out);

    // The dispatcher is only handed through (no collision algorithms are ever made).
    btDefaultCollisionConfiguration config_;
    btCollisionDispatcher dispatcher_;
    std::optional<DbvtWorld> world_;
    float scale_ = 1;
    float built_margin_ = -1;
    bool built_deferred_ = false;
    std::vector<Aabb<D>> boxes_;  // as of the last update, unscaled
    std::vector<std::uint8_t> static_;
    std::vector<float> scratch_;
    PeerChanges changes_;     // fed changes: who is present, moving or still
    std::size_t absent_ = 0;  // bodies with no proxy: fed changes only
    BroadPhaseStats stats_;
    // The places of the parameters in params_, in its order; kCount is how many.
    enum Setting : std::uint8_t { kMargin, kDeferredCollide, kCount };
    std::array<Param, Setting::kCount> params_ = {{
        Param::real("margin", 0.5f, 0.01f, 4.0f),
        Param::toggle("deferred collide", true),
    }};
};

template <int D>
void BulletDbvtPeer<D>::rebuild(std::span<const Aabb<D>> boxes,
                                std::span<const std::uint8_t> is_static,
                                const PeerChanges* changes) {
    world_.reset();
    world_.emplace(deferred());
    built_margin_ = margin();
    built_deferred_ = deferred();
    scale_ = peer_scale<D>(boxes, margin(), gDbvtMargin, scratch_);
    boxes_.assign(boxes.begin(), boxes.end());
    static_.assign(is_static.begin(), is_static.end());
    world_->proxies().assign(boxes.size(), nullptr);
    absent_ = add_present(boxes.size(), changes, [&](BodyId i) { create_proxy(i, boxes[i]); });
    stats_.reinserted = boxes.size() - absent_;
}

template <int D>
void BulletDbvtPeer<D>::create_proxy(BodyId id, const Aabb<D>& box) {
    const auto [lo, hi] = scaled(box);
    const int group =
        static_[id] ? btBroadphaseProxy::StaticFilter : btBroadphaseProxy::DefaultFilter;
    const int mask = static_[id] ? btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter
                                 : btBroadphaseProxy::AllFilter;
    boxes_[id] = box;
    world_->proxies()[id] = world_->broadphase().createProxy(
        lo, hi, BOX_SHAPE_PROXYTYPE, reinterpret_cast<void*>(std::uintptr_t{id}), group, mask,
        &dispatcher_);
}

template <int D>
void BulletDbvtPeer<D>::set_aabb(BodyId id, const Aabb<D>& box) {
    if (box.lo == boxes_[id].lo && box.hi == boxes_[id].hi) return;
    boxes_[id] = box;
    const auto [lo, hi] = scaled(box);
    world_->broadphase().setAabb(world_->proxies()[id], lo, hi, &dispatcher_);
}

template <int D>
void BulletDbvtPeer<D>::update_whole(std::span<const Aabb<D>> boxes,
                                     std::span<const std::uint8_t> is_static, PairList& out) {
    out.clear();
    if (!world_ || !same_bodies(is_static, static_) || margin() != built_margin_ ||
        deferred() != built_deferred_ || absent_ > 0) {
        rebuild(boxes, is_static);
    } else {
        // Bullet counts the leaves setAabb re-inserted (it halves the count in each collide).
        const unsigned done_before = world_->broadphase().m_updates_done;
        for (BodyId i = 0; i < boxes.size(); ++i) set_aabb(i, boxes[i]);
        stats_.reinserted = world_->broadphase().m_updates_done - done_before;
    }
    collide(boxes, out);
}

template <int D>
void BulletDbvtPeer<D>::update_changes(const BodyChanges<D>& c, PairList& out) {
    changes_.read_for(c, static_cast<bool>(world_), "peer:bullet-dbvt");
    out.clear();
    const std::size_t n = c.boxes.size();
    if (c.reset || n != boxes_.size() || margin() != built_margin_ ||
        deferred() != built_deferred_) {
        rebuild(c.boxes, changes_.still_flags(c.boxes.size()), &changes_);
    } else {
        auto& proxies = world_->proxies();
        for (const BodyId id : changes_.departed()) {
            world_->broadphase().destroyProxy(proxies[id], &dispatcher_);
            proxies[id] = nullptr;
            ++absent_;
        }
        for (const BodyId id : changes_.arrived()) {
            static_[id] = changes_.still(id);
            create_proxy(id, c.boxes[id]);
            --absent_;
        }
        const unsigned done_before = world_->broadphase().m_updates_done;
        for (const BodyId id : c.moving) set_aabb(id, c.boxes[id]);
        stats_.reinserted =
            changes_.arrived().size() + (world_->broadphase().m_updates_done - done_before);
    }
    collide(c.boxes, out);
}

template <int D>
void BulletDbvtPeer<D>::collide(std::span<const Aabb<D>> boxes, PairList& out) {
    world_->broadphase().calculateOverlappingPairs(&dispatcher_);

    const btBroadphasePairArray& pairs = world_->cache().getOverlappingPairArray();
    for (int i = 0; i < pairs.size(); ++i) {
        const BodyId a = id_of(pairs[i].m_pProxy0);
        const BodyId b = id_of(pairs[i].m_pProxy1);
        if (boxes[a].overlaps(boxes[b])) out.push_back(make_pair(a, b));
    }

    const btDbvtBroadphase& bp = world_->broadphase();
    stats_.candidate_tests = static_cast<std::uint64_t>(pairs.size());
    const auto tree_nodes =
        static_cast<std::size_t>(2 * (bp.m_sets[0].m_leaves + bp.m_sets[1].m_leaves));
    stats_.nodes = tree_nodes;
    // Bullet's pools are private: an estimate from the counts (nodes, proxies, pair array
    // and its hash table of two ints per slot).
    stats_.structure_bytes =
        tree_nodes * sizeof(btDbvtNode) + (boxes.size() - absent_) * sizeof(btDbvtProxy) +
        static_cast<std::size_t>(pairs.capacity()) * (sizeof(btBroadphasePair) + 2 * sizeof(int)) +
        boxes_.capacity() * sizeof(Aabb<D>) + world_->proxies().capacity() * sizeof(void*);
}

template <int D>
BroadPhaseStats BulletDbvtPeer<D>::stats() const {
    BroadPhaseStats s = stats_;
    // A walk over every node: done here, outside the timed update.
    if (world_) {
        const btDbvtBroadphase& bp = world_->broadphase();
        s.depth =
            std::max(btDbvt::maxdepth(bp.m_sets[0].m_root), btDbvt::maxdepth(bp.m_sets[1].m_root));
    }
    return s;
}

template <int D>
void BulletDbvtPeer<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                               QueryTrace<D>*) const {
    out.clear();
    if (!world_) return;
    struct Collect : btBroadphaseAabbCallback {
        Collect(const std::vector<Aabb<D>>& b, const Aabb<D>& r, std::vector<BodyId>& o)
            : boxes(b), region(r), out(o) {}
        bool process(const btBroadphaseProxy* proxy) override {
            const BodyId id = id_of(proxy);
            if (boxes[id].overlaps(region)) out.push_back(id);
            return true;
        }
        const std::vector<Aabb<D>>& boxes;
        const Aabb<D>& region;
        std::vector<BodyId>& out;
    } collect(boxes_, region, out);
    const auto [lo, hi] = scaled(region);
    // aabbTest is not const in Bullet, though it changes nothing.
    const_cast<btDbvtBroadphase&>(world_->broadphase()).aabbTest(lo, hi, collect);
}

}  // namespace

template <int D>
std::unique_ptr<BroadPhase<D>> make_bullet_dbvt_peer() {
    return std::make_unique<BulletDbvtPeer<D>>();
}

template std::unique_ptr<BroadPhase<2>> make_bullet_dbvt_peer<2>();
template std::unique_ptr<BroadPhase<3>> make_bullet_dbvt_peer<3>();

}  // namespace collide::bench
