#include "collide/world.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <numbers>
#include <tuple>

#include "collide/registry.hpp"

namespace collide {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point& t) {
    const auto now = Clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - t).count();
    t = now;
    return ms;
}

// The impulse (in velocity units) one contact gets in one solver pass, given its normal
// velocity vn (positive = separating).
// - With gravity, contacts are solved as a system: each accumulates a clamped impulse
//   towards its target normal velocity (the bounce -e * vn0 decided before the solve, or 0
//   for a slow, resting approach), which lets support spread through a pile.
// - Without gravity (a gas) each contact is an instantaneous two-body collision at the
//   current approach speed: at e = 1 that conserves kinetic energy exactly, however many
//   bodies meet at once.
float contact_impulse(bool as_system, float vn, float target, float& accumulated, float e) {
    if (as_system) {
        const float total = std::max(accumulated + target - vn, 0.0f);
        const float j = total - accumulated;
        accumulated = total;
        return j;
    }
    return vn < 0.0f ? -(1.0f + e) * vn : 0.0f;
}

// The target normal velocity of a contact approaching at vn0 (< 0 = approaching).
float bounce_target(float vn0, float e, float threshold) {
    return -vn0 > threshold ? -e * vn0 : 0.0f;
}

// Approach speeds below this bounce with no restitution, so resting piles do not jitter:
// gravity adds |g| dt per step, and that much must not come back as a bounce.
template <int D>
float restitution_threshold(const WorldSettings<D>& s, float dt) {
    return 2.0f * glm::length(s.gravity) * dt;
}

// Puts a body of radius r back inside the world on every axis. Velocities are left to the
// solver's wall contacts, which bounce or rest them.
template <int D>
void keep_inside(const Aabb<D>& bounds, float r, Vec<D>& p) {
    for (int k = 0; k < D; ++k) {
        const float lo = bounds.lo[k] + r;
        const float hi = bounds.hi[k] - r;
        p[k] = lo > hi ? 0.5f * (bounds.lo[k] + bounds.hi[k]) : std::clamp(p[k], lo, hi);
    }
}

}  // namespace

template <int D>
World<D>::World(const WorldSettings<D>& settings, Bodies<D> bodies)
    : settings_(settings), bodies_(std::move(bodies)) {
    const std::size_t n = bodies_.size();
    assert(bodies_.vel.size() == n && bodies_.radius.size() == n && bodies_.is_static.size() == n);
    // Bodies filled column by column may leave the implicit columns out: all circles/spheres.
    if (bodies_.shape.size() != n) bodies_.shape.assign(n, -1);
    if (bodies_.rotation.size() != n) bodies_.rotation.assign(n, Rotation<D>{});
    if (bodies_.spin.size() != n) bodies_.spin.assign(n, Spin<D>{});
    for (std::size_t i = 0; i < n; ++i) {
        if (bodies_.shape[i] < 0) continue;
        assert(static_cast<std::size_t>(bodies_.shape[i]) < bodies_.models.size());
        has_implicit_ = true;
        bodies_.radius[i] = bounding_radius<D>(*bodies_.model_of(i));
    }
    inv_mass_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        // Unit density; a zero radius still gets a finite (tiny) mass.
        const float r = std::max(bodies_.radius[i], 1e-3f);
        inv_mass_[i] = bodies_.is_static[i] ? 0.0f : 1.0f / std::pow(r, static_cast<float>(D));
    }
    boxes_.resize(n);
    compute_boxes();
    broad_phase_ = make_broadphase<D>(kDefaultBroadPhase);
}

template <int D>
void World<D>::set_broad_phase(std::unique_ptr<BroadPhase<D>> broad_phase) {
    assert(broad_phase);
    broad_phase_ = std::move(broad_phase);
}

