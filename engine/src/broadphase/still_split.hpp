// Still split: an algorithm's real path for worlds that are mostly static or asleep, as
// Box2D and Jolt keep a static tree apart from the moving one. Fed BodyChanges, it holds two
// instances of the algorithm:
// - the still structure, over the still bodies, built at a reset and rebuilt only when the
//   changes since its build pass a share of it (kRebuildShare, and at least kRebuildAtLeast);
//   until then a body that left the still set stays in it as a tombstone, skipped when met;
// - the moving structure, updated every frame on the moving bodies and the still bodies not
//   yet in the still structure (flagged static there, so two of them make no pair).
// Moving-still pairs come from the still entries each moving body holds (StillNeighbours),
// which query the still structure only when the body has moved out of its fat box. A frame then
// costs the moving bodies, their queries and the rebuilds' share, not the whole world. Fed whole
// arrays (update()), it is the algorithm itself, unchanged.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "broadphase/still_neighbours.hpp"
#include "collide/broadphase.hpp"
#include "collide/broadphase_view.hpp"

namespace collide {

template <int D>
class StillSplit final : public BroadPhase<D>, public BroadPhaseView<D> {
public:
    using Factory = std::unique_ptr<BroadPhase<D>> (*)();
    // The still structure is rebuilt once the bodies that joined the still set since its
    // build, plus those that left it, outnumber this share of it...
    static constexpr double kRebuildShare = 0.25;
    // ...and this many: below it they cost no more than as many moving bodies.
    static constexpr std::size_t kRebuildAtLeast = 1024;

    // `make_still` builds the still structure, `make_moving` the moving one (the same
    // algorithm for a row of the registry; auto races its candidates on the moving bodies).
    StillSplit(Factory make_still, Factory make_moving);

    void update_whole(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                      PairList& out) override;
    void update_changes(const BodyChanges<D>& changes, PairList& out) override;
    void search(const Aabb<D>& region, std::vector<BodyId>& out,
                QueryTrace<D>* trace = nullptr) const override;
    BroadPhaseStats stats() const override;
    std::span<Param> params() override { return moving_->params(); }
    // The heat map is the moving structure's, and only on the whole-array path (the still
    // bodies' share of the work is in queries nobody attributes).
    void set_cost_tracking(bool on) override { moving_->set_cost_tracking(on); }
    bool body_costs(std::span<std::uint32_t> out) const override;
    void validate() const override;

    void draw(DebugDraw<D>& draw, const Overlays<D>& which) const override;
    std::string describe(BodyId id) const override;
    std::vector<std::string> layers() const override { return view_of(*moving_).layers(); }
    std::vector<LegendEntry> legend() const override;
    std::string status() const override;
    // Watch mode records update(), which is the moving structure alone on the caller's
    // arrays (update_whole): its recorder, script and reason are the moving structure's.
    bool set_watch(WatchRecorder<D>* recorder) override;
    WatchScript watch_script() const override { return view_of(*moving_).watch_script(); }
    std::string why_not_recorded() const override { return view_of(*moving_).why_not_recorded(); }

    // The still structure's overlay colour (its alphas kept), apart from the moving one's.
    static constexpr Color kStillColor = rgba(0.45f, 0.62f, 0.95f);

    // Rebuilds of the still structure so far (the reset's included).
    int rebuilds() const { return rebuilds_; }

private:
    void apply(const BodyChanges<D>& changes);
    bool rebuild_due() const;
    void rebuild_still(std::span<const Aabb<D>> boxes);
    void pair_moving(std::span<const Aabb<D>> boxes, PairList& out);
    void pair_with_still(std::span<const Aabb<D>> boxes, PairList& out);
    // An entry of the moving structure for `id` (still: on the side), at the end; and its
    // removal, the last entry moved into its place.
    void add_entry(BodyId id, bool still);
    void remove_entry(BodyId id);
    bool settled(BodyId id) const { return id < settled_.size() && settled_[id] != 0; }
    bool params_drifted() const;
    // The moving structure's last update still holds: nothing in it moves, no entry came or
    // went since, and its parameters are the same. A frame then has no pairs there (two
    // still bodies never pair) and leaves it as it is: a world asleep costs nothing.
    bool moving_idle() const;

    std::unique_ptr<BroadPhase<D>> still_, moving_;
    bool split_ = false;  // fed changes since the last reset (else: whole arrays)
    StillSet bodies_;     // absent, moving or still, checked
    // Per slot: 1 for a live entry of the still structure, 1 for an entry of the moving
    // structure; and the body's entry in still_ids_ (settled) or entries_ (entered).
    std::vector<std::uint8_t> settled_, entered_;
    std::vector<std::uint32_t> index_;
    std::vector<BodyId> moving_ids_;  // this frame's moving bodies, in the caller's order
    // The moving structure's entries: the moving bodies and the still ones not in the still
    // structure (the side, flagged still). A body keeps its entry while it stays, so bodies
    // coming and going change only their own entries and the moved last one, and a structure
    // that follows its entries from frame to frame (a tree's fat boxes) sees few of them move.
    std::vector<BodyId> entries_;
    std::vector<std::uint8_t> entry_still_;
    std::size_t side_ = 0;           // entries flagged still
    std::vector<BodyId> still_ids_;  // the still structure's entries, tombstones too
    std::vector<Aabb<D>> still_boxes_;
    std::size_t tombstones_ = 0;  // entries of still_ids_ whose body left
    std::vector<Aabb<D>> move_boxes_;  // the moving structure's input, by entry
    std::vector<std::uint8_t> all_still_;  // the still structure's is_static
    PairList scratch_;
    mutable std::vector<BodyId> hits_;
    StillNeighbours<D> neighbours_;  // the moving bodies' still entries, held between frames
    int rebuilds_ = 0;
    bool rebuilt_ = false;             // in the last update
    bool entries_changed_ = true;      // since the moving structure's last update
    bool moving_skipped_ = false;      // the last update left the moving structure as it was
    std::vector<float> moving_params_;  // the parameters of its last update
    bool stale_ = true;                // a reset came: rebuild whatever the drift
    std::vector<float> still_params_;  // the parameters the still structure was built with
};

}  // namespace collide
