#include "collide/world.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <tbb/parallel_for.h>

#include "parallel/ordered_join.hpp"
#include "sim/for_each_index.hpp"

namespace collide {

namespace {

using Clock = std::chrono::steady_clock;

// Bodies per task of the per-body loops: each body's update is its own, so the result does
// not depend on how the range is cut, only the speed does.
constexpr std::size_t kBodiesPerTask = 8192;

template <typename Fn>
void for_each_body(std::size_t n, const Fn& fn) {
    for_each_index(n, kBodiesPerTask, fn);
}

// to = from, reusing to's buffer, copied in blocks on oneTBB's threads.
template <typename T>
void copy_in_blocks(const std::vector<T>& from, std::vector<T>& to) {
    to.resize(from.size());
    for_each_body(from.size(), [&](std::size_t i) { to[i] = from[i]; });
}

double ms_since(Clock::time_point& t) {
    const auto now = Clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - t).count();
    t = now;
    return ms;
}

}  // namespace

template <int D>
World<D>::World(const WorldSettings<D>& settings, Bodies<D> bodies,
                std::unique_ptr<BroadPhase<D>> broad_phase)
    : settings_(settings),
      bodies_(std::move(bodies)),
      implicit_(bodies_),
      broad_phase_(std::move(broad_phase)) {
    const std::size_t n = bodies_.size();
    assert(bodies_.vel.size() == n && bodies_.radius.size() == n && bodies_.is_static.size() == n);
    assert(broad_phase_);
    present_.assign(n, 1);
    generation_.assign(n, 0);
    rebuild_moving();
    boxes_.resize(n);
    compute_boxes();
}

template <int D>
float World<D>::inv_mass_of(BodyId id) const {
    if (bodies_.is_static[id]) return 0.0f;
    // Unit density; a zero radius still gets a finite (tiny) mass.
    const float r = std::max(bodies_.radius[id], 1e-3f);
    return 1.0f / std::pow(r, static_cast<float>(D));
}

template <int D>
void World<D>::rebuild_moving() {
    const std::size_t n = bodies_.size();
    inv_mass_.resize(n);
    moving_ids_.clear();
    static_count_ = 0;
    for (BodyId i = 0; i < n; ++i) {
        static_count_ += present_[i] && bodies_.is_static[i];
        const bool moves = present_[i] && !still_body(i);
        inv_mass_[i] = moves ? inv_mass_of(i) : 0.0f;
        if (moves) moving_ids_.push_back(i);
    }
}

template <int D>
void World<D>::note_change(BodyId id, bool moved) {
    change_flags_.resize(bodies_.size(), 0);
    if (change_flags_[id] == 0) changed_.push_back(id);
    change_flags_[id] |= 1 | (moved ? 2 : 0);
}

template <int D>
void World<D>::update_broad_phase() {
    const std::size_t n = bodies_.size();
    const auto forget_changes = [&] {
        for (const BodyId id : changed_) change_flags_[id] = 0;
        changed_.clear();
    };
    if (static_count_ + sleep_.sleeping() + free_slots_.size() == 0) {
        forget_changes();
        changes_active_ = false;
        broad_phase_->update(boxes_, bodies_.is_static, pairs_);
        return;
    }
    const bool reset = changes_reset_ || !changes_active_;
    stilled_.clear();
    left_.clear();
    if (reset) {
        forget_changes();
        broad_still_.assign(n, 0);
        for (BodyId id = 0; id < n; ++id) {
            if (still_body(id)) {
                broad_still_[id] = 1;
                stilled_.push_back(id);
            }
        }
    } else {
        broad_still_.resize(n, 0);  // slots added since
        for (const BodyId id : changed_) {
            const bool was = broad_still_[id] != 0, now = still_body(id);
            const bool moved = (change_flags_[id] & 2) != 0;
            if (was && (!now || moved)) left_.push_back(id);
            if (now && (!was || moved)) stilled_.push_back(id);
            broad_still_[id] = now;
        }
        forget_changes();
    }
    broad_phase_->update_changes({boxes_, moving_ids_, stilled_, left_, reset}, pairs_);
    changes_active_ = true;
    changes_reset_ = false;
}

