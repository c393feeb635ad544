// How cpSpace drives its spatial indexes, and what this peer keeps of it. The peer uses
// the cpSpatialIndex API directly, with its own objects in place of cpShapes, making
// exactly the calls cpSpace makes:
// - two indexes of one kind: the static one, and the dynamic one made with the static one
//   as its staticIndex (cpSpaceInit for the tree, cpSpaceUseSpatialHash for the hash; for
//   the sweep the same pair). Static bodies go in the static index only, so no
//   static-static pair is ever looked for;
// - the bb of every object comes from a bbfunc reading the object's cached bb, which the
//   peer refreshes for every moving body each frame (cpShapeUpdateFunc over the dynamic
//   shapes), then one cpSpatialIndexReindexQuery on the dynamic index: it re-indexes the
//   moving objects, reports the candidate pairs among them and, through
//   cpSpatialIndexCollideStatic (or the tree's own static pass), against the static ones.
//   The query callback (cpSpaceCollideShapes there) applies our closed-interval test to
//   the float boxes and records the pair with a < b;
// - the tree, as in cpSpaceInit, has a velocity func (cpBody's v): a re-inserted leaf is
//   fattened by 10% of its size and by 0.1 s of its velocity, and leaves whose box stays
//   inside their fat box keep their cached pairs. The velocity is the centre's
//   displacement since the last frame over the world's 1/60 s step;
// - the hash, as the Chipmunk manual advises for cpSpaceUseSpatialHash: cell dim the mean
//   body size (largest side) and about 10 cells per body (the "cells per body" parameter),
//   fixed when the indexes are built; cpSpaceHash clears its whole table every frame;
// - a static body whose box changes is re-indexed with cpSpatialIndexReindexObject (what
//   cpSpaceReindexShape does); in the bench they never move.
// Fed changes (update_changes), it does what cpSpace does as shapes come, go, sleep and wake
// (cpSpaceRemoveShape, cpSpaceAddShape, cpSpaceActivateBody): a body that leaves is removed
// from its index, one that arrives is inserted in the static index (still) or the dynamic
// one (moving), and only the moving bodies' bbs are refreshed.
#include "chipmunk_index.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

#include <chipmunk/chipmunk.h>

#include "peer_changes.hpp"
#include "peer_scale.hpp"

namespace collide::bench {

namespace {

constexpr double kStepSeconds = 1.0 / 60.0;  // WorldSettings::dt

// What cpShape is to cpSpace: the cached bb the bbfunc returns, and its body's velocity.
struct Object {
    cpBB bb;
    cpVect v;
};

cpBB object_bb(void* obj) {
    return static_cast<Object*>(obj)->bb;
}
cpVect object_velocity(void* obj) {
    return static_cast<Object*>(obj)->v;
}
cpBB to_bb(const Aabb<2>& b) {
    return cpBBNew(b.lo.x, b.lo.y, b.hi.x, b.hi.y);
}

struct IndexDeleter {
    void operator()(cpSpatialIndex* index) const { cpSpatialIndexFree(index); }
};
using IndexPtr = std::unique_ptr<cpSpatialIndex, IndexDeleter>;

template <ChipmunkIndex I>
class ChipmunkPeer final : public BroadPhase<2> {
public:
    void update_whole(std::span<const Aabb<2>> boxes, std::span<const std::uint8_t> is_static,
                      PairList& out) override;
    void update_changes(const BodyChanges<2>& changes, PairList& out) override;
    void search(const Aabb<2>& region, std::vector<BodyId>& out,
                QueryTrace<2>* trace = nullptr) const override;
    BroadPhaseStats stats() const override { return stats_; }
    std::span<Param> params() override {
        if constexpr (I == ChipmunkIndex::kHash) return params_;
        return {};
    }

private:
    float cells_per_body() const { return params_[Setting::kCellsPerBody].as_real(); }
    static cpCollisionID collide(void* obj1, void* obj2, cpCollisionID id, void* data);
    cpSpatialIndex* make_index(std::span<const Aabb<2>> boxes, cpSpatialIndex* static_index);
    // Every body anew; fed changes, only the present ones (`changes`).
    void rebuild(std::span<const Aabb<2>> boxes, std::span<const std::uint8_t> is_static,
                 const PeerChanges* changes = nullptr);
    cpSpatialIndex* index_of(BodyId id) const {
        return static_[id] ? static_index_.get() : dynamic_index_.get();
    }
    // Puts body id, at rest in `box`, in the index its static flag names.
    void insert(BodyId id, const Aabb<2>& box);
    // Refreshes a moving body's cached bb and velocity, as cpShapeUpdateFunc does.
    void refresh(BodyId id, const Aabb<2>& box);
    // One cpSpatialIndexReindexQuery on the dynamic index, the pairs into `out`.
    void collide_all(PairList& out);
    BodyId id_of(const void* obj) const {
        return static_cast<BodyId>(static_cast<const Object*>(obj) - objects_.data());
    }

