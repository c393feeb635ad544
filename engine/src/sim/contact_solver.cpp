#include "collide/contact_solver.hpp"

#include <algorithm>
#include <cassert>
#include <tuple>
#include <unordered_map>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include "sim/for_each_index.hpp"

namespace collide {

namespace {

// Contacts per task of the per-contact loops (for_each_index).
constexpr std::size_t kPerTask = 2048;

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

}  // namespace

template <int D>
void ContactSolver<D>::solve(const Input& in, Bodies<D>& bodies) {
    const float threshold = restitution_threshold(in.settings, in.dt);
    find_wall_contacts(in, bodies, threshold);
    order_contacts(in, bodies);
    level_contacts(in);
    solve_velocities(in, threshold, bodies);
    correct_positions(in, bodies);
}

// Bodies touching a wall, each with the impulse it had last step (warm start, matched by
// body, axis and side; both lists are in body order). The world lists the bodies at walls
// as it integrates them (a few thousand of a million), so only those are read here.
template <int D>
void ContactSolver<D>::find_wall_contacts(const Input& in, const Bodies<D>& bodies,
                                          float threshold) {
    std::swap(wall_contacts_, prev_wall_contacts_);
    wall_contacts_.clear();
    const Aabb<D>& w = in.settings.bounds;
    const auto key = [](const WallContact& x) { return std::tuple(x.body, x.axis, x.side); };
    std::size_t prev = 0;
    for (const BodyId i : in.at_walls) {
        assert(!bodies.is_static[i] && touches_wall<D>(w, bodies.radius[i], bodies.pos[i]));
        const float r = bodies.radius[i];
        for (int k = 0; k < D; ++k) {
            for (const float side : {-1.0f, 1.0f}) {
                if (!touches_wall_side<D>(w, r, bodies.pos[i], k, side)) continue;
                const float away = -bodies.vel[i][k] * side;  // normal velocity
                const float target = bounce_target(away, in.settings.restitution, threshold);
                WallContact c{i, k, side, target, 0.0f};
                while (prev < prev_wall_contacts_.size() &&
                       key(prev_wall_contacts_[prev]) < key(c)) {
                    ++prev;
                }
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
void ContactSolver<D>::solve_walls(float restitution, bool warm_start, bool as_system,
                                   Bodies<D>& bodies) {
    auto& vel = bodies.vel;
    for (WallContact& w : wall_contacts_) {
        Vec<D>& v = vel[w.body];
        if (warm_start) {
            v[w.axis] -= w.side * w.impulse;
            continue;
        }
        const float away = -v[w.axis] * w.side;  // normal velocity, positive = leaving
        v[w.axis] -= w.side * contact_impulse(as_system, away, w.target, w.impulse, restitution);
    }
}

// Gauss-Seidel converges fastest on a pile when it goes from the ground up: support then
// travels through the whole pile in one sweep instead of one layer per iteration. Without
// gravity the (a, b) order is kept. Either way the order depends only on the bodies.
template <int D>
void ContactSolver<D>::order_contacts(const Input& in, const Bodies<D>& bodies) {
    const std::size_t m = in.contacts.size();
    order_.resize(m);
    for (std::size_t c = 0; c < m; ++c) order_[c] = static_cast<std::uint32_t>(c);
    const Vec<D> g = in.settings.gravity;
    if (glm::dot(g, g) == 0.0f) return;
    height_.resize(m);
    for (std::size_t c = 0; c < m; ++c) {
        const Contact<D>& k = in.contacts[c];
        height_[c] = -std::max(glm::dot(bodies.pos[k.a], g), glm::dot(bodies.pos[k.b], g));
    }
    std::stable_sort(order_.begin(), order_.end(),
                     [this](std::uint32_t x, std::uint32_t y) { return height_[x] < height_[y]; });
}

// Sequential impulses need each body to meet its contacts in solve order, nothing more: so
// the contacts are cut into levels, each one more than the last level that touched one of
// its moving bodies (a static body's velocity and position are never written).
// Each contact's predecessors (the last contact before it in order_ on each of its moving
// bodies) come from a parallel sort of (body, place) keys: a per-body array would be read at
// random over all the bodies, a cache miss per end at a million of them. The levels are then
// one serial pass over the contacts, reading only per-contact arrays.
template <int D>
void ContactSolver<D>::level_contacts(const Input& in) {
    const std::size_t m = order_.size();
    constexpr std::uint32_t kNone = 0xffffffffu;
    constexpr std::uint64_t kStatic = ~std::uint64_t{0};
    // Key of end `side` of the contact at place i: its body, then the place and side.
    ends_.resize(2 * m);
    for_each_index(m, kPerTask, [&](std::size_t i) {
        const Contact<D>& k = in.contacts[order_[i]];
        const auto key = [&](BodyId body, std::size_t side) {
            return in.inv_mass[body] > 0.0f ? (std::uint64_t{body} << 32) | (2 * i + side)
                                            : kStatic;
        };
        ends_[2 * i] = key(k.a, 0);
        ends_[2 * i + 1] = key(k.b, 1);
    });
    tbb::parallel_sort(ends_.begin(), ends_.end());
    // before_[2 i + side]: the place of the last contact before place i on that end's body.
    before_.assign(2 * m, kNone);
    for_each_index(ends_.size(), kPerTask, [&](std::size_t j) {
        if (j == 0 || ends_[j] == kStatic || ends_[j - 1] >> 32 != ends_[j] >> 32) return;
        before_[ends_[j] & 0xffffffffu] =
            static_cast<std::uint32_t>((ends_[j - 1] & 0xffffffffu) / 2);
    });
    std::vector<std::uint32_t>& level = level_;  // per place in order_
    level.resize(m);
    std::uint32_t levels = 0;
    for (std::size_t i = 0; i < m; ++i) {
        std::uint32_t l = 0;
        for (const std::uint32_t b : {before_[2 * i], before_[2 * i + 1]}) {
            if (b != kNone) l = std::max(l, level[b] + 1);
        }
        level[i] = l;
        levels = std::max(levels, l + 1);
    }
#ifndef NDEBUG
    // Debug builds check the levels against their definition, each body's last one in a map.
    std::unordered_map<BodyId, std::uint32_t> after;  // per moving body: its last level + 1
    for (std::size_t i = 0; i < m; ++i) {
        const Contact<D>& k = in.contacts[order_[i]];
        std::uint32_t l = 0;
        for (const BodyId body : {k.a, k.b}) {
            if (in.inv_mass[body] > 0.0f && after.count(body)) l = std::max(l, after[body]);
        }
        assert(level[i] == l && "contact levels: not one more than the last on each body");
        for (const BodyId body : {k.a, k.b}) {
            if (in.inv_mass[body] > 0.0f) after[body] = l + 1;
        }
    }
#endif
    // A stable counting sort by level keeps order_ within each level.
    level_start_.assign(levels + 1, 0);
    for (std::size_t i = 0; i < m; ++i) ++level_start_[level[i] + 1];
    for (std::uint32_t l = 0; l < levels; ++l) level_start_[l + 1] += level_start_[l];
    by_level_.resize(m);
    std::vector<std::uint32_t> next(level_start_.begin(), level_start_.end() - 1);
    for (std::size_t i = 0; i < m; ++i) by_level_[next[level[i]]++] = order_[i];
}

template <int D>
template <typename Fn>
void ContactSolver<D>::for_each_contact(const Fn& fn) const {
    // Below this many a level is cheaper on the calling thread than as tasks. Tasks of 256
    // contacts keep 16 threads even: each contact waits on two bodies read at random.
    constexpr std::uint32_t kParallelLevel = 1024;
    constexpr std::size_t kContactsPerTask = 256;
    for (std::size_t l = 0; l + 1 < level_start_.size(); ++l) {
        const std::uint32_t begin = level_start_[l], end = level_start_[l + 1];
        if (end - begin < kParallelLevel) {
            for (std::uint32_t i = begin; i < end; ++i) fn(by_level_[i]);
            continue;
        }
        tbb::parallel_for(tbb::blocked_range<std::uint32_t>(begin, end, kContactsPerTask),
                          [&](const tbb::blocked_range<std::uint32_t>& r) {
                              for (std::uint32_t i = r.begin(); i != r.end(); ++i) fn(by_level_[i]);
                          });
    }
}

// Sequential impulses (see contact_impulse for the two ways a contact is solved).
template <int D>
void ContactSolver<D>::solve_velocities(const Input& in, float threshold, Bodies<D>& bodies) {
    auto& vel = bodies.vel;
    const auto& contacts = in.contacts;
    const auto& inv_mass = in.inv_mass;
    const bool as_system = threshold > 0.0f;
    const float e = in.settings.restitution;
    const std::size_t m = contacts.size();
    impulse_.assign(m, 0.0f);
    target_.resize(m);
    // Targets first, from the velocities before any impulse: warm-start impulses must not
    // look like an approach to the neighbouring contacts.
    for_each_index(m, kPerTask, [&](std::size_t c) {
        const Contact<D>& k = contacts[c];
        target_[c] = bounce_target(glm::dot(vel[k.b] - vel[k.a], k.normal), e, threshold);
    });
    // Warm start resting contacts with last step's impulse (both lists are sorted by pair),
    // so support travels up a pile over steps instead of within one step's passes.
    std::size_t prev = 0;
    for (std::size_t c = 0; c < m && as_system; ++c) {
        const Contact<D>& k = contacts[c];
        const std::uint64_t key = Pair{k.a, k.b}.key();
        while (prev < prev_keys_.size() && prev_keys_[prev] < key) ++prev;
        if (target_[c] == 0.0f && prev < prev_keys_.size() && prev_keys_[prev] == key) {
            const float j = prev_impulse_[prev];
            impulse_[c] = j;
            vel[k.a] -= (j * inv_mass[k.a]) * k.normal;
            vel[k.b] += (j * inv_mass[k.b]) * k.normal;
        }
    }
    if (as_system) solve_walls(e, true, as_system, bodies);
    for (int it = 0; it < in.settings.solver_iterations; ++it) {
        solve_walls(e, false, as_system, bodies);  // the ground first: piles rest on it
        for_each_contact([&](std::uint32_t c) {
            const Contact<D>& k = contacts[c];
            const float ia = inv_mass[k.a];
            const float ib = inv_mass[k.b];
            if (ia + ib == 0.0f) return;
            // Solved in relative-velocity units, then shared out by inverse mass.
            const float vn = glm::dot(vel[k.b] - vel[k.a], k.normal);
            float accumulated = impulse_[c] * (ia + ib);
            const float dv = contact_impulse(as_system, vn, target_[c], accumulated, e);
            impulse_[c] = accumulated / (ia + ib);
            const float j = dv / (ia + ib);
            // Static bodies are not written: a level may share one between tasks.
            if (ia > 0.0f) vel[k.a] -= (j * ia) * k.normal;
            if (ib > 0.0f) vel[k.b] += (j * ib) * k.normal;
        });
    }

    prev_keys_.resize(m);
    for_each_index(m, kPerTask, [&](std::size_t c) {
        prev_keys_[c] = Pair{contacts[c].a, contacts[c].b}.key();
    });
    prev_impulse_ = impulse_;
}

// Positional correction (non-linear Gauss-Seidel): push overlapping bodies apart by part of
// their penetration, weighted by inverse mass, and keep them inside the walls. Velocities
// are untouched, so no energy is added.
template <int D>
void ContactSolver<D>::correct_positions(const Input& in, Bodies<D>& bodies) const {
    auto& pos = bodies.pos;
    const float beta = in.settings.position_correction;
    const Aabb<D>& bounds = in.settings.bounds;
    // A push moves a body by ia * push, nothing when ia is 0: static bodies are not written.
    const auto push_apart = [&](BodyId a, BodyId b, float ia, float ib, const Vec<D>& push) {
        if (ia > 0.0f) pos[a] -= ia * push;
        if (ib > 0.0f) pos[b] += ib * push;
    };
    for (int pass = 0; pass < in.settings.position_iterations; ++pass) {
        for_each_contact([&](std::uint32_t index) {
            const Contact<D>& c = in.contacts[index];
            const float ia = in.inv_mass[c.a];
            const float ib = in.inv_mass[c.b];
            if (ia + ib == 0.0f) return;
            const float ra = bodies.radius[c.a];
            const float rb = bodies.radius[c.b];
            if (!in.offsets.empty() && in.offsets[index].second) {
                // Linearized: the depth found, less how far the bodies moved apart along
                // the normal since.
                const Vec<D> moved = pos[c.b] - pos[c.a] - in.offsets[index].first;
                const float depth = c.depth - glm::dot(moved, c.normal);
                const float slop = 0.005f * std::min(ra, rb);
                if (depth <= slop) return;
                push_apart(c.a, c.b, ia, ib, (beta * (depth - slop) / (ia + ib)) * c.normal);
                return;
            }
            const Vec<D> d = pos[c.b] - pos[c.a];
            const float dist = glm::length(d);
            const float slop = 0.005f * std::min(ra, rb);
            const float depth = ra + rb - dist;
            if (depth <= slop) return;
            const Vec<D> n = dist > 1e-12f ? d / dist : c.normal;
            push_apart(c.a, c.b, ia, ib, (beta * (depth - slop) / (ia + ib)) * n);
        });
        for (const WallContact& w : wall_contacts_) {
            const float r = bodies.radius[w.body];
            float& p = pos[w.body][w.axis];
            p = w.side < 0 ? std::max(p, bounds.lo[w.axis] + r)
                           : std::min(p, bounds.hi[w.axis] - r);
        }
    }
    // A correction can push a body that was not at a wall through one. Level by level, as
    // the passes above: no two contacts of a level share a moving body.
    for_each_contact([&](std::uint32_t index) {
        const Contact<D>& c = in.contacts[index];
        for (BodyId id : {c.a, c.b}) {
            if (!bodies.is_static[id]) keep_inside<D>(bounds, bodies.radius[id], pos[id]);
        }
    });
}

template class ContactSolver<2>;
template class ContactSolver<3>;

}  // namespace collide
