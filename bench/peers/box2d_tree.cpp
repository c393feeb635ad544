// How Box2D 2.4 uses its tree, and what this peer keeps of it:
// - every body is a proxy whose tree box is its box fattened by b2_aabbExtension and, in
//   the direction of motion, by b2_aabbMultiplier times the displacement (MoveProxy does
//   both; the margin is scaled to our bodies, see peer_scale.hpp);
// - MoveProxy re-inserts a proxy only when its box left its fat box (or the fat box grew
//   far too large) and then marks it moved; b2BroadPhase buffers those proxies;
// - each moved proxy queries the tree with its fat box; a pair of two moved proxies is
//   kept only from the query of the larger id, so it is found once;
// - b2BroadPhase hands only these new pairs on: the contact manager keeps the contacts and
//   drops one when the two fat boxes stop overlapping. Our contract wants every
//   overlapping pair every frame, so the peer keeps that contact list as a sorted array of
//   fat pairs: new pairs merged in, pairs whose fat boxes parted dropped, and the exact
//   test of the real boxes run over the rest (all of it counted in the frame's time).
// Box2D feeds MoveProxy the box swept over the step; the peer feeds the same boxes every
// other broad phase gets, with the centre's displacement since the last frame.
// Fed changes (update_changes), it does what b2World does as bodies come, go, sleep and wake:
// a body that leaves has its proxy destroyed (b2BroadPhase::DestroyProxy) and its contacts
// with it; one that arrives, still or moving, gets a proxy (CreateProxy, which buffers a
// move); and only the moving bodies' proxies are moved.
#include "box2d_tree.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <iterator>
#include <optional>

#include <box2d/b2_dynamic_tree.h>

#include "peer_changes.hpp"
#include "peer_scale.hpp"

namespace collide::bench {

namespace {

class Box2dTreePeer final : public BroadPhase<2> {
public:
    void update_whole(std::span<const Aabb<2>> boxes, std::span<const std::uint8_t> is_static,
                      PairList& out) override;
    void update_changes(const BodyChanges<2>& changes, PairList& out) override;
    void search(const Aabb<2>& region, std::vector<BodyId>& out,
                QueryTrace<2>* trace = nullptr) const override;
    BroadPhaseStats stats() const override { return stats_; }
    std::span<Param> params() override { return params_; }

    // b2DynamicTree::Query's callback: one tree leaf whose fat box meets the query's.
    bool QueryCallback(int32 proxy);

private:
    float margin() const { return params_[Setting::kMargin].as_real(); }
    b2AABB scaled(const Aabb<2>& b) const {
        return {{b.lo.x * scale_, b.lo.y * scale_}, {b.hi.x * scale_, b.hi.y * scale_}};
    }
    // Every body anew; fed changes, only the present ones (`changes`).
    void rebuild(std::span<const Aabb<2>> boxes, std::span<const std::uint8_t> is_static,
                 const PeerChanges* changes = nullptr);
    void create_proxy(BodyId id, const Aabb<2>& box);
    void move_proxy(BodyId id, const Aabb<2>& box, std::uint64_t& moved);
    // UpdatePairs, then the contact manager's keep-or-destroy and the exact test.
    void collide(std::span<const Aabb<2>> boxes, PairList& out);

