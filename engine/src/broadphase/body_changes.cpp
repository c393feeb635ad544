// StillSet: the bookkeeping of a stream of BodyChanges, in time proportional to the changes
// and the moving bodies (a reset or more slots cost the slots once).
#include "collide/body_changes.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace collide {

void StillSet::reject(const char* list, BodyId id, const char* why) {
    broken_ = true;
    throw std::invalid_argument("body changes: body " + std::to_string(id) + " in `" + list + "` " +
                                why);
}

void StillSet::to(BodyId id, State s) {
    if (state_[id] == State::kStill) --still_;
    if (s == State::kStill) ++still_;
    state_[id] = s;
    still_flags_[id] = s == State::kStill;
}

void StillSet::apply(std::size_t slots, std::span<const BodyId> moving,
                     std::span<const BodyId> stilled, std::span<const BodyId> left, bool reset) {
    if (broken_ && !reset)
        throw std::invalid_argument("body changes: a rejected update needs a reset to follow it");
    if (reset) {
        state_.assign(slots, State::kAbsent);
        still_flags_.assign(slots, 0);
        moving_.clear();
        still_ = 0;
        broken_ = false;
    }
    // The same moving list as last frame's (a world whose awake set did not change) keeps
    // those bodies as they are, without touching a state: the list was checked when it came.
    const bool same_moving = same_moving_ =
        !reset && slots == state_.size() &&
        std::equal(moving.begin(), moving.end(), moving_.begin(), moving_.end());
    if (slots < state_.size()) {
        for (std::size_t id = slots; id < state_.size(); ++id)
            if (state_[id] == State::kStill)
                reject("stilled", static_cast<BodyId>(id), "has no box: past the last slot");
        state_.resize(slots);
        still_flags_.resize(slots);
    }
    state_.resize(slots, State::kAbsent);
    still_flags_.resize(slots, 0);
    // Last frame's moving bodies are absent unless this frame names them again.
    if (!same_moving)
        for (const BodyId id : moving_)
            if (id < slots) to(id, State::kAbsent);
    const auto in_range = [&](const char* list, BodyId id) {
        if (id >= slots) reject(list, id, "is past the last slot");
    };
    for (const BodyId id : left) {
        in_range("left", id);
        if (state_[id] != State::kStill) reject("left", id, "was not still");
        to(id, State::kAbsent);
    }
    for (const BodyId id : stilled) {
        in_range("stilled", id);
        if (state_[id] != State::kAbsent)
            reject("stilled", id,
                   state_[id] == State::kStill ? "is already still" : "is in `moving` too");
        to(id, State::kStill);
    }
    if (same_moving) return;
    for (const BodyId id : moving) {
        in_range("moving", id);
        if (state_[id] != State::kAbsent)
            reject("moving", id,
                   state_[id] == State::kStill ? "is still (it never left)" : "is named twice");
        to(id, State::kMoving);
    }
    moving_.assign(moving.begin(), moving.end());
}

}  // namespace collide