template <int D>
void World<D>::move_body(BodyId id, const Vec<D>& pos, const Vec<D>& vel) {
    assert(id < bodies_.size());
    bodies_.pos[id] = pos;
    if (!bodies_.is_static[id]) bodies_.vel[id] = vel;
    boxes_[id] = bodies_.is_implicit(id)
                     ? world_box<D>(bodies_.model_of(id)->shape.local_box(), bodies_.pose(id))
                     : Aabb<D>::around(pos, bodies_.radius[id]);
}

template <int D>
void World<D>::step() {
    // Substeps reuse the step's pairs: bodies move a fraction of a radius per substep, and
    // contacts that appear in between are found at the next step.
    const int substeps = std::max(settings_.substeps, 1);
    const float dt = settings_.dt / static_cast<float>(substeps);
    const bool swept = settings_.swept;
    auto t = Clock::now();
    if (swept || settings_.count_tunnelling) start_pos_ = bodies_.pos;
    if (has_implicit_) {
        if (swept) start_rot_ = bodies_.rotation;
        implicit_counters_ = {};
        implicit_tests_ = 0;
    }
    integrate(dt);
    compute_boxes();
    timings_.integrate_ms = ms_since(t);

    broad_phase_->update(boxes_, bodies_.is_static, pairs_);
    timings_.broad_ms = ms_since(t);

    impacts_ = 0;
    if (swept) stop_at_impacts();
    find_all_contacts();
    if (swept) add_impact_contacts();
    timings_.narrow_ms = ms_since(t);

    if (settings_.count_tunnelling) {
        count_tunnelled();
        timings_.tunnel_check_ms = ms_since(t);
    }

    resolve(dt);
    for (int k = 1; k < substeps; ++k) {
        integrate(dt);
        find_all_contacts();
        resolve(dt);
    }
    timings_.resolve_ms = ms_since(t);
    ++steps_;
}

template <int D>
void World<D>::integrate(float dt) {
    const Vec<D> dv = settings_.gravity * dt;
    auto& pos = bodies_.pos;
    auto& vel = bodies_.vel;
    const std::size_t n = bodies_.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (bodies_.is_static[i]) continue;
        vel[i] += dv;
        pos[i] += vel[i] * dt;
        keep_inside<D>(settings_.bounds, bodies_.radius[i], pos[i]);
    }
    if (has_implicit_) rotate(dt);
}

// Kinematic spin: each body turns at its constant angular velocity.
template <int D>
void World<D>::rotate(float dt) {
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        if (bodies_.is_static[i] || !bodies_.is_implicit(i)) continue;
        if constexpr (D == 2) {
            constexpr float kPi = std::numbers::pi_v<float>;
            float& a = bodies_.rotation[i];
            a += bodies_.spin[i] * dt;
            if (a > kPi) a -= 2.0f * kPi;  // keep the angle small, so it keeps its precision
            if (a < -kPi) a += 2.0f * kPi;
        } else {
            const Vec<3> w = bodies_.spin[i];
            const float rate = glm::length(w);
            if (!(rate > 0.0f)) continue;
            glm::quat& q = bodies_.rotation[i];
            q = glm::normalize(glm::angleAxis(rate * dt, w / rate) * q);
        }
    }
}

template <int D>
void World<D>::compute_boxes() {
    const std::size_t n = bodies_.size();
    for (std::size_t i = 0; i < n; ++i) {
        boxes_[i] = Aabb<D>::around(bodies_.pos[i], bodies_.radius[i]);
    }
    if (has_implicit_) {
        for (std::size_t i = 0; i < n; ++i) {
            if (!bodies_.is_implicit(i)) continue;
            boxes_[i] = world_box<D>(bodies_.model_of(i)->shape.local_box(), bodies_.pose(i));
        }
    }
    if (!settings_.swept || start_pos_.size() != n) return;
    if (!has_implicit_) {
        for (std::size_t i = 0; i < n; ++i) {
            boxes_[i].grow(Aabb<D>::around(start_pos_[i], bodies_.radius[i]));
        }
        return;
    }
    const bool have_rot = start_rot_.size() == n;
    for (std::size_t i = 0; i < n; ++i) {
        if (bodies_.is_implicit(i) && have_rot) {
            // The union of the boxes at the start and end poses.
            boxes_[i].grow(world_box<D>(bodies_.model_of(i)->shape.local_box(),
                                        make_pose<D>(start_pos_[i], start_rot_[i])));
        } else {
            boxes_[i].grow(Aabb<D>::around(start_pos_[i], bodies_.radius[i]));
        }
    }
}

