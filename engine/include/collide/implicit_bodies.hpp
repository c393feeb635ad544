// Implicit bodies in World<D> (collide/implicit.hpp): metaball shapes with a rigid pose. The
// world calls this component at a few points of its step: to turn the bodies, to box them,
// for the narrow phase of pairs with an implicit body, and to hand the solver each implicit
// contact's offset. In a world of circles/spheres only, any() is false and the world keeps
// its analytic paths.
//
// An implicit body's `radius` is its bounding radius (used for its mass, the walls and the
// swept time-of-impact stop, all conservative), its box is its shape's world box at its
// pose, and pairs with it go through implicit_contact. Its spin is kinematic: a constant
// angular velocity that contacts do not change (contact impulses are linear only).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "collide/bodies.hpp"
#include "collide/contact_solver.hpp"
#include "collide/narrowphase.hpp"

namespace collide {

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

template <int D>
class ImplicitBodies {
public:
    // Completes the implicit columns of `bodies` (bodies filled column by column may leave
    // them out: all circles/spheres) and sets each implicit body's radius to its bounding
    // radius.
    explicit ImplicitBodies(Bodies<D>& bodies);

    bool any() const { return any_; }

    // Clears the last step's counters; a swept step keeps the rotations it starts from.
    void begin_step(const Bodies<D>& bodies, bool swept);
    // Kinematic spin: each implicit body turns at its constant angular velocity.
    void rotate(Bodies<D>& bodies, float dt) const;
    // The box of body `id` at its pose (its sphere's box for a circle/sphere).
    static Aabb<D> box(const Bodies<D>& bodies, BodyId id);
    // Sets the implicit bodies' boxes; with `start_pos` (a swept step) each also covers the
    // pose the body started the step at.
    void set_boxes(const Bodies<D>& bodies, std::span<const Vec<D>> start_pos,
                   std::span<Aabb<D>> boxes) const;
    // The narrow phase of a world with implicit bodies, on oneTBB: the pairs are visited in
    // (a, b) order, in chunks of about equal work cut from the pairs alone and joined in
    // order, so the contacts come out sorted and the same whatever the thread count.
    void find_contacts(const Bodies<D>& bodies, std::span<const Pair> pairs, bool use_signature,
                       std::vector<Contact<D>>& out);
    // Each implicit contact's offset, aligned with `contacts` (both sorted by pair), for the
    // solver; empty in a world without implicit bodies.
    std::span<const ContactOffset<D>> match_offsets(const std::vector<Contact<D>>& contacts);

    // Work of the implicit contact tests in the last step (all substeps).
    const ImplicitCounters& counters() const { return counters_; }
    // Implicit contact tests (pairs with at least one implicit body) in the last step.
    std::uint64_t tests() const { return tests_; }
    // The last narrow phase's implicit contacts, sorted by (a, b).
    const std::vector<ImplicitContactInfo<D>>& contacts() const { return info_; }
    // Puts back what a restored step found (World::restore); nothing here feeds the next step.
    void set_last_step(std::vector<ImplicitContactInfo<D>> contacts,
                       const ImplicitCounters& counters, std::uint64_t tests) {
        info_ = std::move(contacts);
        counters_ = counters;
        tests_ = tests;
    }
    // The exact sphere model of a plain body's radius, as the implicit test uses it.
    std::shared_ptr<const ImplicitModel<D>> sphere_model(float radius);

private:
    // What one chunk of the narrow phase's pairs found.
    struct Found {
        std::vector<Contact<D>> contacts;
        std::vector<ImplicitContactInfo<D>> info;
        ImplicitCounters counters;
        std::uint64_t tests = 0;
    };
    void implicit_pair(const Bodies<D>& bodies, const Pair& p, bool use_signature,
                       Found& found) const;
    // sphere_model(radius) if it is built, else null; safe from several threads.
    std::shared_ptr<const ImplicitModel<D>> cached_sphere_model(float radius) const;
    using SphereModel = std::pair<float, std::shared_ptr<const ImplicitModel<D>>>;

    bool any_ = false;
    std::vector<Rotation<D>> start_rot_;      // swept boxes: the pose at the start of the step
    std::vector<SphereModel> sphere_models_;  // sorted by radius
    std::vector<Pair> sorted_pairs_;
    std::vector<ContactOffset<D>> offsets_;
    std::vector<ImplicitContactInfo<D>> info_;
    std::vector<std::size_t> chunk_starts_;  // the narrow phase's chunks of sorted_pairs_
    std::vector<Found> found_;               // per chunk, kept for their allocations
    ImplicitCounters counters_;
    std::uint64_t tests_ = 0;
};

}  // namespace collide