template <int D>
void World<D>::set_broad_phase(std::unique_ptr<BroadPhase<D>> broad_phase) {
    assert(broad_phase);
    broad_phase_ = std::move(broad_phase);
    changes_reset_ = true;
}

template <int D>
void World<D>::check_finite(const Vec<D>& v, const std::string& what) {
    for (int k = 0; k < D; ++k) {
        if (!std::isfinite(v[k]))
            throw std::invalid_argument(what + " must be finite numbers, not " +
                                        std::to_string(v[k]));
    }
}

template <int D>
BodyHandle World<D>::handle(BodyId id) const {
    return present(id) ? BodyHandle{id, generation_[id]} : BodyHandle{};
}

template <int D>
void World<D>::slots_into(typename Snapshot::Slots& s) const {
    s.radius = bodies_.radius;
    s.is_static = bodies_.is_static;
    s.present = present_;
    s.generation = generation_;
    s.free = free_slots_;
}

template <int D>
void World<D>::restore_slots(const typename Snapshot::Slots& s) {
    const std::size_t n = s.present.size();
    bodies_.radius = s.radius;
    bodies_.is_static = s.is_static;
    // Slots past the world's first bodies hold circles/spheres: only those come and go.
    bodies_.shape.resize(n, -1);
    present_ = s.present;
    generation_ = s.generation;
    free_slots_ = s.free;
    inv_mass_.resize(n);
}

template <int D>
BodyHandle World<D>::add_body(const Vec<D>& pos, const Vec<D>& vel, float radius, bool fixed) {
    check_finite(pos, "add body: the position");
    check_finite(vel, "add body: the velocity");
    if (!(radius > 0.0f) || !std::isfinite(radius))
        throw std::invalid_argument("add body: the radius must be a finite number > 0, not " +
                                    std::to_string(radius));
    if (!churned_) slots_into(initial_slots_);
    churned_ = true;
    BodyId id;
    if (free_slots_.empty()) {
        id = static_cast<BodyId>(bodies_.size());
        bodies_.add(pos, vel, radius, fixed);
        inv_mass_.push_back(0.0f);
        boxes_.emplace_back();
        present_.push_back(0);
        generation_.push_back(0);
        if (sleep_.used()) sleep_.grow(bodies_.size());
    } else {
        id = free_slots_.back();
        free_slots_.pop_back();
        bodies_.pos[id] = pos;
        bodies_.vel[id] = fixed ? Vec<D>(0.0f) : vel;
        bodies_.radius[id] = radius;
        bodies_.is_static[id] = fixed ? 1 : 0;
        bodies_.rotation[id] = Rotation<D>{};
        bodies_.spin[id] = Spin<D>{};
    }
    assert(!bodies_.is_implicit(id) && !sleep_.asleep(id));
    present_[id] = 1;
    boxes_[id] = Aabb<D>::around(pos, radius);
    inv_mass_[id] = inv_mass_of(id);
    if (fixed) {
        ++static_count_;
    } else {
        moving_ids_.insert(std::lower_bound(moving_ids_.begin(), moving_ids_.end(), id), id);
    }
    note_change(id, true);  // the broad phase may hold this slot still, with the old box
    ++flags_revision_;
    ++revision_;
    return {id, generation_[id]};
}

template <int D>
void World<D>::remove_body(BodyHandle body) {
    const BodyId id = body.id;
    const auto refuse = [&](const std::string& why) {
        throw std::invalid_argument("remove body: the handle (slot " + std::to_string(id) +
                                    ", generation " + std::to_string(body.generation) + ") " +
                                    why);
    };
    if (id >= bodies_.size()) refuse("names no slot: the world has " + std::to_string(bodies_.size()));
    if (body.generation < generation_[id] || (body.generation == generation_[id] && !present_[id]))
        refuse("is stale: its body was removed already");
    if (body.generation > generation_[id]) refuse("names a generation its slot never had");
    if (bodies_.is_implicit(id)) refuse("names an implicit body, which cannot be removed");
    if (!churned_) slots_into(initial_slots_);
    churned_ = true;
    if (sleep_.asleep(id)) {  // the island it rested in loses a support: it wakes
        sleep_.wake(id, woken_);
        apply_sleep_changes();
    }
    sleep_.forget(id);
    if (bodies_.is_static[id]) {
        --static_count_;
    } else {
        const auto at = std::lower_bound(moving_ids_.begin(), moving_ids_.end(), id);
        assert(at != moving_ids_.end() && *at == id);
        moving_ids_.erase(at);
    }
    present_[id] = 0;
    ++generation_[id];
    free_slots_.push_back(id);
    bodies_.vel[id] = Vec<D>(0.0f);
    inv_mass_[id] = 0.0f;
    constexpr float kInf = std::numeric_limits<float>::infinity();
    boxes_[id] = {Vec<D>(kInf), Vec<D>(-kInf)};
    note_change(id, false);
    ++flags_revision_;
    ++revision_;
}

