// World<D>: the simulation of circles (D = 2) or spheres (D = 3), and implicit bodies, in a
// box with bouncing walls. One step only orchestrates: integrate (semi-implicit Euler),
// compute boxes, ask the broad phase (given by the caller) for pairs, keep the real contacts
// (narrow phase) and solve them. The contact solver (collide/contact_solver.hpp), continuous
// collision (collide/continuous.hpp) and implicit bodies (collide/implicit_bodies.hpp) are
// parts it calls; observers such as the tunnelling check (collide/tunnelling_check.hpp)
// watch each step from outside.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collide/bodies.hpp"
#include "collide/broadphase.hpp"
#include "collide/contact_solver.hpp"
#include "collide/continuous.hpp"
#include "collide/core.hpp"
#include "collide/implicit_bodies.hpp"
#include "collide/narrowphase.hpp"
#include "collide/sleep_islands.hpp"

namespace collide {

// Milliseconds spent in each phase of the last step. The step's observer (the tunnelling
// check) is a measuring instrument, not part of the step, so it is timed apart and left out
// of the total.
struct StepTimings {
    double integrate_ms = 0;
    double broad_ms = 0;
    double narrow_ms = 0;
    double resolve_ms = 0;
    double tunnel_check_ms = 0;
    double total_ms() const { return integrate_ms + broad_ms + narrow_ms + resolve_ms; }
};

template <int D>
class World;

// Watches a step from outside the world.
template <int D>
class StepObserver {
public:
    virtual ~StepObserver() = default;
    // Called once per step after the narrow phase, before the solver: the bodies stand where
    // the integration (and any time-of-impact stop) took them, start_positions() are where
    // they began the step, and contacts() are the step's.
    virtual void observe(const World<D>& world) = 0;
};

template <int D>
class World {
public:
    // The world's state after a step: everything the next step depends on, so that
    // restore() and stepping on reproduce the original run bit for bit, plus what the last
    // step left for viewers (its boxes, contacts, impacts and implicit contacts). The broad
    // phase's own structure is not kept: its pairs are exact whatever frames it has seen,
    // and the contacts are sorted by pair, so the world never depends on their order.
    // Shapes never change and are not kept; radii and static flags are kept (as `slots`)
    // only once bodies have been added or removed.
    struct Snapshot {
        WorldSettings<D> settings;
        std::vector<Vec<D>> pos;
        std::vector<Vec<D>> vel;
        std::vector<Rotation<D>> rotation;
        std::vector<Spin<D>> spin;
        std::uint64_t steps = 0;
        typename ContactSolver<D>::WarmStart warm_start;  // the solver's last impulses
        std::vector<Aabb<D>> boxes;                       // the last step's, as it found them
        std::vector<Contact<D>> contacts;
        std::vector<Pair> impact_pairs;
        std::vector<ImplicitContactInfo<D>> implicit_contacts;
        ImplicitCounters implicit_counters;
        std::uint64_t implicit_tests = 0;
        SleepIslands::State sleep;  // who sleeps, in which island, and the rest timers
        // The slots, where bodies have come and gone (empty before the first add or remove).
        struct Slots {
            std::vector<float> radius;
            std::vector<std::uint8_t> is_static;
            std::vector<std::uint8_t> present;
            std::vector<std::uint32_t> generation;
            std::vector<BodyId> free;  // the order add_body takes them back in
        } slots;

        // Heap bytes held (the vectors' contents).
        std::size_t bytes() const;
    };

    World(const WorldSettings<D>& settings, Bodies<D> bodies,
          std::unique_ptr<BroadPhase<D>> broad_phase);

    // Swap the broad phase live; the bodies are untouched.
    void set_broad_phase(std::unique_ptr<BroadPhase<D>> broad_phase);
    BroadPhase<D>* broad_phase() const { return broad_phase_.get(); }

    // One step on the caller's threads: the oneTBB task arena it is called from (see
    // broadphase.hpp); the same state on any number.
    void step(StepObserver<D>* observer = nullptr);

    Snapshot snapshot() const;
    // The same into `s`, reusing its buffers: at a million bodies a fresh snapshot is 40 MB
    // of new pages, and faulting them in cost more than copying (the app's rewind buffer
    // takes one every step).
    void snapshot_into(Snapshot& s) const;
    // Puts the world back in the state of `s`, a snapshot of this world (same bodies), and
    // runs the broad phase on the restored boxes, so its structure and pairs() are that
    // step's again.
    void restore(const Snapshot& s);

