// Sleeping by island, as Box2D and Jolt have it. A body that stays slower than
// WorldSettings::sleep_speed gathers rest time; once every body of an island (bodies joined
// by contacts, the walls and static bodies not counted) has rested WorldSettings::sleep_time,
// the whole island falls asleep: it stops moving and costs nothing to step until a touch
// from an awake body, or a hand, wakes it again as a whole. Everything here runs in body and
// contact order on one thread (the rest timers aside, each a body's own), so the result is
// the same with any number of threads, and a snapshot of the three arrays restores it.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "collide/bodies.hpp"
#include "collide/core.hpp"
#include "collide/narrowphase.hpp"

namespace collide {

class SleepIslands {
public:
    // What a snapshot keeps. Empty vectors: nobody has ever slept (the arrays are made
    // only once sleeping is first on, so worlds without it carry nothing).
    struct State {
        std::vector<float> rest_time;  // seconds below the sleep speed; 0 while asleep
        // A sleeping body's island, as its smallest member, and the next member in body
        // order (kNoBody at the last); kNoBody for an awake body.
        std::vector<BodyId> island;
        std::vector<BodyId> next;
    };

    // What one step's bookkeeping reads.
    template <int D>
    struct Input {
        const WorldSettings<D>& settings;
        std::span<const BodyId> awake;  // the awake dynamic bodies, ascending
        std::span<const std::uint8_t> is_static;
        std::span<const Vec<D>> vel;
        std::span<const Spin<D>> spin;
        const std::vector<Contact<D>>& contacts;  // sorted by (a, b)
    };

    bool asleep(BodyId id) const { return id < s_.island.size() && s_.island[id] != kNoBody; }
    std::size_t sleeping() const { return sleeping_; }
    const State& state() const { return s_; }
    // Back to a snapshot's state for `bodies` bodies (an empty one: all awake).
    void restore(const State& s, std::size_t bodies);
    // Room for `bodies` bodies (at least as many as now), the new ones awake: a world that
    // added bodies. Until sleeping is first used the arrays stay empty.
    void grow(std::size_t bodies);
    bool used() const { return !s_.island.empty(); }
    // A body that leaves the world (it must be awake): its rest time forgotten.
    void forget(BodyId id) {
        if (id < s_.rest_time.size()) s_.rest_time[id] = 0.0f;
    }
    // Everybody awake, rest times forgotten (sleeping switched off).
    void wake_all(std::vector<BodyId>& woken);

    // Wakes the island of `id` (nothing if it is awake): its members are appended to
    // `woken` in body order, their rest times zero.
    void wake(BodyId id, std::vector<BodyId>& woken);

    // After a step's solve: wakes every island an awake dynamic body touches, then advances
    // the rest timers and puts to sleep each island whose bodies have all rested long enough.
    // Appends the bodies woken to `woken` and those put to sleep to `slept`, in body order.
    template <int D>
    void update(const Input<D>& in, std::vector<BodyId>& woken, std::vector<BodyId>& slept);

private:
    BodyId root(BodyId id);  // union-find over parent_, halving paths

    State s_;
    std::size_t sleeping_ = 0;
    std::vector<BodyId> parent_;  // scratch: islands of this step's awake bodies
    std::vector<float> island_rest_;  // per root: the least rest time of its island
    std::vector<BodyId> tail_;        // per root: the member linked last, while linking
};

}  // namespace collide
