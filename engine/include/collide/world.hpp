// World<D>: the simulation of circles (D = 2) or spheres (D = 3) in a box with bouncing
// walls. One step integrates (semi-implicit Euler), computes boxes, asks the broad phase
// for pairs, keeps the real contacts and resolves them with impulses plus positional
// correction. Bodies are stored as a structure of arrays.
//
// A body may instead be an implicit body (collide/implicit.hpp): a metaball shape with a
// rigid pose. Its `radius` is then its bounding radius (used for its mass, the walls and
// the swept time-of-impact stop, all conservative), its box is its shape's world box at its
// pose, and pairs with it go through implicit_contact. Its spin is kinematic: a constant
// angular velocity that contacts do not change (contact impulses are linear only).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "collide/broadphase.hpp"
#include "collide/core.hpp"
#include "collide/implicit.hpp"
#include "collide/narrowphase.hpp"

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
    // passed into each other during the step without the world seeing a contact.
    bool count_tunnelling = false;
    // Implicit contact tests skip the density at surface points that the other body's
    // signature proves outside. The result is the same either way; only the work differs.
    bool use_signature = true;
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
    void add_implicit(const Vec<D>& p, const Vec<D>& v, std::int32_t model,
                      const Rotation<D>& rot, const Spin<D>& w, bool fixed = false) {
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

// Where an implicit contact touched (for the overlays): one per contact with an implicit
// body, in the order of World::contacts().
template <int D>
struct ImplicitContactInfo {
    BodyId a = kNoBody;
    BodyId b = kNoBody;
    Vec<D> point{0.0f};  // the deepest point, world
    Vec<D> normal{0.0f};
    float depth = 0.0f;
    Vec<D> offset{0.0f};  // pos[b] - pos[a] when it was found
};

// Milliseconds spent in each phase of the last step. The tunnelling check is a measuring
// instrument, not part of the step, so it is timed apart and left out of the total.
struct StepTimings {
    double integrate_ms = 0;
    double broad_ms = 0;
    double narrow_ms = 0;
    double resolve_ms = 0;
    double tunnel_check_ms = 0;
    double total_ms() const { return integrate_ms + broad_ms + narrow_ms + resolve_ms; }
};

// Pairs that passed into each other without a contact (WorldSettings::count_tunnelling).
struct TunnellingCount {
    std::uint64_t last_step = 0;
    std::uint64_t total = 0;
};

// Where a body will first touch another if both keep their velocities (walls ignored).
template <int D>
struct PredictedImpact {
    BodyId other = kNoBody;
    float seconds = 0;  // from now
    Vec<D> at{0.0f};    // the body's centre then
    Vec<D> other_at{0.0f};
    Vec<D> point{0.0f};  // the touching point
};

template <int D>
class World {
public:
    World(const WorldSettings<D>& settings, Bodies<D> bodies);

    // Swap the broad phase live; the bodies are untouched.
    void set_broad_phase(std::unique_ptr<BroadPhase<D>> broad_phase);
    BroadPhase<D>* broad_phase() const { return broad_phase_.get(); }

    void step();

    // Put a body somewhere (the app's drag); boxes follow at the next step.
    void move_body(BodyId id, const Vec<D>& pos, const Vec<D>& vel);

    const Bodies<D>& bodies() const { return bodies_; }
    WorldSettings<D>& settings() { return settings_; }
    const WorldSettings<D>& settings() const { return settings_; }
    std::span<const Aabb<D>> boxes() const { return boxes_; }
    const PairList& pairs() const { return pairs_; }
    const std::vector<Contact<D>>& contacts() const { return contacts_; }
    const StepTimings& timings() const { return timings_; }
    std::uint64_t steps() const { return steps_; }
    double kinetic_energy() const;
    const TunnellingCount& tunnelling() const { return tunnelling_; }
    // Pairs that met at a time of impact in the last step (swept only).
    std::size_t impacts() const { return impacts_; }
    // The first touch of body `id` within `horizon` seconds, by a linear scan of the bodies.
    std::optional<PredictedImpact<D>> predict_impact(BodyId id, float horizon) const;

    // Implicit bodies (all zero / empty in a world of circles or spheres only).
    bool has_implicit() const { return has_implicit_; }
    // Work of the implicit contact tests in the last step (all substeps).
    const ImplicitCounters& implicit_counters() const { return implicit_counters_; }
    // Implicit contact tests (pairs with at least one implicit body) in the last step.
    std::uint64_t implicit_tests() const { return implicit_tests_; }
    // The last narrow phase's implicit contacts, sorted by (a, b).
    const std::vector<ImplicitContactInfo<D>>& implicit_contacts() const {
        return implicit_info_;
    }
    // The exact sphere model of a plain body's radius, as the implicit test uses it.
    std::shared_ptr<const ImplicitModel<D>> sphere_model(float radius);

private:
    void integrate(float dt);
    void compute_boxes();
    void stop_at_impacts();
    void add_impact_contacts();
    void count_tunnelled();
    void find_wall_contacts(float restitution_threshold);
    void solve_walls(bool warm_start, bool as_system);
    void order_contacts();
    void resolve(float dt);
    void solve_velocities(float restitution_threshold);
    void correct_positions();
    void find_all_contacts();
    bool implicit_pair(const Pair& p, Contact<D>& c);
    void rotate(float dt);
    void match_implicit_offsets();

    struct WallContact {
        BodyId body;
        int axis;
        float side;     // -1 for the low wall, +1 for the high one
        float target;   // normal velocity to reach: the bounce, or 0 at rest
        float impulse;  // accumulated, in velocity units (the wall is infinitely heavy)
    };

    WorldSettings<D> settings_;
    Bodies<D> bodies_;
    std::vector<float> inv_mass_;
    std::vector<Aabb<D>> boxes_;
    PairList pairs_;
    std::vector<Contact<D>> contacts_;
    std::vector<WallContact> wall_contacts_;
    std::vector<WallContact> prev_wall_contacts_;
    std::vector<float> impulse_;            // accumulated normal impulse per contact
    std::vector<std::uint32_t> order_;      // solve order of the contacts
    std::vector<float> height_;             // per contact, for the ground-up order
    std::vector<float> target_;             // target normal velocity per contact
    std::vector<std::uint64_t> prev_keys_;  // last step's contacts, for warm starting
    std::vector<float> prev_impulse_;
    std::unique_ptr<BroadPhase<D>> broad_phase_;
    // Swept steps and the tunnelling check: where each body started the step.
    std::vector<Vec<D>> start_pos_;
    std::vector<float> stop_at_;           // per body, the fraction of its path it keeps
    std::vector<Pair> impact_pairs_;       // pairs that stopped a body at their first touch
    std::size_t impacts_ = 0;
    std::unique_ptr<BroadPhase<D>> path_sweep_;  // independent of the world's broad phase
    std::vector<Aabb<D>> path_boxes_;
    PairList path_pairs_;
    TunnellingCount tunnelling_;
    StepTimings timings_;
    std::uint64_t steps_ = 0;
    // Implicit bodies.
    bool has_implicit_ = false;
    std::vector<Rotation<D>> start_rot_;  // swept boxes: the pose at the start of the step
    std::vector<std::pair<float, std::shared_ptr<const ImplicitModel<D>>>> sphere_models_;
    // Per contact, pos[b] - pos[a] when an implicit test found it (else false), so position
    // correction can linearize its depth.
    std::vector<Pair> sorted_pairs_;
    std::vector<std::pair<Vec<D>, bool>> contact_offset_;
    std::vector<ImplicitContactInfo<D>> implicit_info_;
    ImplicitCounters implicit_counters_;
    std::uint64_t implicit_tests_ = 0;
};

}  // namespace collide