    // Bodies that come and go. add_body places a circle/sphere (static with `fixed`) in a
    // free slot, the last one freed first, or a new one; remove_body frees its slot, waking
    // the island it slept in. The pairs follow at the next step or refresh_pairs(). Bad input
    // (a position or velocity that is not finite, a radius not > 0; a handle whose body was
    // removed, or that names no slot; an implicit body) throws std::invalid_argument naming
    // the value or the handle, and changes nothing.
    BodyHandle add_body(const Vec<D>& pos, const Vec<D>& vel, float radius, bool fixed = false);
    void remove_body(BodyHandle body);
    // Whether slot `id` holds a body, and its handle while it does. An empty slot's box is
    // empty (lo above hi), so a viewer that reads every box finds nothing there.
    bool present(BodyId id) const { return id < present_.size() && present_[id] != 0; }
    BodyHandle handle(BodyId id) const;
    std::size_t present_count() const { return bodies_.size() - free_slots_.size(); }

    // Put a body somewhere (the app's drag); its box follows at once, the pairs at the next
    // step or refresh_pairs(). A sleeping body's island wakes. A position or velocity that is
    // not finite throws std::invalid_argument naming the body, and changes nothing.
    void move_body(BodyId id, const Vec<D>& pos, const Vec<D>& vel);
    // The broad and narrow phase again on the current boxes, without stepping: a viewer of a
    // paused world that moved a body sees the structure, pairs and contacts where it now is.
    void refresh_pairs();

    const Bodies<D>& bodies() const { return bodies_; }
    WorldSettings<D>& settings() { return settings_; }
    const WorldSettings<D>& settings() const { return settings_; }
    std::span<const Aabb<D>> boxes() const { return boxes_; }
    // The last broad phase's pairs: exact for the still set it saw, which is after the
    // step's wakes (a removal, a drag, a touch) and before the sleeps the step ends with.
    const PairList& pairs() const { return pairs_; }
    const std::vector<Contact<D>>& contacts() const { return contacts_; }
    // Where the bodies began the last step (kept for swept or observed steps only).
    std::span<const Vec<D>> start_positions() const { return start_pos_; }
    const StepTimings& timings() const { return timings_; }
    // The pairs the last step's broad phase found when they were over settings().max_pairs
    // (the step stopped there: no contacts, no motion solved), else 0.
    std::size_t pairs_over_budget() const { return pairs_over_budget_; }
    std::uint64_t steps() const { return steps_; }
    // Sleeping (WorldSettings::sleep): whether a body sleeps, how many do, and how many
    // dynamic bodies are awake (the ones a step moves).
    bool asleep(BodyId id) const { return sleep_.asleep(id); }
    std::size_t sleeping() const { return sleep_.sleeping(); }
    std::size_t awake() const { return moving_ids_.size(); }
    std::size_t static_count() const { return static_count_; }
    // Changes whenever who sleeps, or which slots hold a body, may have (a viewer's cue to
    // recolour).
    std::uint64_t flags_revision() const { return flags_revision_; }
    // Changes whenever a body's position or velocity may have (a step, a restore, a moved
    // body), so a viewer can skip copying a million unchanged bodies while paused.
    std::uint64_t revision() const { return revision_; }
    double kinetic_energy() const;
    // Pairs that met at a time of impact in the last step (swept only).
    std::size_t impacts() const { return continuous_.impacts(); }
    // The first touch of body `id` within `horizon` seconds, by a linear scan of the bodies.
    std::optional<PredictedImpact<D>> predict_impact(BodyId id, float horizon) const {
        return collide::predict_impact<D>(bodies_, id, horizon);
    }