    // The dynamic index refers to the static one: declared after it, freed first.
    IndexPtr static_index_;
    IndexPtr dynamic_index_;
    std::vector<Object> objects_;  // per body; the indexes hold pointers into it
    std::vector<Aabb<2>> boxes_;   // as of the last update
    std::vector<std::uint8_t> static_;
    PairList* out_ = nullptr;
    std::uint64_t candidates_ = 0;
    float built_cells_ = -1;
    PeerChanges changes_;     // fed changes: who is present, moving or still
    std::size_t absent_ = 0;  // bodies in no index: fed changes only
    BroadPhaseStats stats_;
    // The places of the parameters in params_, in its order; kCount is how many.
    enum Setting : std::uint8_t { kCellsPerBody, kCount };
    std::array<Param, Setting::kCount> params_ = {{
        Param::real("cells per body", 10.0f, 0.5f, 20.0f),
    }};
};

template <ChipmunkIndex I>
cpSpatialIndex* ChipmunkPeer<I>::make_index(std::span<const Aabb<2>> boxes,
                                            cpSpatialIndex* static_index) {
    if constexpr (I == ChipmunkIndex::kHash) {
        double sum = 0;
        for (const Aabb<2>& b : boxes) sum += b.largest_side();
        const double dim = boxes.empty() || !(sum > 0) ? 1.0 : sum / double(boxes.size());
        const double cells = std::min(double(cells_per_body()) * double(boxes.size()) + 1, 1e9);
        built_cells_ = cells_per_body();
        return cpSpaceHashNew(dim, static_cast<int>(cells), object_bb, static_index);
    } else if constexpr (I == ChipmunkIndex::kBBTree) {
        cpSpatialIndex* tree = cpBBTreeNew(object_bb, static_index);
        if (static_index != nullptr) cpBBTreeSetVelocityFunc(tree, object_velocity);
        return tree;
    } else {
        return cpSweep1DNew(object_bb, static_index);
    }
}

template <ChipmunkIndex I>
void ChipmunkPeer<I>::rebuild(std::span<const Aabb<2>> boxes,
                              std::span<const std::uint8_t> is_static, const PeerChanges* changes) {
    dynamic_index_.reset();
    static_index_.reset(make_index(boxes, nullptr));
    dynamic_index_.reset(make_index(boxes, static_index_.get()));
    boxes_.assign(boxes.begin(), boxes.end());
    static_.assign(is_static.begin(), is_static.end());
    objects_.resize(boxes.size());  // the indexes hold pointers into it: sized once here
    absent_ = add_present(boxes.size(), changes, [&](BodyId i) { insert(i, boxes[i]); });
    stats_.reinserted = boxes.size() - absent_;
}

template <ChipmunkIndex I>
void ChipmunkPeer<I>::insert(BodyId id, const Aabb<2>& box) {
    objects_[id] = {to_bb(box), cpvzero};
    boxes_[id] = box;
    cpSpatialIndexInsert(index_of(id), &objects_[id], cpHashValue(id));
}

template <ChipmunkIndex I>
void ChipmunkPeer<I>::refresh(BodyId id, const Aabb<2>& box) {
    Object& o = objects_[id];
    const Vec<2> d = box.center() - boxes_[id].center();
    o.bb = to_bb(box);
    o.v = cpv(d.x / kStepSeconds, d.y / kStepSeconds);
    boxes_[id] = box;
}

template <ChipmunkIndex I>
cpCollisionID ChipmunkPeer<I>::collide(void* obj1, void* obj2, cpCollisionID id, void* data) {
    auto& self = *static_cast<ChipmunkPeer*>(data);
    const BodyId a = self.id_of(obj1);
    const BodyId b = self.id_of(obj2);
    ++self.candidates_;
    if (self.boxes_[a].overlaps(self.boxes_[b])) self.out_->push_back(make_pair(a, b));
    return id;
}

template <ChipmunkIndex I>
void ChipmunkPeer<I>::update_whole(std::span<const Aabb<2>> boxes,
                                   std::span<const std::uint8_t> is_static, PairList& out) {
    out.clear();
    const bool retuned = I == ChipmunkIndex::kHash && cells_per_body() != built_cells_;
    if (!dynamic_index_ || !same_bodies(is_static, static_) || retuned || absent_ > 0) {
        rebuild(boxes, is_static);
    } else {
        for (BodyId i = 0; i < boxes.size(); ++i) {
            const Aabb<2>& b = boxes[i];
            const bool reshaped = static_[i] && (b.lo != boxes_[i].lo || b.hi != boxes_[i].hi);
            refresh(i, b);
            if (reshaped) cpSpatialIndexReindexObject(static_index_.get(), &objects_[i], cpHashValue(i));
        }
        stats_.reinserted = 0;  // the indexes do not say how many they moved
    }
    collide_all(out);
}

template <ChipmunkIndex I>
void ChipmunkPeer<I>::update_changes(const BodyChanges<2>& c, PairList& out) {
    changes_.read_for(c, static_cast<bool>(dynamic_index_), "peer:chipmunk");
    out.clear();
    const std::size_t n = c.boxes.size();
    const bool retuned = I == ChipmunkIndex::kHash && cells_per_body() != built_cells_;
    if (c.reset || n != objects_.size() || retuned) {
        rebuild(c.boxes, changes_.still_flags(c.boxes.size()), &changes_);
    } else {
        for (const BodyId id : changes_.departed()) {
            cpSpatialIndexRemove(index_of(id), &objects_[id], cpHashValue(id));
            ++absent_;
        }
        for (const BodyId id : changes_.arrived()) {
            static_[id] = changes_.still(id);
            insert(id, c.boxes[id]);
            --absent_;
        }
        for (const BodyId id : c.moving) refresh(id, c.boxes[id]);
        stats_.reinserted = changes_.arrived().size();
    }
    collide_all(out);
}

template <ChipmunkIndex I>
void ChipmunkPeer<I>::collide_all(PairList& out) {
    out_ = &out;
    candidates_ = 0;
    cpSpatialIndexReindexQuery(dynamic_index_.get(), &collide, this);
    out_ = nullptr;
    stats_.candidate_tests = candidates_;
    stats_.nodes = objects_.size() - absent_;
    // Chipmunk's index internals are private: only what the peer holds is counted.
    stats_.structure_bytes = objects_.capacity() * sizeof(Object) +
                             boxes_.capacity() * sizeof(Aabb<2>) + static_.capacity();
}

template <ChipmunkIndex I>
void ChipmunkPeer<I>::search(const Aabb<2>& region, std::vector<BodyId>& out,
                             QueryTrace<2>*) const {
    out.clear();
    if (!dynamic_index_) return;
    struct Collect {
        const ChipmunkPeer& peer;
        const Aabb<2>& region;
        std::vector<BodyId>& out;
        static cpCollisionID found(void*, void* obj, cpCollisionID id, void* data) {
            auto& c = *static_cast<Collect*>(data);
            const BodyId b = c.peer.id_of(obj);
            if (c.peer.boxes_[b].overlaps(c.region)) c.out.push_back(b);
            return id;
        }
    } collect{*this, region, out};
    for (cpSpatialIndex* index : {static_index_.get(), dynamic_index_.get()}) {
        cpSpatialIndexQuery(index, nullptr, to_bb(region), &Collect::found, &collect);
    }
}

}  // namespace

template <ChipmunkIndex I>
std::unique_ptr<BroadPhase<2>> make_chipmunk_peer() {
    return std::make_unique<ChipmunkPeer<I>>();
}

template std::unique_ptr<BroadPhase<2>> make_chipmunk_peer<ChipmunkIndex::kHash>();
template std::unique_ptr<BroadPhase<2>> make_chipmunk_peer<ChipmunkIndex::kBBTree>();
template std::unique_ptr<BroadPhase<2>> make_chipmunk_peer<ChipmunkIndex::kSweep1D>();

}  // namespace collide::bench
