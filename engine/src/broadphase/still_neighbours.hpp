// Each moving body's still neighbours: the still structure's entries that overlap the body's
// box grown by a margin, found by one query and kept while the body stays inside that fat
// box, so a frame queries the still structure only for the bodies that moved out of theirs
// (Box2D's enlarged boxes, for the moving-still pairs alone). Exact as long as the still
// structure's entries do not change: a rebuild must clear() it, and entries that died since
// (tombstones) are the caller's to skip.
// Memory is read in order: each neighbour keeps a copy of its box and body (a still body's
// box does not change while it is still), and every frame rewrites the runs in the order of
// that frame's moving bodies, so a frame streams them instead of one cache miss per body.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "collide/broadphase.hpp"

namespace collide {

template <int D>
class StillNeighbours {
public:
    // The fat box grows the body's box by this share of its largest side on every side: at
    // the bench's speeds a body re-queries about once in twenty frames, and the neighbours
    // it holds are the few more that a box twice as wide meets.
    static constexpr float kMarginShare = 0.5f;

    // Forget every body's neighbours (the still structure's entries changed).
    void clear();
    // Starts a frame over these moving bodies; `same_as_last` when the list is last frame's.
    // Bodies not in it lose what they held.
    void start(std::span<const BodyId> moving, bool same_as_last);
    // Calls `hit(entry, body)` for every entry of `still` (a structure over `still_boxes`,
    // of the bodies `still_ids`, both indexed by entry) whose box overlaps `box`, the box of
    // the frame's moving body `i` (in start()'s list, visited in that order, each once).
    template <typename Hit>
    void visit(std::uint32_t i, const Aabb<D>& box, const BroadPhase<D>& still,
               std::span<const Aabb<D>> still_boxes, std::span<const BodyId> still_ids, Hit&& hit) {
        const Run run = carry_or_query(i, box, still, still_boxes, still_ids);
        boxes_tested_ += 1 + run.count;  // the containment test, then each neighbour
        for (std::uint32_t k = run.begin; k < run.begin + run.count; ++k)
            if (next_arena_[k].box.overlaps(box)) hit(next_arena_[k].entry, next_arena_[k].body);
    }
    // Ends the frame: the runs visited become the ones held.
    void finish();

    // In the last frame: bodies whose fat box was left (each one query), and box tests.
    std::uint64_t queries() const { return queries_; }
    std::uint64_t boxes_tested() const { return boxes_tested_; }
    std::size_t bytes() const;
    // The runs tile the arena in order.
    void validate() const;

private:
    static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
    struct Neighbour {
        Aabb<D> box;
        BodyId entry, body;
    };
    struct Run {
        Aabb<D> fat{};
        std::uint32_t begin = 0, count = 0;  // in the arena
    };

    // Appends moving body i's run to the next arena: last frame's, when its box is still
    // inside that fat box, else a new query's.
    Run carry_or_query(std::uint32_t i, const Aabb<D>& box, const BroadPhase<D>& still,
                       std::span<const Aabb<D>> still_boxes, std::span<const BodyId> still_ids);

    // Held: per moving body of the last frame, in its order. Next: this frame's, being written.
    std::vector<Run> runs_, next_runs_;
    std::vector<Neighbour> arena_, next_arena_;
    std::vector<BodyId> held_for_;  // the bodies runs_ belong to
    // Per place in this frame's list: the run of runs_ it carries, or kNone. Filled only when
    // the list changed; else place i carries run i.
    std::vector<std::uint32_t> carried_;
    bool same_as_last_ = false;
    std::vector<std::uint32_t> run_of_body_;  // scratch of start(), all kNone between frames
    std::vector<BodyId> hits_;
    std::uint64_t queries_ = 0, boxes_tested_ = 0;
};

}  // namespace collide