template <int D>
std::shared_ptr<const ImplicitModel<D>> World<D>::sphere_model(float radius) {
    const float r = std::max(radius, 1e-3f);  // a point still needs a surface to sample
    const auto it =
        std::lower_bound(sphere_models_.begin(), sphere_models_.end(), r,
                         [](const auto& entry, float key) { return entry.first < key; });
    if (it != sphere_models_.end() && it->first == r) return it->second;
    auto model = make_sphere_model<D>(r);
    sphere_models_.insert(it, {r, model});
    return model;
}

// Implicit bodies against implicit bodies or circles/spheres (a circle/sphere is the exact
// one-metaball model of its radius, built once per distinct radius).
template <int D>
bool World<D>::implicit_pair(const Pair& p, Contact<D>& c) {
    const auto body = [this](BodyId id) {
        ImplicitBody<D> out;
        out.model = bodies_.is_implicit(id) ? bodies_.models[bodies_.shape[id]]
                                            : sphere_model(bodies_.radius[id]);
        out.pose = bodies_.pose(id);
        return out;
    };
    // Bounding spheres apart: no contact (the radius is conservative, see bounding_radius).
    // Rotated boxes overlap far more often than the shapes, so this skips most tests.
    const Vec<D> d = bodies_.pos[p.b] - bodies_.pos[p.a];
    const float reach = bodies_.radius[p.a] + bodies_.radius[p.b];
    if (glm::dot(d, d) > reach * reach) return false;
    ++implicit_tests_;
    const auto hit = implicit_contact<D>(body(p.a), body(p.b),
                                         ContactOptions{settings_.use_signature},
                                         implicit_counters_);
    if (!hit) return false;
    c = {p.a, p.b, hit->normal, hit->depth};
    implicit_info_.push_back({p.a, p.b, hit->point, hit->normal, hit->depth,
                              bodies_.pos[p.b] - bodies_.pos[p.a]});
    return true;
}

// The narrow phase. Worlds of circles/spheres only take the analytic path unchanged; with
// implicit bodies the pairs are visited in (a, b) order so the contacts come out sorted.
template <int D>
void World<D>::find_all_contacts() {
    if (!has_implicit_) {
        find_contacts<D>(bodies_.pos, bodies_.radius, pairs_, contacts_);
        return;
    }
    sorted_pairs_.assign(pairs_.begin(), pairs_.end());
    std::sort(sorted_pairs_.begin(), sorted_pairs_.end());
    contacts_.clear();
    implicit_info_.clear();
    Contact<D> c;
    for (const Pair& p : sorted_pairs_) {
        if (bodies_.is_implicit(p.a) || bodies_.is_implicit(p.b)) {
            if (implicit_pair(p, c)) contacts_.push_back(c);
        } else if (sphere_contact<D>(bodies_.pos[p.a], bodies_.radius[p.a], bodies_.pos[p.b],
                                     bodies_.radius[p.b], c)) {
            c.a = p.a;
            c.b = p.b;
            contacts_.push_back(c);
        }
    }
}