template <int D>
void World<D>::move_body(BodyId id, const Vec<D>& pos, const Vec<D>& vel) {
    if (!present(id))
        throw std::invalid_argument("move body " + std::to_string(id) + ": no body in that slot");
    check_finite(pos, "move body " + std::to_string(id) + ": the position");
    check_finite(vel, "move body " + std::to_string(id) + ": the velocity");
    ++revision_;
    if (sleep_.asleep(id)) {
        sleep_.wake(id, woken_);
        apply_sleep_changes();
    }
    bodies_.pos[id] = pos;
    if (!bodies_.is_static[id]) bodies_.vel[id] = vel;
    if (bodies_.is_static[id]) note_change(id, true);  // leaves the still set and joins again
    boxes_[id] = ImplicitBodies<D>::box(bodies_, id);
}

template <int D>
void World<D>::update_sleep() {
    if (!settings_.sleep) {
        if (sleep_.sleeping() > 0) {
            sleep_.wake_all(woken_);
            apply_sleep_changes();
        }
        return;
    }
    settings_.sleep_time = std::max(settings_.sleep_time, 1e-6f);
    sleep_.update<D>({settings_, moving_ids_, bodies_.is_static, bodies_.vel, bodies_.spin, contacts_},
                     woken_, slept_);
    apply_sleep_changes();
}

template <int D>
void World<D>::apply_sleep_changes() {
    if (woken_.empty() && slept_.empty()) return;
    ++flags_revision_;
    for (const BodyId id : slept_) {
        bodies_.vel[id] = Vec<D>(0.0f);
        inv_mass_[id] = 0.0f;
        boxes_[id] = ImplicitBodies<D>::box(bodies_, id);  // not a swept one: it stays put
        note_change(id, false);
    }
    for (const BodyId id : woken_) {
        inv_mass_[id] = inv_mass_of(id);
        note_change(id, false);
    }
    // moving_ids_ without the slept, with the woken, ascending (both lists are in body order
    // within an island only).
    std::sort(slept_.begin(), slept_.end());
    std::sort(woken_.begin(), woken_.end());
    std::vector<BodyId> kept;
    kept.reserve(moving_ids_.size());
    std::set_difference(moving_ids_.begin(), moving_ids_.end(), slept_.begin(), slept_.end(),
                        std::back_inserter(kept));
    moving_ids_.clear();
    std::merge(kept.begin(), kept.end(), woken_.begin(), woken_.end(),
               std::back_inserter(moving_ids_));
    woken_.clear();
    slept_.clear();
}

template <int D>
typename World<D>::Snapshot World<D>::snapshot() const {
    Snapshot s;
    snapshot_into(s);
    return s;
}

template <int D>
void World<D>::snapshot_into(Snapshot& s) const {
    s.settings = settings_;
    copy_in_blocks(bodies_.pos, s.pos);
    copy_in_blocks(bodies_.vel, s.vel);
    copy_in_blocks(bodies_.rotation, s.rotation);
    copy_in_blocks(bodies_.spin, s.spin);
    s.steps = steps_;
    s.warm_start = solver_.warm_start();
    copy_in_blocks(boxes_, s.boxes);
    s.contacts = contacts_;
    s.impact_pairs = continuous_.impact_pairs();
    s.implicit_contacts = implicit_.contacts();
    s.implicit_counters = implicit_.counters();
    s.implicit_tests = implicit_.tests();
    if (churned_) {
        slots_into(s.slots);
    } else {
        s.slots = {};
    }
    const SleepIslands::State& sleep = sleep_.state();
    copy_in_blocks(sleep.rest_time, s.sleep.rest_time);
    copy_in_blocks(sleep.island, s.sleep.island);
    copy_in_blocks(sleep.next, s.sleep.next);
}

