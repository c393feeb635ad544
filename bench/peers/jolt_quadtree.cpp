// peer:jolt-quadtree's side in the bench's terms: our boxes in, Jolt's candidate pairs
// filtered by the exact test of the real boxes out, everything in the frame's time. How Jolt
// is driven is in jolt_world.cpp, which alone is compiled with Jolt's CPU flags; this file is
// compiled for the bench's own instruction set. The speculative distance (Jolt's default
// 0.02 m; one metre taken as five median radii, as the Box2D peers do) also covers the
// rounding of Jolt's centre-and-extent bounds.
#include "jolt_quadtree.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jolt_world.hpp"
#include "peer_changes.hpp"
#include "peer_scale.hpp"
#include "tooling/input_error.hpp"

namespace collide::bench {

namespace {

class JoltQuadtreePeer final : public BroadPhase<3> {
public:
    void update_whole(std::span<const Aabb<3>> boxes, std::span<const std::uint8_t> is_static,
                      PairList& out) override;
    // Jolt moves only its active bodies: told which bodies move, so does the peer. Bodies
    // that leave or arrive are removed from and added to the world (jolt::World::remove, add).
    void update_changes(const BodyChanges<3>& changes, PairList& out) override;
    void search(const Aabb<3>& region, std::vector<BodyId>& out,
                QueryTrace<3>* trace = nullptr) const override;
    BroadPhaseStats stats() const override { return stats_; }
    std::span<Param> params() override { return params_; }

private:
    // What World's sinks write to.
    struct Sink {
        std::span<const Aabb<3>> boxes;
        PairList* pairs;
        const Aabb<3>* region;
        std::vector<BodyId>* bodies;
    };
    float speculative_param() const { return params_[Setting::kSpeculative].as_real(); }
    // Every body anew; fed changes, the absent ones are removed at once.
    void rebuild(std::span<const Aabb<3>> boxes, std::span<const std::uint8_t> is_static,
                 const PeerChanges* changes = nullptr);
    void arrive(std::span<const Aabb<3>> boxes, const std::vector<BodyId>& bodies);
    void move(BodyId body, const Aabb<3>& box, float tolerance);
    void step(std::span<const Aabb<3>> boxes, bool fresh, PairList& out);