// Each body moved in a straight line from start_pos_ to pos this step. A pair whose paths
// touch before the end stops both bodies where they first touch; stopping one body shortens
// its path and can bring on an earlier touch with another, so this repeats until no path
// changes. Every path stays inside the body's swept box, so the broad phase's pairs are
// still the only candidates.
template <int D>
void World<D>::stop_at_impacts() {
    auto& pos = bodies_.pos;
    const auto& r = bodies_.radius;
    impact_pairs_.clear();
    constexpr int kMaxRounds = 16;
    for (int round = 0; round < kMaxRounds; ++round) {
        stop_at_.assign(bodies_.size(), 1.0f);
        bool stopped = false;
        for (const Pair& p : pairs_) {
            if (has_implicit_ && (bodies_.is_implicit(p.a) || bodies_.is_implicit(p.b))) {
                // Bounding spheres: conservative. Once they overlap, the implicit test decides.
                const float reach = r[p.a] + r[p.b];
                const Vec<D> d = start_pos_[p.b] - start_pos_[p.a];
                if (glm::dot(d, d) <= reach * reach) continue;
            }
            const std::optional<float> t =
                time_of_impact<D>(start_pos_[p.a], pos[p.a], r[p.a], start_pos_[p.b], pos[p.b], r[p.b]);
            if (!t) continue;
            impact_pairs_.push_back(p);
            // Touching as they arrive (within rounding, which a shortened path leaves).
            if (*t >= 1.0f - 1e-4f) continue;
            stop_at_[p.a] = std::min(stop_at_[p.a], *t);
            stop_at_[p.b] = std::min(stop_at_[p.b], *t);
            stopped = true;
        }
        if (!stopped) break;
        for (std::size_t i = 0; i < pos.size(); ++i) {
            if (stop_at_[i] < 1.0f) pos[i] = start_pos_[i] + stop_at_[i] * (pos[i] - start_pos_[i]);
        }
    }
    std::sort(impact_pairs_.begin(), impact_pairs_.end());
    impact_pairs_.erase(std::unique(impact_pairs_.begin(), impact_pairs_.end()), impact_pairs_.end());
    impacts_ = impact_pairs_.size();
}

// Bodies stopped at their first touch meet at exactly the sum of the radii, where rounding
// may leave a hair's gap: they get a contact of zero depth all the same, so the solver
// turns them around.
template <int D>
void World<D>::add_impact_contacts() {
    const std::size_t found = contacts_.size();
    std::size_t next = 0;
    for (const Pair& p : impact_pairs_) {
        // An implicit pair's bounding spheres touching is no contact of the bodies.
        if (has_implicit_ && (bodies_.is_implicit(p.a) || bodies_.is_implicit(p.b))) continue;
        while (next < found && Pair{contacts_[next].a, contacts_[next].b} < p) ++next;
        if (next < found && contacts_[next].a == p.a && contacts_[next].b == p.b) continue;
        const Vec<D> d = bodies_.pos[p.b] - bodies_.pos[p.a];
        const float len = glm::length(d);
        if (len <= 0.0f) continue;
        contacts_.push_back({p.a, p.b, d / len, 0.0f});
    }
    if (contacts_.size() == found) return;
    std::sort(contacts_.begin(), contacts_.end(), [](const Contact<D>& x, const Contact<D>& y) {
        return x.a != y.a ? x.a < y.a : x.b < y.b;
    });
}

