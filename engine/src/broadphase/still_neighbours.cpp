// StillNeighbours: carrying the runs from frame to frame, and querying for the bodies that
// left their fat boxes.
#include "broadphase/still_neighbours.hpp"

#include <cassert>
#include <string>

namespace collide {

namespace {

template <int D>
bool inside(const Aabb<D>& box, const Aabb<D>& fat) {
    bool in = true;
    for (int k = 0; k < D; ++k) in &= box.lo[k] >= fat.lo[k] && box.hi[k] <= fat.hi[k];
    return in;  // false for NaN: such a box queries every frame
}

}  // namespace

template <int D>
void StillNeighbours<D>::clear() {
    runs_.clear();
    arena_.clear();
    held_for_.clear();
}

template <int D>
void StillNeighbours<D>::start(std::span<const BodyId> moving, bool same_as_last) {
    same_as_last_ = same_as_last && moving.size() == held_for_.size();
    if (!same_as_last_) {
        // Which run each body of the new list held: a map by body id, undone afterwards.
        for (std::uint32_t r = 0; r < held_for_.size(); ++r) {
            if (held_for_[r] >= run_of_body_.size()) run_of_body_.resize(held_for_[r] + 1, kNone);
            run_of_body_[held_for_[r]] = r;
        }
        carried_.resize(moving.size());
        for (std::uint32_t i = 0; i < moving.size(); ++i)
            carried_[i] = moving[i] < run_of_body_.size() ? run_of_body_[moving[i]] : kNone;
        for (const BodyId id : held_for_) run_of_body_[id] = kNone;
        held_for_.assign(moving.begin(), moving.end());
    }
    next_runs_.clear();
    next_arena_.clear();
    queries_ = boxes_tested_ = 0;
}

template <int D>
typename StillNeighbours<D>::Run StillNeighbours<D>::carry_or_query(
    std::uint32_t i, const Aabb<D>& box, const BroadPhase<D>& still,
    std::span<const Aabb<D>> still_boxes, std::span<const BodyId> still_ids) {
    assert(i == next_runs_.size());
    const std::uint32_t held = same_as_last_ ? i : carried_[i];
    Run run{.begin = static_cast<std::uint32_t>(next_arena_.size())};
    if (held != kNone && held < runs_.size() && inside(box, runs_[held].fat)) {
        run.fat = runs_[held].fat;
        run.count = runs_[held].count;
        const auto from = arena_.begin() + runs_[held].begin;
        next_arena_.insert(next_arena_.end(), from, from + run.count);
    } else {
        ++queries_;
        const float margin = kMarginShare * box.largest_side();
        run.fat = {box.lo - Vec<D>(margin), box.hi + Vec<D>(margin)};
        still.query(run.fat, hits_);
        run.count = static_cast<std::uint32_t>(hits_.size());
        for (const BodyId entry : hits_)
            next_arena_.push_back({still_boxes[entry], entry, still_ids[entry]});
    }
    next_runs_.push_back(run);
    return run;
}

template <int D>
void StillNeighbours<D>::finish() {
    runs_.swap(next_runs_);
    arena_.swap(next_arena_);
}

template <int D>
std::size_t StillNeighbours<D>::bytes() const {
    return (runs_.capacity() + next_runs_.capacity()) * sizeof(Run) +
           (arena_.capacity() + next_arena_.capacity()) * sizeof(Neighbour) +
           (held_for_.capacity() + carried_.capacity() + run_of_body_.capacity() +
            hits_.capacity()) *
               4;
}

template <int D>
void StillNeighbours<D>::validate() const {
    const InvariantFail fail("still split", "neighbours: ");
    if (runs_.size() != held_for_.size())
        fail(std::to_string(runs_.size()) + " runs for " + std::to_string(held_for_.size()) +
             " bodies");
    std::size_t at = 0;
    for (std::size_t r = 0; r < runs_.size(); ++r) {
        if (runs_[r].begin != at)
            fail("run " + std::to_string(r) + " begins at " + std::to_string(runs_[r].begin) +
                 " where " + std::to_string(at) + " was expected");
        at += runs_[r].count;
    }
    if (at != arena_.size())
        fail("the runs hold " + std::to_string(at) + " of the arena's " +
             std::to_string(arena_.size()) + " neighbours");
    for (const std::uint32_t r : run_of_body_)
        if (r != kNone) fail("the body map was left filled");
}

template class StillNeighbours<2>;
template class StillNeighbours<3>;

}  // namespace collide