template <int D>
void World<D>::restore(const Snapshot& s) {
    // A snapshot from before the first add or remove has the world's first slots.
    if (churned_) restore_slots(s.slots.present.empty() ? initial_slots_ : s.slots);
    // The slots are the snapshot's now (radii restored), the positions not yet.
    assert(s.pos.size() == bodies_.radius.size() && s.boxes.size() == s.pos.size());
    settings_ = s.settings;
    ++revision_;
    bodies_.pos = s.pos;
    bodies_.vel = s.vel;
    bodies_.rotation = s.rotation;
    bodies_.spin = s.spin;
    steps_ = s.steps;
    solver_.set_warm_start(s.warm_start);
    boxes_ = s.boxes;
    contacts_ = s.contacts;
    continuous_.set_impact_pairs(s.impact_pairs);
    implicit_.set_last_step(s.implicit_contacts, s.implicit_counters, s.implicit_tests);
    sleep_.restore(s.sleep, bodies_.size());
    ++flags_revision_;
    rebuild_moving();
    changed_.clear();
    change_flags_.assign(bodies_.size(), 0);
    // The pairs of the restored boxes, at step 0 too: a viewer paused there shows them.
    changes_reset_ = true;
    update_broad_phase();
}

template <int D>
std::size_t World<D>::Snapshot::bytes() const {
    const auto of = [](const auto& v) { return v.size() * sizeof(v[0]); };
    return of(pos) + of(vel) + of(rotation) + of(spin) + of(warm_start.walls) +
           of(warm_start.keys) + of(warm_start.impulses) + of(boxes) + of(contacts) +
           of(impact_pairs) + of(implicit_contacts) + of(sleep.rest_time) + of(sleep.island) +
           of(sleep.next) + of(slots.radius) + of(slots.is_static) + of(slots.present) +
           of(slots.generation) + of(slots.free);
}

template <int D>
void World<D>::refresh_pairs() {
    update_broad_phase();
    find_contacts();
}

template <int D>
void World<D>::step(StepObserver<D>* observer) {
    // Substeps reuse the step's pairs: bodies move a fraction of a radius per substep, and
    // contacts that appear in between are found at the next step.
    ++revision_;
    const int substeps = std::max(settings_.substeps, 1);
    const float dt = settings_.dt / static_cast<float>(substeps);
    const bool swept = settings_.swept;
    auto t = Clock::now();
    if (swept || observer) start_pos_ = bodies_.pos;
    implicit_.begin_step(bodies_, swept);
    integrate(dt, true);
    finish_boxes();
    timings_.integrate_ms = ms_since(t);

    update_broad_phase();
    timings_.broad_ms = ms_since(t);
    pairs_over_budget_ = pairs_.size() > settings_.max_pairs ? pairs_.size() : 0;
    if (pairs_over_budget_ > 0) {
        // Quadratic piles would take the narrow phase and the solver the same way: stop.
        pairs_.clear();
        contacts_.clear();
        ++steps_;
        return;
    }

    if (swept) {
        continuous_.stop_at_impacts(start_pos_, pairs_, bodies_);
        find_bodies_at_walls();  // bodies stopped at impacts are not where integrate left them
    } else {
        continuous_.clear();
    }
    find_contacts();
    if (swept) continuous_.add_impact_contacts(bodies_, contacts_);
    timings_.narrow_ms = ms_since(t);

    if (observer) {
        observer->observe(*this);
        timings_.tunnel_check_ms = ms_since(t);
    }

    solve(dt);
    for (int k = 1; k < substeps; ++k) {
        integrate(dt, false);
        find_contacts();
        solve(dt);
    }
    update_sleep();
    timings_.resolve_ms = ms_since(t);
    ++steps_;
}