// A pair tunnelled if during the step their paths came closer than the sum of the radii
// (or than they began, for bodies already touching) by more than the slop, and the world has
// no contact for it. The candidates come
// from a sort-and-sweep over the paths' boxes, whatever the world's broad phase or the
// swept setting.
template <int D>
void World<D>::count_tunnelled() {
    const std::size_t n = bodies_.size();
    const auto& pos = bodies_.pos;
    const auto& r = bodies_.radius;
    if (!path_sweep_) path_sweep_ = make_broadphase<D>("sort-and-sweep");
    path_boxes_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        path_boxes_[i] = Aabb<D>::around(start_pos_[i], r[i]);
        path_boxes_[i].grow(Aabb<D>::around(pos[i], r[i]));
    }
    path_sweep_->update(path_boxes_, bodies_.is_static, path_pairs_);
    std::uint64_t count = 0;
    for (const Pair& p : path_pairs_) {
        // Bounding spheres say nothing about implicit bodies passing through each other.
        if (has_implicit_ && (bodies_.is_implicit(p.a) || bodies_.is_implicit(p.b))) continue;
        // How close they came against where they began (or the sum of the radii, for bodies
        // that began apart), beyond the slop that resting contacts are allowed.
        const float start = glm::length(start_pos_[p.b] - start_pos_[p.a]);
        const float limit = std::min(start, r[p.a] + r[p.b]) - kImpactSlop * std::min(r[p.a], r[p.b]);
        if (closest_approach<D>(start_pos_[p.a], pos[p.a], start_pos_[p.b], pos[p.b]) >= limit)
            continue;
        const auto it = std::lower_bound(
            contacts_.begin(), contacts_.end(), p,
            [](const Contact<D>& c, const Pair& q) { return Pair{c.a, c.b} < q; });
        if (it == contacts_.end() || it->a != p.a || it->b != p.b) ++count;
    }
    tunnelling_.last_step = count;
    tunnelling_.total += count;
}

template <int D>
std::optional<PredictedImpact<D>> World<D>::predict_impact(BodyId id, float horizon) const {
    const auto& pos = bodies_.pos;
    const auto& vel = bodies_.vel;
    const auto& r = bodies_.radius;
    if (id >= bodies_.size() || !(horizon > 0.0f)) return std::nullopt;
    std::optional<PredictedImpact<D>> best;
    float best_t = 2.0f;
    for (BodyId j = 0; j < bodies_.size(); ++j) {
        if (j == id) continue;
        const std::optional<float> t =
            time_of_impact<D>(pos[id], pos[id] + vel[id] * horizon, r[id], pos[j],
                              pos[j] + vel[j] * horizon, r[j]);
        if (!t || *t >= best_t) continue;
        best_t = *t;
        PredictedImpact<D> hit;
        hit.other = j;
        hit.seconds = *t * horizon;
        hit.at = pos[id] + vel[id] * hit.seconds;
        hit.other_at = pos[j] + vel[j] * hit.seconds;
        const float reach = r[id] + r[j];
        hit.point = reach > 0.0f ? hit.at + (hit.other_at - hit.at) * (r[id] / reach) : hit.at;
        best = hit;
    }
    return best;
}

// Bodies touching a wall, each with the impulse it had last step (warm start, matched by
// body, axis and side; both lists are in body order).
template <int D>
void World<D>::find_wall_contacts(float threshold) {
    std::swap(wall_contacts_, prev_wall_contacts_);
    wall_contacts_.clear();
    const Aabb<D>& w = settings_.bounds;
    std::size_t prev = 0;
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        if (bodies_.is_static[i]) continue;
        const float r = bodies_.radius[i];
        const float slop = 0.01f * r;
        for (int k = 0; k < D; ++k) {
            for (const float side : {-1.0f, 1.0f}) {
                const bool touching = side < 0 ? bodies_.pos[i][k] - r <= w.lo[k] + slop
                                               : bodies_.pos[i][k] + r >= w.hi[k] - slop;
                if (!touching) continue;
                const float away = -bodies_.vel[i][k] * side;  // normal velocity
                const float target = bounce_target(away, settings_.restitution, threshold);
                WallContact c{BodyId(i), k, side, target, 0.0f};
                const auto key = [](const WallContact& x) {
                    return std::tuple(x.body, x.axis, x.side);
                };
                while (prev < prev_wall_contacts_.size() && key(prev_wall_contacts_[prev]) < key(c))
                    ++prev;
                if (target == 0.0f && prev < prev_wall_contacts_.size() &&
                    key(prev_wall_contacts_[prev]) == key(c)) {
                    c.impulse = prev_wall_contacts_[prev].impulse;
                }
                wall_contacts_.push_back(c);
            }
        }
    }
}

