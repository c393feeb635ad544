// How Box2D v3 (src/broad_phase.c, shape.c, solver.c, physics_world.c) drives its trees, and
// what this peer keeps of it:
// - one b2DynamicTree per body type; static shapes go in the static tree, which is never
//   queried against itself (no static-static pairs), and is rebuilt once when the world is
//   made (b2World_RebuildStaticTree); dynamic shapes go in the dynamic tree;
// - each shape's tree box (fatAABB) is its box grown by aabbMargin = min(B2_MAX_AABB_MARGIN
//   = 0.05 m, B2_AABB_MARGIN_FRACTION = 0.125 x its extent) (b2ComputeShapeMargin). After a
//   step, a shape whose box left its fatAABB gets a new one, its box grown by the margin, and
//   b2BroadPhase_EnlargeProxy writes it into the leaf (the ancestors only grow) and puts the
//   proxy in the move buffer (moveArray and the movedProxies bits);
// - b2UpdateBroadPhasePairs: each moved proxy queries with its fatAABB the static tree (if it
//   is dynamic) and the dynamic tree; b2PairQueryCallback skips itself, a pair of two moved
//   proxies unless the other key is the larger, and pairs already in the pair set (a b2HashSet
//   of pair keys); the new pairs become contacts (added to the set); then the dynamic tree is
//   partly rebuilt (b2DynamicTree_Rebuild, not full) and the move buffer cleared;
// - b2Collide: a contact whose two fatAABBs no longer overlap is destroyed (removed from the
//   set); the others go to the narrow phase, here the exact test of the real boxes.
// v3 also grows each box by the speculative distance (4 linear slops) before all this; the
// peer leaves that out (it only pads every box). v3's margins are in metres: the peer takes
// one metre as five median body radii, the scale at which peer:box2d-tree's default margin
// is Box2D 2.4's 0.1 m, so the cap is 0.25 median radii (the `margin cap` parameter) and
// `margin fraction` is that of each body's extent (its largest half-side). Everything above
// is in the frame's time.
#include "box2d3_tree.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include <box2d/collision.h>
#include <box2d/types.h>
extern "C" {
#include "table.h"  // v3's pair set (b2HashSet), internal to the library
}

#include "peer_changes.hpp"
#include "peer_scale.hpp"

namespace collide::bench {

namespace {

enum Tree : int { kStaticTree = 0, kDynamicTree = 1 };

b2AABB to_b2(const Aabb<2>& b, float margin = 0) {
    return {{b.lo.x - margin, b.lo.y - margin}, {b.hi.x + margin, b.hi.y + margin}};
}

bool contains(const b2AABB& outer, const Aabb<2>& inner) {
    return outer.lowerBound.x <= inner.lo.x && outer.lowerBound.y <= inner.lo.y &&
           inner.hi.x <= outer.upperBound.x && inner.hi.y <= outer.upperBound.y;
}

bool overlaps(const b2AABB& a, const b2AABB& b) {
    return a.lowerBound.x <= b.upperBound.x && b.lowerBound.x <= a.upperBound.x &&
           a.lowerBound.y <= b.upperBound.y && b.lowerBound.y <= a.upperBound.y;
}

float extent(const Aabb<2>& b) {
    const Vec<2> s = b.size();
    return 0.5f * std::max(s.x, s.y);
}

class Box2d3TreePeer final : public BroadPhase<2> {
public:
    Box2d3TreePeer() = default;
    Box2d3TreePeer(const Box2d3TreePeer&) = delete;
    Box2d3TreePeer& operator=(const Box2d3TreePeer&) = delete;
    ~Box2d3TreePeer() override { destroy(); }

    void update_whole(std::span<const Aabb<2>> boxes, std::span<const std::uint8_t> is_static,
                      PairList& out) override;
    // v3 walks only its awake bodies: told which bodies move, so does the peer. Bodies that
    // leave or arrive have their proxies destroyed or created (b2DestroyShapeProxy,
    // b2CreateShapeProxy with pair creation forced, so a new static body pairs at once).
    void update_changes(const BodyChanges<2>& changes, PairList& out) override;
    void search(const Aabb<2>& region, std::vector<BodyId>& out,
                QueryTrace<2>* trace = nullptr) const override;
    BroadPhaseStats stats() const override { return stats_; }
    std::span<Param> params() override { return params_; }

private:
    // b2QueryPairContext: the moved proxy whose query is running.
    struct QueryContext {
        Box2d3TreePeer* peer;
        Tree tree;          // the tree being queried
        Tree query_tree;    // the moved proxy's tree
        BodyId query_body;  // and its body
    };
    static bool pair_callback(int proxy, std::uint64_t user_data, void* context);