    // Implicit bodies (all zero / empty in a world of circles or spheres only).
    bool has_implicit() const { return implicit_.any(); }
    const ImplicitCounters& implicit_counters() const { return implicit_.counters(); }
    std::uint64_t implicit_tests() const { return implicit_.tests(); }
    const std::vector<ImplicitContactInfo<D>>& implicit_contacts() const {
        return implicit_.contacts();
    }

private:
    // Moves the awake bodies by dt and lists those at walls (at_walls_); with `boxes`, also
    // each one's sphere box around its new place (compute_boxes' first pass, fused: one read
    // of the bodies). Still bodies (static, asleep) keep their boxes.
    void integrate(float dt, bool boxes);
    // at_walls_ again, where the bodies were moved since integrate (a swept step's impacts).
    void find_bodies_at_walls();
    template <typename Body>
    void for_each_block_at_walls(const Body& body);
    // Appends the awake bodies at moving_ids_[begin, end) that touch a wall.
    void list_at_walls(std::size_t begin, std::size_t end, std::vector<BodyId>& at_walls) const;
    // The k-th awake body, in body order.
    BodyId moving_at(std::size_t k) const {
        return moving_ids_.size() == bodies_.size() ? BodyId(k) : moving_ids_[k];
    }
    void compute_boxes();
    // The boxes of what is not a plain sphere at its place: swept paths, implicit bodies.
    void finish_boxes();
    void find_contacts();
    void solve(float dt);
    // The broad phase's update. With still bodies (static, asleep) it is told what changed:
    // all still bodies once after a reset (a new world, a new broad phase, a restore, the
    // first still body), then only those that fell asleep, woke or were moved by hand, so a
    // mostly-still world's step costs its moving bodies.
    void update_broad_phase();
    // Remembers that `id` may have joined or left the still set (or, `moved`, was moved by
    // hand while still) since the broad phase's last update.
    void note_change(BodyId id, bool moved);
    bool still_body(BodyId id) const {
        return present_[id] && (bodies_.is_static[id] || sleep_.asleep(id));
    }
    // Throws std::invalid_argument naming `what` unless `v` is finite.
    static void check_finite(const Vec<D>& v, const std::string& what);
    // The slots as they are, for a snapshot; and back from one.
    void slots_into(typename Snapshot::Slots& s) const;
    void restore_slots(const typename Snapshot::Slots& s);
    // Sleeping's bookkeeping after a step, and what it changed: woken bodies move again,
    // sleeping ones stop (their velocity zero, their mass infinite to the solver).
    void update_sleep();
    void apply_sleep_changes();
    // The solver's inverse mass of an awake body.
    float inv_mass_of(BodyId id) const;
    // moving_ids_ and inv_mass_ from the static flags and who sleeps.
    void rebuild_moving();

    WorldSettings<D> settings_;
    Bodies<D> bodies_;
    ImplicitBodies<D> implicit_;  // after bodies_: it completes their implicit columns
    std::vector<float> inv_mass_;
    std::vector<Aabb<D>> boxes_;
    std::unique_ptr<BroadPhase<D>> broad_phase_;
    SleepIslands sleep_;
    std::vector<BodyId> woken_, slept_;  // this step's, for apply_sleep_changes
    std::size_t static_count_ = 0;      // present static bodies
    // Slots: 1 where a body is; generation per slot; the free ones, taken back last first.
    std::vector<std::uint8_t> present_;
    std::vector<std::uint32_t> generation_;
    std::vector<BodyId> free_slots_;
    // Once bodies came or went, snapshots keep the slots, and this copy of them as the world
    // began restores a snapshot taken before (empty until then).
    bool churned_ = false;
    typename Snapshot::Slots initial_slots_;
    std::vector<BodyId> moving_ids_;    // awake dynamic bodies, ascending
    // What the broad phase holds still (as of its last update), and the bodies that may
    // have changed since, each listed once (change_flags_: 1 listed, 2 moved by hand).
    std::vector<std::uint8_t> broad_still_, change_flags_;
    std::vector<BodyId> changed_, stilled_, left_;
    bool changes_active_ = false;  // the last update was update_changes
    bool changes_reset_ = true;    // the next update_changes resets
    PairList pairs_;
    std::size_t pairs_over_budget_ = 0;
    std::vector<Contact<D>> contacts_;
    std::vector<Vec<D>> start_pos_;
    // The moving bodies that touch a wall, in body order (the solver's wall contacts), and
    // per block of bodies, those found by its task.
    std::vector<BodyId> at_walls_;
    std::vector<std::vector<BodyId>> at_walls_of_block_;
    std::vector<std::size_t> at_walls_offsets_;  // scratch for their join
    ContinuousCollision<D> continuous_;
    ContactSolver<D> solver_;
    StepTimings timings_;
    std::uint64_t steps_ = 0;
    std::uint64_t revision_ = 0;
    std::uint64_t flags_revision_ = 0;
};

}  // namespace collide
