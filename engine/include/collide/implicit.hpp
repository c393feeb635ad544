// Implicit bodies: shapes given by a density field built from metaballs, in 2D and 3D. The
// field is polygonized (marching squares / marching cubes, each vertex refined by bisection
// onto the true surface) for drawing and for a surface point set; the narrow phase tests one
// body's surface points against the other's density (a point where the density is negative
// is inside: contact), both ways round, and measures depth and normal at the deepest point.
// A per-shape "spatial signature" (a bit grid in the shape's frame) lets points in cells that
// provably hold no inside point skip the density evaluation without changing any result.
//
// Density. Each metaball i adds w_i * (r_i / |x - c_i|)^p_i to the field f(x) (the classic
// inverse-power field; the term is capped at kMaxTerm so centres stay finite). The surface is
// f = 1, inside where f > 1, and the signed density the narrow phase tests is
//     g(x) = 1 - f(x)        (negative inside, zero on the surface, positive outside).
// With one metaball of weight 1 the surface is exactly the sphere |x - c| = r, whatever the
// power. Weights below 0 subtract (hollows, bites); the power sharpens the blend.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <glm/gtc/quaternion.hpp>

#include "collide/core.hpp"

namespace collide {

inline constexpr float kImplicitThreshold = 1.0f;
// Cap of one metaball's term (reached at |x - c| = r / kMaxTerm^(1/p)): keeps g finite at
// the centres without touching the field anywhere near a surface.
inline constexpr float kMaxTerm = 1.0e6f;

template <int D>
struct Metaball {
    Vec<D> centre{0.0f};
    float radius = 1.0f;
    float power = 2.0f;
    float weight = 1.0f;  // -1 subtracts
};

// The metaballs of one shape, in the body's own frame, with a sound local bounding box.
template <int D>
class ImplicitShape {
public:
    ImplicitShape() = default;
    // Validates (throws std::invalid_argument naming the bad value) and computes the box.
    explicit ImplicitShape(std::vector<Metaball<D>> balls);

    // Throws std::invalid_argument: no metaballs, no metaball of positive weight, radius <= 0,
    // power <= 0, or any value not finite. The message names the metaball and the value.
    static void validate(std::span<const Metaball<D>> balls);

    float field(const Vec<D>& x) const;      // f
    float density(const Vec<D>& x) const;    // g = 1 - f, negative inside
    Vec<D> gradient(const Vec<D>& x) const;  // grad g (points outwards), analytic
    // g and grad g in one pass.
    float density_gradient(const Vec<D>& x, Vec<D>& grad) const;

    // An upper bound of f over the closed box `cell`, plus the error margin within which a
    // float evaluation of f at a point of the cell can exceed the true value. The signature
    // marks a cell when bound + margin >= 1.
    void field_upper_bound(const Aabb<D>& cell, float& bound, float& margin) const;

    // Contains every point with f >= 1 (see the .cpp for the derivation): every point strictly
    // outside it has f <= 1 - kBoxMargin even summing the positive terms alone.
    const Aabb<D>& local_box() const { return box_; }
    // The smallest power among the positive metaballs: the exponent q of the distance-like
    // transform f^(-1/q) - 1 that ranks inside points by depth (see implicit_contact.cpp).
    float distance_power() const { return distance_power_; }
    std::span<const Metaball<D>> metaballs() const { return balls_; }

    static constexpr float kBoxMargin = 1.0e-3f;

private:
    std::vector<Metaball<D>> balls_;
    Aabb<D> box_ = Aabb<D>::empty();
    float distance_power_ = 2.0f;
};

// A rigid transform: world = R * local + position.
template <int D>
struct Pose;

template <>
struct Pose<2> {
    Vec<2> position{0.0f};
    float angle = 0.0f;  // radians, counter-clockwise
};

template <>
struct Pose<3> {
    Vec<3> position{0.0f};
    glm::quat rotation{1.0f, 0.0f, 0.0f, 0.0f};  // unit (w, x, y, z)
};

template <int D>
using Mat = glm::mat<D, D, float, glm::defaultp>;

template <int D>
Mat<D> rotation_matrix(const Pose<D>& pose);
template <int D>
Vec<D> to_world(const Pose<D>& pose, const Vec<D>& local);
template <int D>
Vec<D> to_local(const Pose<D>& pose, const Vec<D>& world);
template <int D>
Vec<D> direction_to_world(const Pose<D>& pose, const Vec<D>& local);
// The world box of the local box rotated and moved (exactly the box of its rotated corners).
template <int D>
Aabb<D> world_box(const Aabb<D>& local, const Pose<D>& pose);

// Throws std::invalid_argument when a pose value is not finite (or the quaternion is zero).
template <int D>
void validate_pose(const Pose<D>& pose);

// The polygonized surface, in the shape's frame. 2D: `indices` are segments (pairs);
// 3D: triangles (triples) wound so that (b - a) x (c - a) points outwards.
template <int D>
struct ImplicitMesh {
    std::vector<Vec<D>> vertices;  // unique: also the surface point set
    std::vector<Vec<D>> normals;   // unit outward (grad g)
    std::vector<std::uint32_t> indices;
    int resolution = 0;  // cells per axis
    Vec<D> cell_size{0.0f};
    std::uint64_t density_evals = 0;      // corners, ambiguity deciders and refinement
    std::uint64_t refine_iterations = 0;  // bisection steps over all vertices
    std::uint32_t refine_failures = 0;    // vertices that hit max_iterations above tolerance
    float max_abs_density = 0.0f;         // max |g| over the vertices after refinement
};

struct PolygonizeOptions {
    int resolution = 32;      // cells per axis over the local box
    float tolerance = 1e-4f;  // |g| a refined vertex must reach
    int max_iterations = 40;  // bisection steps per vertex
};

template <int D>
ImplicitMesh<D> polygonize(const ImplicitShape<D>& shape, const PolygonizeOptions& options = {});

// The spatial signature: one bit per cell of a grid over the shape's local box; bit = 1 where
// the cell may hold a point with g <= 0 (surface or inside). A point in a 0 cell, or outside
// the box, is outside B: its density need not be evaluated (soundness argued in the .cpp).
template <int D>
class Signature {
public:
    Signature() = default;
    Signature(const ImplicitShape<D>& shape, int resolution);