// One Gauss-Seidel pass over the wall contacts, or with warm_start, last step's impulses
// applied again. The wall is infinitely heavy, so impulses are in velocity units.
template <int D>
void World<D>::solve_walls(bool warm_start, bool as_system) {
    auto& vel = bodies_.vel;
    for (WallContact& w : wall_contacts_) {
        Vec<D>& v = vel[w.body];
        if (warm_start) {
            v[w.axis] -= w.side * w.impulse;
            continue;
        }
        const float away = -v[w.axis] * w.side;  // normal velocity, positive = leaving
        v[w.axis] -=
            w.side * contact_impulse(as_system, away, w.target, w.impulse, settings_.restitution);
    }
}

// Gauss-Seidel converges fastest on a pile when it goes from the ground up: support then
// travels through the whole pile in one sweep instead of one layer per iteration. Without
// gravity the (a, b) order is kept. Either way the order depends only on the bodies.
template <int D>
void World<D>::order_contacts() {
    const std::size_t m = contacts_.size();
    order_.resize(m);
    for (std::size_t c = 0; c < m; ++c) order_[c] = static_cast<std::uint32_t>(c);
    const Vec<D> g = settings_.gravity;
    if (glm::dot(g, g) == 0.0f) return;
    height_.resize(m);
    for (std::size_t c = 0; c < m; ++c) {
        const Contact<D>& k = contacts_[c];
        height_[c] = -std::max(glm::dot(bodies_.pos[k.a], g), glm::dot(bodies_.pos[k.b], g));
    }
    std::stable_sort(order_.begin(), order_.end(),
                     [this](std::uint32_t x, std::uint32_t y) { return height_[x] < height_[y]; });
}

template <int D>
void World<D>::resolve(float dt) {
    const float threshold = restitution_threshold(settings_, dt);
    find_wall_contacts(threshold);
    order_contacts();
    solve_velocities(threshold);
    correct_positions();
}

// Sequential impulses (see contact_impulse for the two ways a contact is solved).
template <int D>
void World<D>::solve_velocities(float threshold) {
    auto& vel = bodies_.vel;
    const bool as_system = threshold > 0.0f;
    const float e = settings_.restitution;
    const std::size_t m = contacts_.size();
    impulse_.assign(m, 0.0f);
    target_.resize(m);
    // Targets first, from the velocities before any impulse: warm-start impulses must not
    // look like an approach to the neighbouring contacts.
    for (std::size_t c = 0; c < m; ++c) {
        const Contact<D>& k = contacts_[c];
        target_[c] = bounce_target(glm::dot(vel[k.b] - vel[k.a], k.normal), e, threshold);
    }
    // Warm start resting contacts with last step's impulse (both lists are sorted by pair),
    // so support travels up a pile over steps instead of within one step's passes.
    std::size_t prev = 0;
    for (std::size_t c = 0; c < m && as_system; ++c) {
        const Contact<D>& k = contacts_[c];
        const std::uint64_t key = Pair{k.a, k.b}.key();
        while (prev < prev_keys_.size() && prev_keys_[prev] < key) ++prev;
        if (target_[c] == 0.0f && prev < prev_keys_.size() && prev_keys_[prev] == key) {
            const float j = prev_impulse_[prev];
            impulse_[c] = j;
            vel[k.a] -= (j * inv_mass_[k.a]) * k.normal;
            vel[k.b] += (j * inv_mass_[k.b]) * k.normal;
        }
    }
    if (as_system) solve_walls(true, as_system);
    for (int it = 0; it < settings_.solver_iterations; ++it) {
        solve_walls(false, as_system);  // the ground first: piles rest on it
        for (const std::uint32_t c : order_) {
            const Contact<D>& k = contacts_[c];
            const float ia = inv_mass_[k.a];
            const float ib = inv_mass_[k.b];
            if (ia + ib == 0.0f) continue;
            // Solved in relative-velocity units, then shared out by inverse mass.
            const float vn = glm::dot(vel[k.b] - vel[k.a], k.normal);
            float accumulated = impulse_[c] * (ia + ib);
            const float dv = contact_impulse(as_system, vn, target_[c], accumulated, e);
            impulse_[c] = accumulated / (ia + ib);
            const float j = dv / (ia + ib);
            vel[k.a] -= (j * ia) * k.normal;
            vel[k.b] += (j * ib) * k.normal;
        }
    }

    prev_keys_.resize(m);
    for (std::size_t c = 0; c < m; ++c) prev_keys_[c] = Pair{contacts_[c].a, contacts_[c].b}.key();
    prev_impulse_ = impulse_;
}

