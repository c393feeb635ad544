// What changed since a broad phase's last update. Games' worlds are mostly static or asleep,
// and bodies come and go: told which bodies move and which joined or left the still set, a
// broad phase can keep its still bodies in a structure built once and spend each frame on
// the moving ones (BroadPhase::update_changes). StillSet is the bookkeeping of that stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "collide/core.hpp"

namespace collide {

// One update's worth of changes. A body is present when it is in `moving` or in the still
// set; the still set is what `stilled` added and `left` took away, over every update since
// the last reset. Reported: every overlapping pair of present bodies with at least one
// moving, exactly once (a < b); never a pair of two still bodies.
template <int D>
struct BodyChanges {
    // Every slot's box, indexed by body id. Only present bodies' boxes are read.
    std::span<const Aabb<D>> boxes;
    // Every present body that may move, every frame (any order, no repeats).
    std::span<const BodyId> moving;
    // Bodies that joined the still set since the last update (static, or asleep). Their
    // boxes stay as they are until they leave it.
    std::span<const BodyId> stilled;
    // Bodies that left the still set since the last update: woken, removed, or moved by hand
    // (in this same update they may be back in `moving` or in `stilled`).
    std::span<const BodyId> left;
    // Forget everything held: the still set is exactly `stilled` (a first update, a new world).
    bool reset = false;
};

// Where each body stands after a stream of BodyChanges: absent, moving or still. It checks
// the stream: a change that contradicts the state throws std::invalid_argument naming the
// body, and the set then accepts nothing but a reset.
class StillSet {
public:
    enum class State : std::uint8_t { kAbsent, kMoving, kStill };

    template <int D>
    void apply(const BodyChanges<D>& c) {
        apply(c.boxes.size(), c.moving, c.stilled, c.left, c.reset);
    }
    void apply(std::size_t slots, std::span<const BodyId> moving, std::span<const BodyId> stilled,
               std::span<const BodyId> left, bool reset);

    State state(BodyId id) const { return id < state_.size() ? state_[id] : State::kAbsent; }
    std::size_t slots() const { return state_.size(); }
    std::size_t present() const { return moving_.size() + still_; }
    std::size_t still() const { return still_; }
    // Per slot: 1 where the body is still (the whole-array update's is_static).
    std::span<const std::uint8_t> still_flags() const { return still_flags_; }
    // The last update's moving bodies, in its order; and whether they were the same list as
    // the update's before (no reset between).
    std::span<const BodyId> moving() const { return moving_; }
    bool same_moving() const { return same_moving_; }

private:
    [[noreturn]] void reject(const char* list, BodyId id, const char* why);
    void to(BodyId id, State s);

    std::vector<State> state_;
    std::vector<std::uint8_t> still_flags_;
    std::vector<BodyId> moving_;
    std::size_t still_ = 0;
    bool broken_ = false;  // a rejected update left the state half applied
    bool same_moving_ = false;
};

}  // namespace collide
