// The narrow phase between implicit bodies, and the models they share.
//
// Each body's surface points go into the other's frame and are tested against its density
// (skipped where the other's signature proves them outside, and whole runs of them where the
// run's box misses the other's box). Both directions are needed: a small body wholly inside a
// big one has all its points inside the big one and none of the big one's inside it. Among the
// inside points, the deepest is the one with the largest first-order distance estimate
// (depth_estimate below); from it we search along the gradient for the surface (bracket, then
// bisection to |g| < tolerance), and that distance is the depth. The normal is
// the other body's gradient direction at the surface point found, turned to point from A to B.
// The deepest vertex is then polished along its own surface (see polish), so for two spheres
// depth and normal are exact up to the tolerances, not the sampling.
//
// Depth is the distance from one body's surface point to the other's surface, so for two
// spheres it equals ra + rb - |d| while the smaller sphere's centre is outside the larger.
// Deeper than that (a centre swallowed), the deepest point lies on the far side and the result
// is |ra - rb| + |d| with a normal that can point the wrong way: point-sampled narrow phases
// assume shallow contacts, and the solver should keep them so. A contact thinner than the
// point spacing where no vertex of either body enters the other (two thin rods crossing) is
// missed for the same reason.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "collide/implicit.hpp"
#include "collide/morton.hpp"