    std::optional<jolt::World> world_;
    float speculative_ = 0;         // in our units
    float built_speculative_ = -1;  // the parameter the world was built with
    std::vector<Aabb<3>> boxes_;  // as of the last update
    std::vector<std::uint8_t> static_;
    PeerChanges changes_;                  // fed changes: who is present, moving or still
    std::vector<std::uint32_t> batch_;     // bodies leaving or arriving
    std::vector<std::uint8_t> batch_static_;
    std::vector<float> centres_, halves_;  // x, y, z per body, for World::reset
    std::vector<float> scratch_;
    BroadPhaseStats stats_;
    // The places of the parameters in params_, in its order; kCount is how many.
    enum Setting : std::uint8_t { kSpeculative, kCount };
    std::array<Param, Setting::kCount> params_ = {{Param::real("speculative", 0.1f, 0.001f, 4.0f)}};
};

void JoltQuadtreePeer::rebuild(std::span<const Aabb<3>> boxes,
                               std::span<const std::uint8_t> is_static, const PeerChanges* changes) {
    if (boxes.size() > jolt::World::max_bodies())
        throw InputError("peer:jolt-quadtree: Jolt's body ids reach " +
                         std::to_string(jolt::World::max_bodies()) + " bodies, not " +
                         std::to_string(boxes.size()));
    built_speculative_ = speculative_param();
    speculative_ = speculative_param() * median_half_extent<3>(boxes, scratch_);
    boxes_.assign(boxes.begin(), boxes.end());
    static_.assign(is_static.begin(), is_static.end());
    centres_.clear();
    halves_.clear();
    for (const Aabb<3>& b : boxes) {
        const Vec<3> c = b.center();
        const Vec<3> h = 0.5f * b.size();
        centres_.insert(centres_.end(), {c.x, c.y, c.z});
        halves_.insert(halves_.end(), {h.x, h.y, h.z});
    }
    world_.emplace();
    world_->reset(centres_.data(), halves_.data(), static_.data(),
                  static_cast<std::uint32_t>(boxes.size()));
    if (!changes) return;
    batch_.clear();
    for (BodyId id = 0; id < boxes.size(); ++id)
        if (!changes->present(id)) batch_.push_back(id);
    world_->remove(batch_.data(), static_cast<std::uint32_t>(batch_.size()));
}

void JoltQuadtreePeer::arrive(std::span<const Aabb<3>> boxes, const std::vector<BodyId>& bodies) {
    batch_.assign(bodies.begin(), bodies.end());
    batch_static_.clear();
    centres_.clear();
    halves_.clear();
    for (const BodyId id : bodies) {
        const bool still = changes_.state(id) == PeerChanges::State::kStill;
        static_[id] = still;
        batch_static_.push_back(still);
        boxes_[id] = boxes[id];
        const Vec<3> c = boxes[id].center();
        const Vec<3> h = 0.5f * boxes[id].size();
        centres_.insert(centres_.end(), {c.x, c.y, c.z});
        halves_.insert(halves_.end(), {h.x, h.y, h.z});
    }
    world_->add(batch_.data(), centres_.data(), halves_.data(), batch_static_.data(),
                static_cast<std::uint32_t>(batch_.size()));
}

void JoltQuadtreePeer::update_whole(std::span<const Aabb<3>> boxes,
                                    std::span<const std::uint8_t> is_static, PairList& out) {
    out.clear();
    if (boxes.empty()) {  // a BodyManager needs room for at least one body
        world_.reset();
        static_.clear();
        return;
    }
    const bool fresh =
        !world_ || !same_bodies(is_static, static_) || speculative_param() != built_speculative_;
    if (fresh) {
        rebuild(boxes, is_static);
    } else {
        // Sizes recomputed from moved corners differ in the last bits; a body gets a new
        // shape only past a quarter of the speculative distance, which the query's growth
        // then still covers on both sides.
        const float tolerance = 0.25f * speculative_;
        for (std::size_t i = 0; i < boxes.size(); ++i)
            move(static_cast<BodyId>(i), boxes[i], tolerance);
    }
    step(boxes, fresh, out);
}

void JoltQuadtreePeer::update_changes(const BodyChanges<3>& c, PairList& out) {
    changes_.read_for(c, static_cast<bool>(world_), "peer:jolt-quadtree");
    out.clear();
    if (c.boxes.empty()) {
        update_whole(c.boxes, {}, out);
        return;
    }
    const bool fresh =
        c.reset || c.boxes.size() != static_.size() || speculative_param() != built_speculative_;
    if (fresh) {
        rebuild(c.boxes, changes_.still_flags(c.boxes.size()), &changes_);
    } else {
        const std::vector<BodyId>& gone = changes_.departed();
        batch_.assign(gone.begin(), gone.end());
        world_->remove(batch_.data(), static_cast<std::uint32_t>(batch_.size()));
        if (!changes_.arrived().empty()) arrive(c.boxes, changes_.arrived());
        const float tolerance = 0.25f * speculative_;
        for (const BodyId id : c.moving) move(id, c.boxes[id], tolerance);
    }
    step(c.boxes, fresh, out);
}

void JoltQuadtreePeer::move(BodyId body, const Aabb<3>& b, float tolerance) {
    if (b.lo == boxes_[body].lo && b.hi == boxes_[body].hi) return;
    boxes_[body] = b;
    const Vec<3> c = b.center();
    const Vec<3> h = 0.5f * b.size();
    const float centre[3] = {c.x, c.y, c.z};
    const float half[3] = {h.x, h.y, h.z};
    world_->move(body, centre, half, tolerance);
}

void JoltQuadtreePeer::step(std::span<const Aabb<3>> boxes, bool fresh, PairList& out) {
    Sink sink{boxes, &out, nullptr, nullptr};
    const std::size_t moved = world_->step(
        speculative_,
        [](void* context, std::uint32_t a, std::uint32_t b) {
            const auto& s = *static_cast<Sink*>(context);
            if (s.boxes[a].overlaps(s.boxes[b])) s.pairs->push_back(make_pair(a, b));
        },
        &sink);
    stats_.reinserted = fresh ? boxes.size() : moved;

    stats_.candidate_tests = 0;  // Jolt's pair tests happen inside FindCollidingPairs
    stats_.nodes = boxes.size();
    stats_.structure_bytes = world_->bytes() + boxes_.capacity() * sizeof(Aabb<3>) +
                             static_.capacity() +
                             (centres_.capacity() + halves_.capacity()) * sizeof(float);
}

void JoltQuadtreePeer::search(const Aabb<3>& region, std::vector<BodyId>& out,
                              QueryTrace<3>*) const {
    out.clear();
    if (!world_) return;
    Sink sink{boxes_, nullptr, &region, &out};
    const float lo[3] = {region.lo.x, region.lo.y, region.lo.z};
    const float hi[3] = {region.hi.x, region.hi.y, region.hi.z};
    world_->query(
        lo, hi,
        [](void* context, std::uint32_t body) {
            const auto& s = *static_cast<Sink*>(context);
            if (s.boxes[body].overlaps(*s.region)) s.bodies->push_back(body);
        },
        &sink);
}

}  // namespace

std::unique_ptr<BroadPhase<3>> make_jolt_quadtree_peer() {
    return std::make_unique<JoltQuadtreePeer>();
}

}  // namespace collide::bench