    float margin_fraction() const { return params_[Setting::kMarginFraction].as_real(); }
    float margin_cap() const { return params_[Setting::kMarginCap].as_real(); }
    // The parameters differ from those the trees were built with.
    bool params_changed() const {
        return built_params_ != std::array{margin_fraction(), margin_cap()};
    }
    float margin_of(const Aabb<2>& box) const {
        return std::min(margin_fraction() * extent(box), cap_);
    }
    void destroy();
    // Every body anew; fed changes, only the present ones (`changes`).
    void rebuild(std::span<const Aabb<2>> boxes, std::span<const std::uint8_t> is_static,
                 const PeerChanges* changes = nullptr);
    void create_proxy(BodyId body, const Aabb<2>& box);
    void destroy_proxies(const std::vector<BodyId>& bodies);
    void buffer_move(BodyId body);
    // b2FinalizeBodies' enlarge step for one body whose box may have changed.
    void enlarge(BodyId body, const Aabb<2>& box, std::uint64_t& enlarged);
    void find_pairs();
    void collide(std::span<const Aabb<2>> boxes, PairList& out);

    bool built_ = false;
    std::array<b2DynamicTree, 2> trees_{};
    b2HashSet pair_set_{};
    float cap_ = 0;  // B2_MAX_AABB_MARGIN in our units
    std::array<float, 2> built_params_{-1, -1};
    std::vector<Aabb<2>> boxes_;  // as of the last update
    std::vector<std::uint8_t> static_;
    PeerChanges changes_;              // fed changes: who is present, moving or still
    std::vector<std::uint8_t> gone_;   // per body: its proxy was destroyed in this update
    std::vector<int> proxy_;           // per body, in its type's tree
    std::vector<b2AABB> fat_;          // per body: shape->fatAABB
    std::vector<std::uint8_t> moved_;  // per body: the movedProxies bits
    std::vector<BodyId> move_array_;   // bodies in the move buffer, in body order
    std::vector<Pair> new_pairs_;      // b2MovePair lists, in move order
    std::vector<Pair> contacts_;       // the contact array
    std::vector<float> scratch_;
    BroadPhaseStats stats_;
    // The places of the parameters in params_, in its order; kCount is how many.
    enum Setting : std::uint8_t { kMarginFraction, kMarginCap, kCount };
    std::array<Param, Setting::kCount> params_ = {{
        Param::real("margin fraction", 0.125f, 0.0f, 8.0f),
        Param::real("margin cap", 0.25f, 0.0f, 100.0f),
    }};
};

void Box2d3TreePeer::destroy() {
    if (!built_) return;
    for (b2DynamicTree& t : trees_) b2DynamicTree_Destroy(&t);
    b2DestroySet(&pair_set_);
    built_ = false;
}

void Box2d3TreePeer::buffer_move(BodyId body) {
    if (moved_[body]) return;
    moved_[body] = 1;
    move_array_.push_back(body);
}

void Box2d3TreePeer::rebuild(std::span<const Aabb<2>> boxes,
                             std::span<const std::uint8_t> is_static, const PeerChanges* changes) {
    destroy();
    const std::size_t n = boxes.size();
    std::size_t statics = 0;
    for (const std::uint8_t s : is_static) statics += s != 0;
    trees_[kStaticTree] =
        b2DynamicTree_Create(static_cast<int>(std::max<std::size_t>(16, statics)));
    trees_[kDynamicTree] =
        b2DynamicTree_Create(static_cast<int>(std::max<std::size_t>(16, n - statics)));
    pair_set_ = b2CreateSet(32);
    built_ = true;
    built_params_ = {margin_fraction(), margin_cap()};
    // The cap, B2_MAX_AABB_MARGIN = 0.05 m, in median radii (see the top of this file).
    cap_ = margin_cap() * median_half_extent<2>(boxes, scratch_);
    boxes_.assign(boxes.begin(), boxes.end());
    static_.assign(is_static.begin(), is_static.end());
    proxy_.resize(n);
    fat_.resize(n);
    moved_.assign(n, 0);
    move_array_.clear();
    contacts_.clear();
    gone_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const auto body = static_cast<BodyId>(i);
        proxy_[i] = -1;
        if (changes && !changes->present(body)) continue;
        // Static shapes keep their box (v3 pads them by the speculative distance only).
        fat_[i] = to_b2(boxes[i], static_[i] ? 0.0f : margin_of(boxes[i]));
        const Tree t = static_[i] ? kStaticTree : kDynamicTree;
        proxy_[i] = b2DynamicTree_CreateProxy(&trees_[t], fat_[i], B2_DEFAULT_CATEGORY_BITS, body);
        if (!static_[i]) buffer_move(body);  // b2BroadPhase_CreateProxy buffers non-static ones
    }
    b2DynamicTree_Rebuild(&trees_[kStaticTree], true);
    stats_.reinserted = n;
}

bool Box2d3TreePeer::pair_callback(int, std::uint64_t user_data, void* context) {
    const auto& q = *static_cast<const QueryContext*>(context);
    Box2d3TreePeer& peer = *q.peer;
    const auto body = static_cast<BodyId>(user_data);
    if (body == q.query_body) return true;
    // Both moving: found once, by the query of the larger key (v3 compares proxy keys; body
    // ids order the same pairs, each found from exactly one side).
    if (q.tree == kDynamicTree && peer.moved_[body] &&
        (q.query_tree != kDynamicTree || body < q.query_body))
        return true;
    const Pair pair = make_pair(body, q.query_body);
    if (b2ContainsKey(&peer.pair_set_, pair.key())) return true;
    peer.new_pairs_.push_back(pair);
    return true;
}

void Box2d3TreePeer::find_pairs() {
    new_pairs_.clear();
    QueryContext q{this, kDynamicTree, kDynamicTree, 0};
    for (const BodyId body : move_array_) {
        q.query_body = body;
        q.query_tree = static_[body] ? kStaticTree : kDynamicTree;
        if (q.query_tree == kDynamicTree) {
            q.tree = kStaticTree;
            b2DynamicTree_Query(&trees_[kStaticTree], fat_[body], B2_DEFAULT_MASK_BITS,
                                &pair_callback, &q);
        }
        q.tree = kDynamicTree;
        b2DynamicTree_Query(&trees_[kDynamicTree], fat_[body], B2_DEFAULT_MASK_BITS, &pair_callback,
                            &q);
    }
    // b2CreateContact for each new pair, in move order.
    for (const Pair& c : new_pairs_) {
        b2AddKey(&pair_set_, c.key());
        contacts_.push_back(c);
    }
    b2DynamicTree_Rebuild(&trees_[kDynamicTree], false);
    for (const BodyId body : move_array_) moved_[body] = 0;
    move_array_.clear();
}

void Box2d3TreePeer::enlarge(BodyId body, const Aabb<2>& b, std::uint64_t& enlarged) {
    if (b.lo == boxes_[body].lo && b.hi == boxes_[body].hi) return;
    boxes_[body] = b;
    if (static_[body]) {
        fat_[body] = to_b2(b);
        b2DynamicTree_MoveProxy(&trees_[kStaticTree], proxy_[body], fat_[body]);
    } else {
        if (contains(fat_[body], b)) return;
        fat_[body] = to_b2(b, margin_of(b));
        b2DynamicTree_EnlargeProxy(&trees_[kDynamicTree], proxy_[body], fat_[body]);
    }
    buffer_move(body);
    ++enlarged;
}

void Box2d3TreePeer::update_whole(std::span<const Aabb<2>> boxes,
                                  std::span<const std::uint8_t> is_static, PairList& out) {
    out.clear();
    if (!built_ || !same_bodies(is_static, static_) || params_changed()) {
        rebuild(boxes, is_static);
    } else {
        // b2FinalizeBodies and the enlarge loop of b2SolverStage: a box that left its fatAABB
        // gets a new one and its proxy is enlarged and buffered. A static body that moved is
        // moved in its tree (b2BroadPhase_MoveProxy) and buffered too.
        std::uint64_t enlarged = 0;
        for (std::size_t i = 0; i < boxes.size(); ++i)
            enlarge(static_cast<BodyId>(i), boxes[i], enlarged);
        stats_.reinserted = enlarged;
    }
    collide(boxes, out);
}

void Box2d3TreePeer::create_proxy(BodyId body, const Aabb<2>& box) {
    boxes_[body] = box;
    fat_[body] = to_b2(box, static_[body] ? 0.0f : margin_of(box));
    const Tree t = static_[body] ? kStaticTree : kDynamicTree;
    proxy_[body] = b2DynamicTree_CreateProxy(&trees_[t], fat_[body], B2_DEFAULT_CATEGORY_BITS, body);
    buffer_move(body);
}

void Box2d3TreePeer::destroy_proxies(const std::vector<BodyId>& bodies) {
    if (bodies.empty()) return;
    for (const BodyId body : bodies) {
        b2DynamicTree_DestroyProxy(&trees_[static_[body] ? kStaticTree : kDynamicTree], proxy_[body]);
        proxy_[body] = -1;
        gone_[body] = 1;
    }
    // b2DestroyContact for every contact of a destroyed shape: out of the set and the array.
    std::size_t kept = 0;
    for (const Pair& c : contacts_) {
        if (gone_[c.a] || gone_[c.b]) {
            b2RemoveKey(&pair_set_, c.key());
        } else {
            contacts_[kept++] = c;
        }
    }
    contacts_.resize(kept);
    for (const BodyId body : bodies) gone_[body] = 0;
}

void Box2d3TreePeer::update_changes(const BodyChanges<2>& c, PairList& out) {
    changes_.read_for(c, built_, "peer:box2d3-tree");
    out.clear();
    const std::size_t n = c.boxes.size();
    if (c.reset || n != static_.size() || params_changed()) {
        rebuild(c.boxes, changes_.still_flags(c.boxes.size()), &changes_);
    } else {
        destroy_proxies(changes_.departed());
        for (const BodyId id : changes_.arrived()) {
            static_[id] = changes_.still(id);
            create_proxy(id, c.boxes[id]);
        }
        std::uint64_t enlarged = changes_.arrived().size();
        for (const BodyId id : c.moving) enlarge(id, c.boxes[id], enlarged);
        stats_.reinserted = enlarged;
    }
    collide(c.boxes, out);
}

void Box2d3TreePeer::collide(std::span<const Aabb<2>> boxes, PairList& out) {
    find_pairs();

    // b2Collide: contacts whose fatAABBs parted are destroyed, the rest tested exactly.
    std::size_t kept = 0;
    for (const Pair& c : contacts_) {
        if (!overlaps(fat_[c.a], fat_[c.b])) {
            b2RemoveKey(&pair_set_, c.key());
            continue;
        }
        contacts_[kept++] = c;
        if (boxes[c.a].overlaps(boxes[c.b])) out.push_back(c);
    }
    contacts_.resize(kept);

    stats_.candidate_tests = kept;
    stats_.nodes =
        static_cast<std::size_t>(trees_[kStaticTree].nodeCount + trees_[kDynamicTree].nodeCount);
    stats_.depth = std::max(b2DynamicTree_GetHeight(&trees_[kStaticTree]),
                            b2DynamicTree_GetHeight(&trees_[kDynamicTree]));
    stats_.structure_bytes =
        static_cast<std::size_t>(b2DynamicTree_GetByteCount(&trees_[kStaticTree]) +
                                 b2DynamicTree_GetByteCount(&trees_[kDynamicTree]) +
                                 b2GetHashSetBytes(&pair_set_)) +
        boxes_.capacity() * sizeof(Aabb<2>) + fat_.capacity() * sizeof(b2AABB) +
        proxy_.capacity() * sizeof(int) + moved_.capacity() + static_.capacity() +
        (contacts_.capacity() + new_pairs_.capacity()) * sizeof(Pair) +
        move_array_.capacity() * sizeof(BodyId);
}

void Box2d3TreePeer::search(const Aabb<2>& region, std::vector<BodyId>& out, QueryTrace<2>*) const {
    out.clear();
    if (!built_) return;
    struct Collect {
        const Box2d3TreePeer& peer;
        const Aabb<2>& region;
        std::vector<BodyId>& out;
    } collect{*this, region, out};
    const auto callback = [](int, std::uint64_t user_data, void* context) {
        auto& c = *static_cast<Collect*>(context);
        const auto id = static_cast<BodyId>(user_data);
        if (c.peer.boxes_[id].overlaps(c.region)) c.out.push_back(id);
        return true;
    };
    for (const b2DynamicTree& t : trees_)
        b2DynamicTree_Query(&t, to_b2(region), B2_DEFAULT_MASK_BITS, callback, &collect);
}

}  // namespace

std::unique_ptr<BroadPhase<2>> make_box2d3_tree_peer() {
    return std::make_unique<Box2d3TreePeer>();
}

}  // namespace collide::bench