namespace collide {
namespace {

template <int D>
struct Deepest {
    bool found = false;
    float estimate = -std::numeric_limits<float>::infinity();
    Vec<D> source_local{0.0f};  // on the source's surface, source frame
    Vec<D> target_local{0.0f};  // the same point in the target's frame
    Vec<D> direction{0.0f};     // unit outward gradient of the target there
    std::uint32_t vertex = 0;   // the source's mesh vertex it is
    std::uint32_t inside = 0;
};

// Unit outward direction of the target at q; where the gradient vanishes (a centre, or where
// terms cancel), away from the nearest positive centre, else any axis.
template <int D>
Vec<D> outward_at(const ImplicitShape<D>& shape, const Vec<D>& q, const Vec<D>& grad) {
    const float len = glm::length(grad);
    if (len > 0.0f && std::isfinite(len)) return grad / len;
    float best = std::numeric_limits<float>::infinity();
    Vec<D> dir(0.0f);
    dir[0] = 1.0f;
    for (const auto& m : shape.metaballs()) {
        if (m.weight <= 0.0f) continue;
        const Vec<D> d = q - m.centre;
        const float l = glm::length(d);
        if (l > 0.0f && l < best) {
            best = l;
            dir = d / l;
        }
    }
    return dir;
}

// A first-order distance below the surface, to rank the inside points. -g / |grad g| is a
// poor ranking deep inside (for one ball of power 2 it peaks at r / sqrt(3) from the centre and
// falls towards it), so we take the first-order estimate of the transformed field
// h = f^(-1/q) - 1 instead, q the shape's smallest positive power: for one metaball of power q
// it is exactly r - |x - c| (h = |x - c| / r - 1), and for any power p >= q it is still
// monotone in |x - c|, so the deepest point of a sphere is always chosen. With
// grad h = (1/q) f^(-1/q - 1) grad g, the estimate -h / |grad h| = q f (f^(1/q) - 1) / |grad g|.
template <int D>
float depth_estimate(const ImplicitShape<D>& shape, float g, const Vec<D>& grad) {
    const float f = kImplicitThreshold - g;
    const float len = glm::length(grad);
    if (!(len > 0.0f) || !std::isfinite(len)) return std::numeric_limits<float>::max();
    const float q = shape.distance_power();
    return q * f * (std::pow(f, 1.0f / q) - 1.0f) / len;
}

// One surface point p (vertex `index`) of the source against the target, q = p in the
// target's frame.
template <int D>
void test_point(const Vec<D>& p, std::uint32_t index, const Mat<D>& rot, const Vec<D>& shift,
                const ImplicitModel<D>& target, bool use_signature, ImplicitCounters& counters,
                Deepest<D>& out) {
    const ImplicitShape<D>& shape = target.shape;
    const Vec<D> q = rot * p + shift;
    ++counters.points_tested;
    if (use_signature && !target.signature.may_be_inside(q)) {
        ++counters.points_skipped;
        return;
    }
    ++counters.density_evals;
    if (!(shape.density(q) < 0.0f)) return;
    ++out.inside;
    Vec<D> grad;
    const float g = shape.density_gradient(q, grad);
    ++counters.gradient_evals;
    const float estimate = depth_estimate(shape, g, grad);
    // Ties go to the lower vertex index, so the result does not depend on the visiting order.
    if (estimate > out.estimate || (out.found && estimate == out.estimate && index < out.vertex)) {
        out.found = true;
        out.estimate = estimate;
        out.vertex = index;
        out.source_local = p;
        out.target_local = q;
        out.direction = outward_at(shape, q, grad);
    }
}

// Whether the run's box, moved into the target's frame, can reach the target's box. The
// moved box is the exact bound of the moved run, widened by far more than the rounding of
// rot * p + shift; a run it clears holds only points outside the box, which the signature
// would skip one by one (and which are outside the target with or without it).
template <int D>
bool run_may_reach(const Aabb<D>& run, const Mat<D>& rot, const Mat<D>& abs_rot,
                   const Vec<D>& shift, const Aabb<D>& target_box) {
    const Vec<D> centre = 0.5f * (run.lo + run.hi), half = 0.5f * run.size();
    const Vec<D> moved = rot * centre + shift;
    // |p| <= |centre| + half for every p of the run: the rounding is a few ulps of that.
    const Vec<D> rounding = abs_rot * (glm::abs(centre) + half) + glm::abs(shift) + Vec<D>(1.0f);
    const Vec<D> reach = abs_rot * half + 1e-4f * rounding;
    for (int k = 0; k < D; ++k) {
        if (moved[k] + reach[k] < target_box.lo[k] || moved[k] - reach[k] > target_box.hi[k])
            return false;
    }
    return true;
}

template <int D>
void probe(const ImplicitModel<D>& source, const Mat<D>& rot, const Vec<D>& shift,
           const ImplicitModel<D>& target, bool use_signature, ImplicitCounters& counters,
           Deepest<D>& out) {
    constexpr std::size_t kRun = ImplicitModel<D>::kVertexRun;
    const std::vector<Vec<D>>& vertices = source.mesh.vertices;
    const std::vector<std::uint32_t>& order = source.vertex_order;
    assert(order.size() == vertices.size());
    assert(source.vertex_runs.size() == (order.size() + kRun - 1) / kRun);
    Mat<D> abs_rot;
    for (int c = 0; c < D; ++c) abs_rot[c] = glm::abs(rot[c]);
    for (std::size_t run = 0; run < source.vertex_runs.size(); ++run) {
        const std::size_t begin = run * kRun;
        const std::size_t end = std::min(begin + kRun, order.size());
        if (use_signature &&
            !run_may_reach(source.vertex_runs[run], rot, abs_rot, shift, target.signature.box())) {
            counters.points_tested += end - begin;
            counters.points_skipped += end - begin;
            continue;
        }
        for (std::size_t i = begin; i < end; ++i) {
            test_point(vertices[order[i]], order[i], rot, shift, target, use_signature, counters,
                       out);
        }
    }
}

template <int D>
struct Relative {
    Mat<D> rot;
    Vec<D> shift;
};

// Source frame -> target frame.
template <int D>
Relative<D> relative(const Pose<D>& source, const Pose<D>& target) {
    const Mat<D> rt = glm::transpose(rotation_matrix<D>(target));
    return {rt * rotation_matrix<D>(source), rt * (source.position - target.position)};
}

// The deepest vertex is only as deep as the point set's sampling allows (for two spheres it
// can sit half a cell's arc from the true deepest point, which tilts the normal by that arc
// over the distance to B's centre). So we walk it along the source's surface: a tangent step
// against the target's gradient, a Newton projection back onto the source's surface, kept when
// the depth estimate grows, else a shorter step. For two spheres this converges to the point
// on the line of centres: depth and normal exact up to the tolerances.
template <int D>
void polish(const ImplicitModel<D>& source, const Relative<D>& rel, const ImplicitModel<D>& target,
            ImplicitCounters& counters, Deepest<D>& d) {
    const ImplicitShape<D>& sa = source.shape;
    const ImplicitShape<D>& sb = target.shape;
    const Mat<D> back = glm::transpose(rel.rot);  // target -> source directions
    float step = 0.5f * glm::length(source.mesh.cell_size);
    const float min_step = 1e-3f * step;
    Vec<D> x = d.source_local;
    for (int it = 0; it < 24 && step > min_step; ++it) {
        Vec<D> gb;
        sb.density_gradient(rel.rot * x + rel.shift, gb);
        Vec<D> ga;
        sa.density_gradient(x, ga);
        counters.gradient_evals += 2;
        const float la = glm::length(ga);
        if (!(la > 0.0f)) break;
        const Vec<D> na = ga / la;
        const Vec<D> g_src = back * gb;
        Vec<D> tangent = -(g_src - glm::dot(g_src, na) * na);
        const float lt = glm::length(tangent);
        if (!(lt > 1e-6f * glm::length(g_src))) break;  // already where the gradients align
        Vec<D> y = x + (step / lt) * tangent;
        for (int k = 0; k < 4; ++k) {  // back onto the source's surface
            Vec<D> gy;
            const float g = sa.density_gradient(y, gy);
            ++counters.gradient_evals;
            const float l2 = glm::dot(gy, gy);
            if (!(l2 > 0.0f) || std::abs(g) < source.tolerance) break;
            y -= (g / l2) * gy;
        }
        const Vec<D> q = rel.rot * y + rel.shift;
        Vec<D> gq;
        const float g = sb.density_gradient(q, gq);
        ++counters.gradient_evals;
        const float estimate = g < 0.0f ? depth_estimate(sb, g, gq) : -1.0f;
        ++counters.refine_evals;
        if (estimate > d.estimate && std::abs(sa.density(y)) < 10.0f * source.tolerance) {
            x = y;
            d.estimate = estimate;
            d.source_local = y;
            d.target_local = q;
            d.direction = outward_at(sb, q, gq);
            step *= 1.5f;
        } else {
            step *= 0.5f;
        }
    }
}

// Distance from the inside point q along `dir` to where g reaches 0 (|g| < tolerance).
template <int D>
float depth_along(const ImplicitModel<D>& target, const Vec<D>& q, const Vec<D>& dir,
                  float estimate, ImplicitCounters& counters, Vec<D>& surface) {
    const ImplicitShape<D>& shape = target.shape;
    const float reach = glm::length(shape.local_box().size()) * 2.0f + glm::length(q);
    float lo = 0.0f;
    float hi = std::min(std::max(estimate * 1.25f, reach * 1e-4f), reach);
    float g_hi = shape.density(q + hi * dir);
    ++counters.refine_evals;
    while (g_hi < 0.0f && hi < reach) {
        lo = hi;
        hi = std::min(hi * 2.0f, reach);
        g_hi = shape.density(q + hi * dir);
        ++counters.refine_evals;
    }
    float t = hi;
    if (!(std::abs(g_hi) < target.tolerance)) {
        for (int it = 0; it < 60; ++it) {
            const float mid = 0.5f * (lo + hi);
            if (mid <= lo || mid >= hi) break;  // float resolution reached
            const float g = shape.density(q + mid * dir);
            ++counters.refine_evals;
            if (std::abs(g) < target.tolerance) {
                t = mid;
                break;
            }
            (g < 0.0f ? lo : hi) = mid;
            t = 0.5f * (lo + hi);
        }
    }
    surface = q + t * dir;
    return t;
}

// Morton order on a 1024-per-axis grid over the shape's box keeps each run of vertices in a
// compact patch of the surface (the mesh's own cell order makes long thin slabs).
template <int D>
void order_vertices(ImplicitModel<D>& model) {
    const std::vector<Vec<D>>& vertices = model.mesh.vertices;
    const Aabb<D> box = model.shape.local_box();
    const Vec<D> scale = 1023.0f / glm::max(box.size(), Vec<D>(1e-30f));
    std::vector<std::pair<std::uint64_t, std::uint32_t>> keyed(vertices.size());
    for (std::size_t i = 0; i < vertices.size(); ++i) {
        morton::Coords<D> c;
        for (int k = 0; k < D; ++k)
            c[k] = static_cast<std::uint32_t>(
                std::clamp((vertices[i][k] - box.lo[k]) * scale[k], 0.0f, 1023.0f));
        keyed[i] = {morton::encode<D>(c), static_cast<std::uint32_t>(i)};
    }
    std::sort(keyed.begin(), keyed.end());
    model.vertex_order.resize(keyed.size());
    model.vertex_runs.clear();
    for (std::size_t i = 0; i < keyed.size(); ++i) {
        model.vertex_order[i] = keyed[i].second;
        if (i % ImplicitModel<D>::kVertexRun == 0) model.vertex_runs.push_back(Aabb<D>::empty());
        const Vec<D>& v = vertices[keyed[i].second];
        model.vertex_runs.back().grow(Aabb<D>{v, v});
    }
}

}  // namespace

template <int D>
std::optional<ImplicitContact<D>> implicit_contact(const ImplicitBody<D>& a,
                                                   const ImplicitBody<D>& b,
                                                   const ContactOptions& options,
                                                   ImplicitCounters& counters) {
    Deepest<D> a_in_b, b_in_a;
    const Relative<D> ab = relative(a.pose, b.pose), ba = relative(b.pose, a.pose);
    probe(*a.model, ab.rot, ab.shift, *b.model, options.use_signature, counters, a_in_b);
    probe(*b.model, ba.rot, ba.shift, *a.model, options.use_signature, counters, b_in_a);
    counters.inside_points += a_in_b.inside + b_in_a.inside;
    if (!a_in_b.found && !b_in_a.found) return std::nullopt;

    ImplicitContact<D> best;
    best.depth = -1.0f;
    best.inside_points = a_in_b.inside + b_in_a.inside;
    for (int side = 0; side < 2; ++side) {
        Deepest<D> d = side == 0 ? a_in_b : b_in_a;
        if (!d.found) continue;
        const ImplicitBody<D>& target = side == 0 ? b : a;
        const ImplicitBody<D>& source = side == 0 ? a : b;
        polish(*source.model, side == 0 ? ab : ba, *target.model, counters, d);
        Vec<D> surface;
        const float depth =
            depth_along(*target.model, d.target_local, d.direction, d.estimate, counters, surface);
        if (!(depth > best.depth)) continue;
        Vec<D> grad;
        target.model->shape.density_gradient(surface, grad);
        ++counters.gradient_evals;
        const Vec<D> out_local = outward_at(target.model->shape, surface, grad);
        const Vec<D> out_world = direction_to_world<D>(target.pose, out_local);
        best.depth = depth;
        // B's outward normal at A's point faces A: flip it; A's outward normal faces B.
        best.normal = side == 0 ? -out_world : out_world;
        best.point = to_world<D>(source.pose, d.source_local);
        best.point_on_a = side == 0;
    }
    return best;
}

template <int D>
std::shared_ptr<const ImplicitModel<D>> ImplicitModel<D>::build(
    std::vector<Metaball<D>> balls, const ImplicitModelOptions& options) {
    auto model = std::make_shared<ImplicitModel<D>>();
    model->shape = ImplicitShape<D>(std::move(balls));
    model->mesh = polygonize<D>(model->shape, options.mesh);
    model->signature = Signature<D>(model->shape, options.signature_resolution);
    model->tolerance = options.mesh.tolerance;
    order_vertices(*model);
    return model;
}

template <int D>
std::shared_ptr<const ImplicitModel<D>> make_sphere_model(float radius,
                                                          const ImplicitModelOptions& options) {
    return ImplicitModel<D>::build({Metaball<D>{Vec<D>(0.0f), radius, 2.0f, 1.0f}}, options);
}

template struct ImplicitModel<2>;
template struct ImplicitModel<3>;
template std::shared_ptr<const ImplicitModel<2>> make_sphere_model<2>(float,
                                                                      const ImplicitModelOptions&);
template std::shared_ptr<const ImplicitModel<3>> make_sphere_model<3>(float,
                                                                      const ImplicitModelOptions&);
template std::optional<ImplicitContact<2>> implicit_contact<2>(const ImplicitBody<2>&,
                                                               const ImplicitBody<2>&,
                                                               const ContactOptions&,
                                                               ImplicitCounters&);
template std::optional<ImplicitContact<3>> implicit_contact<3>(const ImplicitBody<3>&,
                                                               const ImplicitBody<3>&,
                                                               const ContactOptions&,
                                                               ImplicitCounters&);

}  // namespace collide