    // False only where the point is certainly outside (g > 0 when evaluated).
    bool may_be_inside(const Vec<D>& local) const;
    int resolution() const { return resolution_; }
    const Aabb<D>& box() const { return box_; }
    bool bit(const glm::vec<D, int, glm::defaultp>& cell) const;
    std::size_t marked() const { return marked_; }
    std::size_t cells() const;
    std::uint64_t bound_evals() const { return bound_evals_; }

private:
    std::size_t index(const glm::vec<D, int, glm::defaultp>& cell) const;

    Aabb<D> box_ = Aabb<D>::empty();
    Vec<D> inv_cell_{0.0f};
    int resolution_ = 0;
    std::vector<std::uint64_t> bits_;
    std::size_t marked_ = 0;
    std::uint64_t bound_evals_ = 0;
};

struct ImplicitModelOptions {
    PolygonizeOptions mesh{};       // the surface point set used in contact tests
    int signature_resolution = 32;  // cells per axis
};

// Everything built once per shape and shared by every body with that shape.
template <int D>
struct ImplicitModel {
    ImplicitShape<D> shape;
    ImplicitMesh<D> mesh;
    Signature<D> signature;
    float tolerance = 1e-4f;  // the |g| a depth refinement reaches (same as the mesh's)
    // The mesh vertices' indices in Morton order, cut into runs of kVertexRun, and each
    // run's box: a run whose box misses the other body's box is skipped whole, without
    // moving its vertices into the other's frame.
    static constexpr std::size_t kVertexRun = 32;
    std::vector<std::uint32_t> vertex_order;
    std::vector<Aabb<D>> vertex_runs;

    static std::shared_ptr<const ImplicitModel> build(std::vector<Metaball<D>> balls,
                                                      const ImplicitModelOptions& options = {});
};

// A one-metaball model: an exact circle/sphere of the given radius, for sphere vs implicit.
template <int D>
std::shared_ptr<const ImplicitModel<D>> make_sphere_model(float radius,
                                                          const ImplicitModelOptions& options = {});

template <int D>
struct ImplicitBody {
    std::shared_ptr<const ImplicitModel<D>> model;
    Pose<D> pose{};
    Aabb<D> world_box() const { return collide::world_box<D>(model->shape.local_box(), pose); }
};

struct ContactOptions {
    bool use_signature = true;
};

struct ImplicitCounters {
    std::uint64_t density_evals = 0;   // g evaluated at a surface point
    std::uint64_t gradient_evals = 0;  // g and grad g at an inside point or a contact point
    std::uint64_t refine_evals = 0;    // g in the depth search along the gradient
    std::uint64_t points_tested = 0;   // surface points tested against the other body
    std::uint64_t points_skipped = 0;  // of those, skipped by the signature (or its box)
    std::uint64_t inside_points = 0;
};

template <int D>
struct ImplicitContact {
    Vec<D> normal{0.0f};  // unit, world, from A towards B
    float depth = 0.0f;   // distance from the deepest point to the other surface, >= 0
    Vec<D> point{0.0f};   // world: the deepest point (on the surface of the body it came from)
    bool point_on_a = true;
    std::uint32_t inside_points = 0;  // points of either body inside the other
};

// Contact between two implicit bodies: A's surface points against B's density and B's
// against A's. nullopt when no point of either lies inside the other.
template <int D>
std::optional<ImplicitContact<D>> implicit_contact(const ImplicitBody<D>& a,
                                                   const ImplicitBody<D>& b,
                                                   const ContactOptions& options,
                                                   ImplicitCounters& counters);

}  // namespace collide
