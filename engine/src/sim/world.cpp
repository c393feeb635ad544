#include "collide/world.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>

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

}  // namespace

template <int D>
World<D>::World(const WorldSettings<D>& settings, Bodies<D> bodies)
    : settings_(settings), bodies_(std::move(bodies)) {
    const std::size_t n = bodies_.size();
    assert(bodies_.vel.size() == n && bodies_.radius.size() == n && bodies_.is_static.size() == n);
    inv_mass_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        // Unit density; a zero radius still gets a finite (tiny) mass.
        const float r = std::max(bodies_.radius[i], 1e-3f);
        inv_mass_[i] = bodies_.is_static[i] ? 0.0f : 1.0f / std::pow(r, static_cast<float>(D));
    }
    boxes_.resize(n);
    compute_boxes();
    broad_phase_ = make_broadphase<D>("sort-and-sweep");
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
    boxes_[id] = Aabb<D>::around(pos, bodies_.radius[id]);
}

template <int D>
void World<D>::step() {
    auto t = Clock::now();
    integrate();
    compute_boxes();
    timings_.integrate_ms = ms_since(t);

    broad_phase_->update(boxes_, bodies_.is_static, pairs_);
    timings_.broad_ms = ms_since(t);

    find_contacts<D>(bodies_.pos, bodies_.radius, pairs_, contacts_);
    timings_.narrow_ms = ms_since(t);

    resolve();
    timings_.resolve_ms = ms_since(t);
    ++steps_;
}

// Approach speeds below this bounce with no restitution, so resting piles do not jitter:
// gravity adds |g| dt per step, and that much must not come back as a bounce.
template <int D>
static float restitution_threshold(const WorldSettings<D>& s) {
    return 2.0f * glm::length(s.gravity) * s.dt;
}

// Keeps a body of radius r inside the world on every axis, reflecting its velocity.
template <int D>
static void keep_inside(const Aabb<D>& bounds, float r, float e, float threshold, Vec<D>& p,
                        Vec<D>& v) {
    for (int k = 0; k < D; ++k) {
        const float lo = bounds.lo[k] + r;
        const float hi = bounds.hi[k] - r;
        if (lo > hi) {  // the body is wider than the world: centre it
            p[k] = 0.5f * (bounds.lo[k] + bounds.hi[k]);
            v[k] = 0.0f;
        } else if (p[k] < lo) {
            p[k] = lo;
            if (v[k] < 0.0f) v[k] = -v[k] > threshold ? -v[k] * e : 0.0f;
        } else if (p[k] > hi) {
            p[k] = hi;
            if (v[k] > 0.0f) v[k] = v[k] > threshold ? -v[k] * e : 0.0f;
        }
    }
}

template <int D>
void World<D>::integrate() {
    const float dt = settings_.dt;
    const Vec<D> dv = settings_.gravity * dt;
    const float e = settings_.restitution;
    const float threshold = restitution_threshold(settings_);
    auto& pos = bodies_.pos;
    auto& vel = bodies_.vel;
    const std::size_t n = bodies_.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (bodies_.is_static[i]) continue;
        vel[i] += dv;
        pos[i] += vel[i] * dt;
        keep_inside<D>(settings_.bounds, bodies_.radius[i], e, threshold, pos[i], vel[i]);
    }
}

template <int D>
void World<D>::compute_boxes() {
    const std::size_t n = bodies_.size();
    for (std::size_t i = 0; i < n; ++i) {
        boxes_[i] = Aabb<D>::around(bodies_.pos[i], bodies_.radius[i]);
    }
}

template <int D>
void World<D>::resolve() {
    auto& pos = bodies_.pos;
    auto& vel = bodies_.vel;
    const float threshold = restitution_threshold(settings_);

    // Sequential impulses on the normal velocity. Each impulse is a two-body collision, so
    // with restitution 1 it conserves kinetic energy and momentum exactly (up to rounding).
    for (int it = 0; it < settings_.solver_iterations; ++it) {
        bool any = false;
        for (const Contact<D>& c : contacts_) {
            const float ia = inv_mass_[c.a];
            const float ib = inv_mass_[c.b];
            if (ia + ib == 0.0f) continue;
            const float vn = glm::dot(vel[c.b] - vel[c.a], c.normal);
            if (vn >= 0.0f) continue;  // already separating
            const float e = -vn > threshold ? settings_.restitution : 0.0f;
            const float j = -(1.0f + e) * vn / (ia + ib);
            vel[c.a] -= (j * ia) * c.normal;
            vel[c.b] += (j * ib) * c.normal;
            any = true;
        }
        if (!any) break;
    }

    // Positional correction: push overlapping bodies apart by part of their penetration,
    // weighted by inverse mass. Velocities are untouched, so no energy is added.
    const float beta = settings_.position_correction;
    for (int pass = 0; pass < 2; ++pass) {
        for (const Contact<D>& c : contacts_) {
            const float ia = inv_mass_[c.a];
            const float ib = inv_mass_[c.b];
            if (ia + ib == 0.0f) continue;
            const float ra = bodies_.radius[c.a];
            const float rb = bodies_.radius[c.b];
            const Vec<D> d = pos[c.b] - pos[c.a];
            const float dist = glm::length(d);
            const float slop = 0.01f * std::min(ra, rb);
            const float depth = ra + rb - dist;
            if (depth <= slop) continue;
            const Vec<D> n = dist > 1e-12f ? d / dist : c.normal;
            const Vec<D> push = (beta * (depth - slop) / (ia + ib)) * n;
            pos[c.a] -= ia * push;
            pos[c.b] += ib * push;
        }
    }
    // Corrections may push a body through a wall; put it back without touching velocity.
    Vec<D> unused;
    for (const Contact<D>& c : contacts_) {
        for (BodyId id : {c.a, c.b}) {
            if (bodies_.is_static[id]) continue;
            unused = vel[id];
            keep_inside<D>(settings_.bounds, bodies_.radius[id], 1.0f, 0.0f, pos[id], unused);
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