// Positional correction (non-linear Gauss-Seidel): push overlapping bodies apart by part of
// their penetration, weighted by inverse mass, and keep them inside the walls. Velocities
// are untouched, so no energy is added.
template <int D>
void World<D>::correct_positions() {
    auto& pos = bodies_.pos;
    const float beta = settings_.position_correction;
    const Aabb<D>& bounds = settings_.bounds;
    if (has_implicit_) match_implicit_offsets();
    for (int pass = 0; pass < settings_.position_iterations; ++pass) {
        for (const std::uint32_t index : order_) {
            const Contact<D>& c = contacts_[index];
            const float ia = inv_mass_[c.a];
            const float ib = inv_mass_[c.b];
            if (ia + ib == 0.0f) continue;
            const float ra = bodies_.radius[c.a];
            const float rb = bodies_.radius[c.b];
            if (has_implicit_ && contact_offset_[index].second) {
                // Linearized: the depth found, less how far the bodies moved apart along
                // the normal since (the shapes are not tested again within the step).
                const Vec<D> moved = pos[c.b] - pos[c.a] - contact_offset_[index].first;
                const float depth = c.depth - glm::dot(moved, c.normal);
                const float slop = 0.005f * std::min(ra, rb);
                if (depth <= slop) continue;
                const Vec<D> push = (beta * (depth - slop) / (ia + ib)) * c.normal;
                pos[c.a] -= ia * push;
                pos[c.b] += ib * push;
                continue;
            }
            const Vec<D> d = pos[c.b] - pos[c.a];
            const float dist = glm::length(d);
            const float slop = 0.005f * std::min(ra, rb);
            const float depth = ra + rb - dist;
            if (depth <= slop) continue;
            const Vec<D> n = dist > 1e-12f ? d / dist : c.normal;
            const Vec<D> push = (beta * (depth - slop) / (ia + ib)) * n;
            pos[c.a] -= ia * push;
            pos[c.b] += ib * push;
        }
        for (const WallContact& w : wall_contacts_) {
            const float r = bodies_.radius[w.body];
            float& p = pos[w.body][w.axis];
            p = w.side < 0 ? std::max(p, bounds.lo[w.axis] + r)
                           : std::min(p, bounds.hi[w.axis] - r);
        }
    }
    // A correction can push a body that was not at a wall through one.
    for (const Contact<D>& c : contacts_) {
        for (BodyId id : {c.a, c.b}) {
            if (!bodies_.is_static[id]) keep_inside<D>(bounds, bodies_.radius[id], pos[id]);
        }
    }
}

// Each implicit contact's centre offset when it was found, aligned with contacts_ (both
// lists are sorted by pair; impact contacts of sphere pairs have none).
template <int D>
void World<D>::match_implicit_offsets() {
    contact_offset_.assign(contacts_.size(), {Vec<D>(0.0f), false});
    std::size_t next = 0;
    for (std::size_t c = 0; c < contacts_.size(); ++c) {
        const Pair p{contacts_[c].a, contacts_[c].b};
        while (next < implicit_info_.size() && Pair{implicit_info_[next].a, implicit_info_[next].b} < p)
            ++next;
        if (next < implicit_info_.size() && implicit_info_[next].a == p.a &&
            implicit_info_[next].b == p.b) {
            contact_offset_[c] = {implicit_info_[next].offset, true};
        }
    }
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
