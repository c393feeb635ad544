// The plain data of a simulation: its settings and its bodies as a structure of arrays
// (circles/spheres, or implicit bodies with a rigid pose, see collide/implicit.hpp), with the
// helpers that build a body's pose and bounding radius. Scenes fill these; World steps them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "collide/core.hpp"
#include "collide/implicit.hpp"
#include "collide/pair_budget.hpp"

namespace collide {

template <int D>
struct WorldSettings {
    Aabb<D> bounds{Vec<D>(0.0f), Vec<D>(100.0f)};
    Vec<D> gravity{0.0f};
    float restitution = 1.0f;
    float dt = 1.0f / 60.0f;
    // Solver passes; substeps split the step for stiff piles (the broad phase runs once).
    int substeps = 1;
    int solver_iterations = 8;
    int position_iterations = 4;
    // Fraction of the penetration (beyond a small slop) removed per step.
    float position_correction = 0.8f;
    // Continuous collision: each body's box covers its motion over the step (start and end
    // positions), and a time-of-impact narrow phase stops bodies at their first touch, so
    // fast small bodies cannot pass through others. With substeps, only the first is swept.
    bool swept = false;
    // Check every step, with an independent sweep over the bodies' paths, for pairs that
    // passed into each other during the step without the world seeing a contact. The world
    // does not read it: its callers do, and then step it with a TunnellingCheck
    // (collide/tunnelling_check.hpp).
    bool count_tunnelling = false;
    // Implicit contact tests skip the density at surface points that the other body's
    // signature proves outside. The result is the same either way; only the work differs.
    bool use_signature = true;
    // The pair budget (collide/pair_budget.hpp): a step whose broad phase finds more pairs
    // stops there, before the narrow phase, and says how many (World::pairs_over_budget).
    std::size_t max_pairs = kMaxPairs;
    // Sleeping by island (collide/sleep_islands.hpp): an island whose bodies have all been
    // slower than sleep_speed (units per second) for sleep_time seconds (> 0) stops moving
    // until something awake touches it. Off unless asked for: a world without it moves
    // every dynamic body every step, as it always did.
    bool sleep = false;
    float sleep_speed = 0.05f;
    float sleep_time = 0.5f;
};

// Orientation and angular velocity of a body: an angle (radians) and a rate in 2D, a unit
// quaternion and an angular velocity vector (radians per second about its axis) in 3D.
template <int D>
using Rotation = std::conditional_t<D == 2, float, glm::quat>;
template <int D>
using Spin = std::conditional_t<D == 2, float, Vec<3>>;

template <int D>
Pose<D> make_pose(const Vec<D>& position, const Rotation<D>& rotation) {
    Pose<D> pose;
    pose.position = position;
    if constexpr (D == 2) {
        pose.angle = rotation;
    } else {
        pose.rotation = rotation;
    }
    return pose;
}

// The radius of a sphere about the body's origin that holds its surface: every surface
// point lies in a marching cell with a mesh vertex, so within one cell diagonal of one (a
// feature smaller than a cell could poke out further), and never beyond the box's corners.
template <int D>
float bounding_radius(const ImplicitModel<D>& model) {
    const Aabb<D>& box = model.shape.local_box();
    const float corner = glm::length(glm::max(glm::abs(box.lo), glm::abs(box.hi)));
    float reach = 0.0f;
    for (const Vec<D>& v : model.mesh.vertices) reach = std::max(reach, glm::length(v));
    if (model.mesh.vertices.empty()) return corner;
    return std::min(corner, reach + glm::length(model.mesh.cell_size));
}

// A body of a world that adds and removes bodies: its slot and the slot's generation, which
// a removal advances, so a handle kept past its body's removal is told apart from the body
// that takes the slot next.
struct BodyHandle {
    BodyId id = kNoBody;
    std::uint32_t generation = 0;
    bool operator==(const BodyHandle&) const = default;
};

// Bodies as a structure of arrays; index = BodyId.
template <int D>
struct Bodies {
    std::vector<Vec<D>> pos;
    std::vector<Vec<D>> vel;
    std::vector<float> radius;
    std::vector<std::uint8_t> is_static;  // 1 = infinite mass, never moves
    // Implicit bodies: index into `models`, or -1 for a circle/sphere.
    std::vector<std::int32_t> shape;
    std::vector<Rotation<D>> rotation;
    std::vector<Spin<D>> spin;  // kinematic: contacts do not change it
    // The shapes, built once and shared by every body that uses them.
    std::vector<std::shared_ptr<const ImplicitModel<D>>> models;

    std::size_t size() const { return pos.size(); }
    void add(const Vec<D>& p, const Vec<D>& v, float r, bool fixed = false) {
        pos.push_back(p);
        vel.push_back(fixed ? Vec<D>(0.0f) : v);
        radius.push_back(r);
        is_static.push_back(fixed ? 1 : 0);
        shape.push_back(-1);
        rotation.push_back(Rotation<D>{});
        spin.push_back(Spin<D>{});
    }
    // An implicit body of shape `models[model]`; its radius is the shape's bounding radius.
    void add_implicit(const Vec<D>& p, const Vec<D>& v, std::int32_t model, const Rotation<D>& rot,
                      const Spin<D>& w, bool fixed = false) {
        add(p, v, bounding_radius<D>(*models.at(static_cast<std::size_t>(model))), fixed);
        shape.back() = model;
        rotation.back() = rot;
        spin.back() = fixed ? Spin<D>{} : w;
    }
    bool is_implicit(std::size_t i) const { return shape[i] >= 0; }
    Pose<D> pose(std::size_t i) const { return make_pose<D>(pos[i], rotation[i]); }
    const ImplicitModel<D>* model_of(std::size_t i) const {
        return shape[i] >= 0 ? models[static_cast<std::size_t>(shape[i])].get() : nullptr;
    }
    void reserve(std::size_t n) {
        pos.reserve(n);
        vel.reserve(n);
        radius.reserve(n);
        is_static.reserve(n);
        shape.reserve(n);
        rotation.reserve(n);
        spin.reserve(n);
    }
};

}  // namespace collide