// Per block of awake bodies: body(begin, end, found) on oneTBB's threads over
// moving_at(begin..end), each block listing its bodies at walls in `found`; the lists are
// then joined in block order.
template <int D>
template <typename Body>
void World<D>::for_each_block_at_walls(const Body& body) {
    const std::size_t n = moving_ids_.size();
    const std::size_t blocks = (n + kBodiesPerTask - 1) / kBodiesPerTask;
    at_walls_of_block_.resize(blocks);
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
        // On this task's stack while it fills (see ChunkedSweep: no false sharing).
        std::vector<BodyId> found = std::move(at_walls_of_block_[b]);
        found.clear();
        const std::size_t begin = b * kBodiesPerTask;
        body(begin, std::min(n, begin + kBodiesPerTask), found);
        at_walls_of_block_[b] = std::move(found);
    });
    at_walls_.clear();
    append_in_order(at_walls_of_block_, at_walls_offsets_, at_walls_);
}

template <int D>
void World<D>::integrate(float dt, bool boxes) {
    const Vec<D> dv = settings_.gravity * dt;
    const Aabb<D>& bounds = settings_.bounds;
    auto& pos = bodies_.pos;
    auto& vel = bodies_.vel;
    const auto& radius = bodies_.radius;
    for_each_block_at_walls([&](std::size_t begin, std::size_t end, std::vector<BodyId>& at_walls) {
        for (std::size_t k = begin; k < end; ++k) {
            const BodyId i = moving_at(k);
            vel[i] += dv;
            pos[i] += vel[i] * dt;
            keep_inside<D>(bounds, radius[i], pos[i]);
            if (boxes) boxes_[i] = Aabb<D>::around(pos[i], radius[i]);
        }
        // Then the block's bodies at walls, read while the block is still in cache.
        list_at_walls(begin, end, at_walls);
    });
    implicit_.rotate(bodies_, dt);
}

template <int D>
void World<D>::list_at_walls(std::size_t begin, std::size_t end,
                             std::vector<BodyId>& at_walls) const {
    for (std::size_t k = begin; k < end; ++k) {
        const BodyId i = moving_at(k);
        if (touches_wall<D>(settings_.bounds, bodies_.radius[i], bodies_.pos[i]))
            at_walls.push_back(i);
    }
}

template <int D>
void World<D>::find_bodies_at_walls() {
    for_each_block_at_walls([&](std::size_t begin, std::size_t end, std::vector<BodyId>& at_walls) {
        list_at_walls(begin, end, at_walls);
    });
}

// Spheres' boxes, grown over the path in a swept step; then the implicit bodies' own.
template <int D>
void World<D>::compute_boxes() {
    for_each_body(bodies_.size(), [&](std::size_t i) {
        boxes_[i] = Aabb<D>::around(bodies_.pos[i], bodies_.radius[i]);
    });
    finish_boxes();
}

template <int D>
void World<D>::finish_boxes() {
    const std::size_t n = bodies_.size();
    std::span<const Vec<D>> path_start;  // where the paths began, in a swept step
    if (settings_.swept && start_pos_.size() == n) {
        path_start = start_pos_;
        sweep_boxes<D>(path_start, bodies_.radius, boxes_);
    }
    implicit_.set_boxes(bodies_, path_start, boxes_);
}

// The narrow phase: worlds of circles/spheres only take the analytic path.
template <int D>
void World<D>::find_contacts() {
    if (implicit_.any()) {
        implicit_.find_contacts(bodies_, pairs_, settings_.use_signature, contacts_);
    } else {
        collide::find_contacts<D>(bodies_.pos, bodies_.radius, pairs_, contacts_);
    }
}

template <int D>
void World<D>::solve(float dt) {
    const auto offsets = implicit_.match_offsets(contacts_);
    solver_.solve({settings_, dt, inv_mass_, contacts_, offsets, at_walls_}, bodies_);
}

template <int D>
double World<D>::kinetic_energy() const {
    double e = 0.0;
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        if (inv_mass_[i] == 0.0f) continue;
        const Vec<D>& v = bodies_.vel[i];
        e += 0.5 * static_cast<double>(glm::dot(v, v)) / inv_mass_[i];
    }
    return e;
}

template class World<2>;
template class World<3>;

}  // namespace collide