    std::optional<b2DynamicTree> tree_;
    float scale_ = 1;
    float built_margin_ = -1;
    std::vector<Aabb<2>> boxes_;  // as of the last update, unscaled
    std::vector<std::uint8_t> static_;
    std::vector<int32> proxy_;  // per body
    std::vector<BodyId> body_;  // per proxy (tree node index)
    std::vector<int32> move_buffer_;
    std::vector<std::uint64_t> new_pairs_;  // Pair::key() of pairs the queries found
    std::vector<std::uint64_t> fat_pairs_;  // sorted: the contact list
    std::vector<std::uint64_t> merged_;
    std::vector<float> scratch_;
    PeerChanges changes_;          // fed changes: who is present, moving or still
    std::size_t absent_ = 0;       // bodies with no proxy (b2_nullNode): fed changes only
    std::vector<std::uint8_t> gone_;  // scratch: the bodies whose proxies were destroyed
    int32 query_proxy_ = -1;
    BroadPhaseStats stats_;
    // The places of the parameters in params_, in its order; kCount is how many.
    enum Setting : std::uint8_t { kMargin, kCount };
    std::array<Param, Setting::kCount> params_ = {{Param::real("margin", 0.5f, 0.01f, 4.0f)}};
};

void Box2dTreePeer::rebuild(std::span<const Aabb<2>> boxes,
                            std::span<const std::uint8_t> is_static, const PeerChanges* changes) {
    tree_.emplace();
    built_margin_ = margin();
    scale_ = peer_scale<2>(boxes, margin(), b2_aabbExtension, scratch_);
    boxes_.assign(boxes.begin(), boxes.end());
    static_.assign(is_static.begin(), is_static.end());
    proxy_.assign(boxes.size(), b2_nullNode);
    body_.clear();
    fat_pairs_.clear();
    move_buffer_.clear();
    absent_ = add_present(boxes.size(), changes, [&](BodyId i) { create_proxy(i, boxes[i]); });
    stats_.reinserted = move_buffer_.size();
}

void Box2dTreePeer::create_proxy(BodyId id, const Aabb<2>& box) {
    const int32 p = tree_->CreateProxy(scaled(box), nullptr);
    proxy_[id] = p;
    boxes_[id] = box;
    if (static_cast<std::size_t>(p) >= body_.size()) body_.resize(std::size_t(p) + 1);
    body_[std::size_t(p)] = id;
    move_buffer_.push_back(p);  // b2BroadPhase::CreateProxy buffers a move too
}

void Box2dTreePeer::move_proxy(BodyId id, const Aabb<2>& box, std::uint64_t& moved) {
    const Vec<2> d = (box.center() - boxes_[id].center()) * scale_;
    boxes_[id] = box;
    if (tree_->MoveProxy(proxy_[id], scaled(box), b2Vec2(d.x, d.y))) {
        move_buffer_.push_back(proxy_[id]);
        ++moved;
    }
}

bool Box2dTreePeer::QueryCallback(int32 proxy) {
    if (proxy == query_proxy_) return true;
    // Both moved: the query of the larger id reports it.
    if (proxy > query_proxy_ && tree_->WasMoved(proxy)) return true;
    const BodyId a = body_[std::size_t(proxy)];
    const BodyId b = body_[std::size_t(query_proxy_)];
    if (static_[a] && static_[b]) return true;
    new_pairs_.push_back(make_pair(a, b).key());
    return true;
}

void Box2dTreePeer::update_whole(std::span<const Aabb<2>> boxes,
                                 std::span<const std::uint8_t> is_static, PairList& out) {
    out.clear();
    if (!tree_ || !same_bodies(is_static, static_) || margin() != built_margin_ || absent_ > 0) {
        rebuild(boxes, is_static);
    } else {
        std::uint64_t moved = 0;
        for (BodyId i = 0; i < boxes.size(); ++i) move_proxy(i, boxes[i], moved);
        stats_.reinserted = moved;
    }
    collide(boxes, out);
}

void Box2dTreePeer::update_changes(const BodyChanges<2>& c, PairList& out) {
    changes_.read_for(c, static_cast<bool>(tree_), "peer:box2d-tree");
    out.clear();
    const std::size_t n = c.boxes.size();
    if (c.reset || n != proxy_.size() || margin() != built_margin_) {
        rebuild(c.boxes, changes_.still_flags(c.boxes.size()), &changes_);
    } else {
        // b2World::DestroyBody: the proxy goes, and its contacts with it (the move buffer is
        // empty between updates, so no move of it is left to unbuffer).
        gone_.resize(n, 0);
        for (const BodyId id : changes_.departed()) {
            assert(move_buffer_.empty());
            tree_->DestroyProxy(proxy_[id]);
            proxy_[id] = b2_nullNode;
            gone_[id] = 1;
            ++absent_;
        }
        if (!changes_.departed().empty()) {
            std::erase_if(fat_pairs_, [&](std::uint64_t key) {
                return gone_[key >> 32] || gone_[static_cast<BodyId>(key)];
            });
            for (const BodyId id : changes_.departed()) gone_[id] = 0;
        }
        for (const BodyId id : changes_.arrived()) {
            static_[id] = changes_.still(id);
            create_proxy(id, c.boxes[id]);
            --absent_;
        }
        std::uint64_t moved = changes_.arrived().size();
        for (const BodyId id : c.moving) move_proxy(id, c.boxes[id], moved);
        stats_.reinserted = moved;
    }
    collide(c.boxes, out);
}

void Box2dTreePeer::collide(std::span<const Aabb<2>> boxes, PairList& out) {
    // b2BroadPhase::UpdatePairs: each moved proxy queries with its fat box.
    new_pairs_.clear();
    for (const int32 p : move_buffer_) {
        query_proxy_ = p;
        tree_->Query(this, tree_->GetFatAABB(p));
    }
    for (const int32 p : move_buffer_) tree_->ClearMoved(p);
    move_buffer_.clear();
    std::sort(new_pairs_.begin(), new_pairs_.end());
    new_pairs_.erase(std::unique(new_pairs_.begin(), new_pairs_.end()), new_pairs_.end());

    // b2ContactManager: new pairs join the contacts already there...
    merged_.clear();
    std::set_union(fat_pairs_.begin(), fat_pairs_.end(), new_pairs_.begin(), new_pairs_.end(),
                   std::back_inserter(merged_));
    fat_pairs_.swap(merged_);

    // ...contacts whose fat boxes parted are destroyed, the rest tested exactly.
    std::size_t kept = 0;
    for (const std::uint64_t key : fat_pairs_) {
        const auto a = static_cast<BodyId>(key >> 32);
        const auto b = static_cast<BodyId>(key);
        if (!b2TestOverlap(tree_->GetFatAABB(proxy_[a]), tree_->GetFatAABB(proxy_[b]))) continue;
        fat_pairs_[kept++] = key;
        if (boxes[a].overlaps(boxes[b])) out.push_back({a, b});
    }
    fat_pairs_.resize(kept);

    stats_.candidate_tests = kept;
    const std::size_t leaves = proxy_.size() - absent_;
    stats_.nodes = leaves == 0 ? 0 : 2 * leaves - 1;  // leaves and inner nodes
    stats_.depth = tree_->GetHeight();
    // The tree's node array is private: its size is estimated from the node count.
    stats_.structure_bytes = stats_.nodes * sizeof(b2TreeNode) +
                             boxes_.capacity() * sizeof(Aabb<2>) +
                             (proxy_.capacity() + body_.capacity()) * sizeof(int32) +
                             (fat_pairs_.capacity() + new_pairs_.capacity() + merged_.capacity()) *
                                 sizeof(std::uint64_t);
}

void Box2dTreePeer::search(const Aabb<2>& region, std::vector<BodyId>& out, QueryTrace<2>*) const {
    out.clear();
    if (!tree_) return;
    struct Collect {
        const Box2dTreePeer& peer;
        const Aabb<2>& region;
        std::vector<BodyId>& out;
        bool QueryCallback(int32 proxy) {
            const BodyId id = peer.body_[std::size_t(proxy)];
            if (peer.boxes_[id].overlaps(region)) out.push_back(id);
            return true;
        }
    } collect{*this, region, out};
    tree_->Query(&collect, scaled(region));
}

}  // namespace

std::unique_ptr<BroadPhase<2>> make_box2d_tree_peer() {
    return std::make_unique<Box2dTreePeer>();
}

}  // namespace collide::bench
