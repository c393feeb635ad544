// The contact solver of World<D>: contacts with the walls, warm starting from the last
// step's impulses, sequential impulses on the velocities, then positional correction. It
// owns what it carries from one solve to the next (the impulses, for warm starting) and its
// scratch arrays; the bodies and their contacts are handed to it for each solve.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "collide/bodies.hpp"
#include "collide/narrowphase.hpp"

namespace collide {

// pos[b] - pos[a] when an implicit test found the contact (else false), so position
// correction can linearize its depth: the shapes are not tested again within the step.
template <int D>
using ContactOffset = std::pair<Vec<D>, bool>;

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

// Whether a body at p of radius r touches the wall on `side` (-1 low, +1 high) of axis k:
// within 1% of its radius of it. Each such wall is one of the solver's wall contacts.
template <int D>
bool touches_wall_side(const Aabb<D>& bounds, float r, const Vec<D>& p, int k, float side) {
    const float slop = 0.01f * r;
    return side < 0 ? p[k] - r <= bounds.lo[k] + slop : p[k] + r >= bounds.hi[k] - slop;
}

// Whether it touches any wall: the world lists the bodies that do as it integrates them, so
// that the solver need not read every body again.
template <int D>
bool touches_wall(const Aabb<D>& bounds, float r, const Vec<D>& p) {
    bool touching = false;
    for (int k = 0; k < D; ++k) {
        touching = touching || touches_wall_side<D>(bounds, r, p, k, -1.0f) ||
                   touches_wall_side<D>(bounds, r, p, k, 1.0f);
    }
    return touching;
}

template <int D>
class ContactSolver {
public:
    // What one solve works on. `contacts` are sorted by (a, b); `offsets` is empty (no
    // implicit contacts) or holds one entry per contact.
    struct Input {
        const WorldSettings<D>& settings;
        float dt;
        std::span<const float> inv_mass;
        const std::vector<Contact<D>>& contacts;
        std::span<const ContactOffset<D>> offsets;
        // Every moving body that touches_wall() where the bodies are now, in body order.
        std::span<const BodyId> at_walls;
    };

    struct WallContact {
        BodyId body;
        int axis;
        float side;     // -1 for the low wall, +1 for the high one
        float target;   // normal velocity to reach: the bounce, or 0 at rest
        float impulse;  // accumulated, in velocity units (the wall is infinitely heavy)
    };

    // What one solve hands to the next: the last solve's wall contacts and contact impulses,
    // which warm-start it. Everything else the solver holds is scratch.
    struct WarmStart {
        std::vector<WallContact> walls;
        std::vector<std::uint64_t> keys;  // Pair::key() of each contact, sorted
        std::vector<float> impulses;      // parallel to keys
    };

    // Resolves the contacts and the walls over one (sub)step: velocities, then positions.
    void solve(const Input& in, Bodies<D>& bodies);

    WarmStart warm_start() const { return {wall_contacts_, prev_keys_, prev_impulse_}; }
    void set_warm_start(WarmStart w) {
        wall_contacts_ = std::move(w.walls);
        prev_keys_ = std::move(w.keys);
        prev_impulse_ = std::move(w.impulses);
    }

private:
    void find_wall_contacts(const Input& in, const Bodies<D>& bodies, float threshold);
    void solve_walls(float restitution, bool warm_start, bool as_system, Bodies<D>& bodies);
    void order_contacts(const Input& in, const Bodies<D>& bodies);
    void level_contacts(const Input& in);
    // Runs fn(contact) over every contact in solve order, level by level; a level's
    // contacts share no moving body, so a large level runs in parallel with the result of
    // the sequential order, bit for bit, on any number of threads.
    template <typename Fn>
    void for_each_contact(const Fn& fn) const;
    void solve_velocities(const Input& in, float threshold, Bodies<D>& bodies);
    void correct_positions(const Input& in, Bodies<D>& bodies) const;

    std::vector<WallContact> wall_contacts_;
    std::vector<WallContact> prev_wall_contacts_;
    std::vector<float> impulse_;        // accumulated normal impulse per contact
    std::vector<std::uint32_t> order_;  // solve order of the contacts
    // The contacts of order_ grouped by level: a contact's level is one more than that of
    // the last contact before it in order_ that moves one of its bodies.
    std::vector<std::uint32_t> by_level_;
    std::vector<std::uint32_t> level_start_;  // by_level_ offsets, one past the end last
    std::vector<std::uint32_t> level_;        // scratch: per place in order_, its level
    // Scratch: the contacts' moving ends as (body, place and side) keys, sorted; and per end,
    // the place of the last contact before it on its body.
    std::vector<std::uint64_t> ends_;
    std::vector<std::uint32_t> before_;
    std::vector<float> height_;               // per contact, for the ground-up order
    std::vector<float> target_;               // target normal velocity per contact
    std::vector<std::uint64_t> prev_keys_;    // last step's contacts, for warm starting
    std::vector<float> prev_impulse_;
};

}  // namespace collide
