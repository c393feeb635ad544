// The metaball field, its gradient, the bounds that make boxes and signatures sound, and the
// rigid-pose helpers.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "collide/implicit.hpp"
#include "implicit/field_term.hpp"

namespace collide {
namespace {

std::string format_value(float v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

[[noreturn]] void refuse(std::size_t i, const std::string& what, float v, const char* why) {
    throw std::invalid_argument("implicit shape: metaball " + std::to_string(i) + ": " + what +
                                " = " + format_value(v) + " " + why);
}

constexpr const char* kAxisName[3] = {"x", "y", "z"};

}  // namespace

template <int D>
void ImplicitShape<D>::validate(std::span<const Metaball<D>> balls) {
    if (balls.empty()) throw std::invalid_argument("implicit shape: no metaballs");
    bool any_positive = false;
    for (std::size_t i = 0; i < balls.size(); ++i) {
        const Metaball<D>& m = balls[i];
        for (int k = 0; k < D; ++k) {
            if (!std::isfinite(m.centre[k]))
                refuse(i, std::string("centre.") + kAxisName[k], m.centre[k], "is not finite");
        }
        if (!std::isfinite(m.radius)) refuse(i, "radius", m.radius, "is not finite");
        if (!(m.radius > 0.0f)) refuse(i, "radius", m.radius, "must be > 0");
        if (!std::isfinite(m.power)) refuse(i, "power", m.power, "is not finite");
        if (!(m.power > 0.0f)) refuse(i, "power", m.power, "must be > 0");
        if (!std::isfinite(m.weight)) refuse(i, "weight", m.weight, "is not finite");
        any_positive = any_positive || m.weight > 0.0f;
    }
    if (!any_positive)
        throw std::invalid_argument(
            "implicit shape: no metaball has a positive weight (the shape would be empty)");
}

// The local box. Negative terms only lower f, so f <= P(x) = sum over w_i > 0 of
// w_i * min((r_i / |x - c_i|)^p_i, cap). For an axis k and the side beyond a plane x_k = X
// (X above every centre's c_ik), every such point has |x - c_i| >= |x_k - c_ik| > X - c_ik, so
// P(x) < S(X) = sum w_i * (r_i / (X - c_ik))^p_i, which falls monotonically in X. We bisect
// (in double) for an X with S(X) <= 1 - kBoxMargin, starting from the bracket end where each
// of the N positive terms is at most (1 - margin) / N, and keep the safe end; the same on the
// low side and on every axis. Every point strictly outside the box then has f < 1 - margin:
// the box holds the whole inside and the surface, with room for float rounding (see signature).
// With one metaball the box is [c - r, c + r] up to the margin: tight.
template <int D>
ImplicitShape<D>::ImplicitShape(std::vector<Metaball<D>> balls) : balls_(std::move(balls)) {
    validate(balls_);
    distance_power_ = std::numeric_limits<float>::infinity();
    for (const auto& m : balls_) {
        if (m.weight > 0.0f) distance_power_ = std::min(distance_power_, m.power);
    }
    const double target = 1.0 - kBoxMargin;
    std::size_t n_pos = 0;
    for (const auto& m : balls_) n_pos += m.weight > 0.0f ? 1 : 0;
    for (int k = 0; k < D; ++k) {
        for (int side = 0; side < 2; ++side) {
            const double sign = side == 0 ? 1.0 : -1.0;  // beyond the plane: sign * (x_k - X) > 0
            auto tail = [&](double x) {
                double s = 0.0;
                for (const auto& m : balls_) {
                    if (m.weight <= 0.0f) continue;
                    const double gap = sign * (x - m.centre[k]);
                    if (gap <= 0.0) return 1.0e30;
                    s += m.weight *
                         std::min(std::pow(m.radius / gap, double(m.power)), double(kMaxTerm));
                }
                return s;
            };
            double inner = -1e300, outer = -1e300;  // in signed coordinate sign * x
            for (const auto& m : balls_) {
                if (m.weight <= 0.0f) continue;
                const double c = sign * m.centre[k];
                inner = std::max(inner, c);
                const double reach =
                    m.radius * std::pow(double(n_pos) * m.weight / target, 1.0 / m.power);
                outer = std::max(outer, c + reach);
            }
            for (int it = 0; it < 100 && outer - inner > 1e-12 * (1.0 + std::abs(outer)); ++it) {
                const double mid = 0.5 * (inner + outer);
                (tail(sign * mid) <= target ? outer : inner) = mid;
            }
            // Round outwards to float.
            float edge = static_cast<float>(sign * outer);
            if (side == 0) {
                if (double(edge) < outer) edge = std::nextafter(edge, INFINITY);
                box_.hi[k] = edge;
            } else {
                if (double(edge) > -outer) edge = std::nextafter(edge, -INFINITY);
                box_.lo[k] = edge;
            }
        }
    }
}

template <int D>
float ImplicitShape<D>::field(const Vec<D>& x) const {
    float f = 0.0f;
    for (const auto& m : balls_) {
        const Vec<D> d = x - m.centre;
        f += m.weight * field_term(m.radius * m.radius, glm::dot(d, d), m.power);
    }
    return f;
}

template <int D>
float ImplicitShape<D>::density(const Vec<D>& x) const {
    return kImplicitThreshold - field(x);
}

template <int D>
float ImplicitShape<D>::density_gradient(const Vec<D>& x, Vec<D>& grad) const {
    // d/dx of w (r^2 / d2)^(p/2) is -w p t (x - c) / d2, so grad g = sum w p t (x - c) / d2
    // (zero where the term is capped).
    float f = 0.0f;
    grad = Vec<D>(0.0f);
    for (const auto& m : balls_) {
        const Vec<D> d = x - m.centre;
        const float d2 = glm::dot(d, d);
        const float t = field_term(m.radius * m.radius, d2, m.power);
        f += m.weight * t;
        if (t < kMaxTerm) grad += (m.weight * m.power * t / d2) * d;
    }
    return kImplicitThreshold - f;
}

template <int D>
Vec<D> ImplicitShape<D>::gradient(const Vec<D>& x) const {
    Vec<D> grad;
    density_gradient(x, grad);
    return grad;
}

// Over a closed box, a positive term is largest at the box point nearest its centre and a
// negative term smallest in magnitude at the farthest one, so bound = P(nearest) - N(farthest)
// is >= f everywhere in the box. The margin covers float evaluation of f at a point: the sum
// of m terms rounds by at most about (m + 4) * 2^-23 * sum |term| (each term's pow adds a few
// ulps), and sum |term| over the box is at most P(nearest) + N(nearest); 1e-6 per term and a
// flat 1e-3 are far above that.
template <int D>
void ImplicitShape<D>::field_upper_bound(const Aabb<D>& cell, float& bound, float& margin) const {
    double pos = 0.0, neg_far = 0.0, neg_near = 0.0;
    for (const auto& m : balls_) {
        double near2 = 0.0, far2 = 0.0;
        for (int k = 0; k < D; ++k) {
            const double c = m.centre[k];
            const double lo = cell.lo[k], hi = cell.hi[k];
            const double gap = std::max({lo - c, 0.0, c - hi});
            const double far = std::max(std::abs(c - lo), std::abs(c - hi));
            near2 += gap * gap;
            far2 += far * far;
        }
        const double r2 = double(m.radius) * m.radius;
        auto term = [&](double d2) {
            if (d2 <= 0.0) return double(kMaxTerm);
            return std::min(std::pow(r2 / d2, 0.5 * m.power), double(kMaxTerm));
        };
        if (m.weight > 0.0f) {
            pos += m.weight * term(near2);
        } else {
            neg_far += -m.weight * term(far2);
            neg_near += -m.weight * term(near2);
        }
    }
    bound = static_cast<float>(pos - neg_far);
    margin = static_cast<float>(1.0e-3 + 1.0e-6 * (balls_.size() + 4) * (pos + neg_near));
}

// ---- poses ----

template <>
Mat<2> rotation_matrix<2>(const Pose<2>& pose) {
    const float c = std::cos(pose.angle), s = std::sin(pose.angle);
    return Mat<2>(c, s, -s, c);  // columns
}

template <>
Mat<3> rotation_matrix<3>(const Pose<3>& pose) {
    return glm::mat3_cast(glm::normalize(pose.rotation));
}

template <int D>
Vec<D> to_world(const Pose<D>& pose, const Vec<D>& local) {
    return rotation_matrix<D>(pose) * local + pose.position;
}

template <int D>
Vec<D> to_local(const Pose<D>& pose, const Vec<D>& world) {
    return glm::transpose(rotation_matrix<D>(pose)) * (world - pose.position);
}

template <int D>
Vec<D> direction_to_world(const Pose<D>& pose, const Vec<D>& local) {
    return rotation_matrix<D>(pose) * local;
}

// A rotated box's extent along world axis k is sum_j |R_kj| * half_j: the same box as the
// rotated corners', without enumerating them.
template <int D>
Aabb<D> world_box(const Aabb<D>& local, const Pose<D>& pose) {
    const Mat<D> r = rotation_matrix<D>(pose);
    const Vec<D> centre = r * local.center() + pose.position;
    const Vec<D> half = local.size() * 0.5f;
    Vec<D> ext(0.0f);
    for (int j = 0; j < D; ++j) {
        for (int k = 0; k < D; ++k) ext[k] += std::abs(r[j][k]) * half[j];
    }
    // A little slack so that float rounding in the rotation never shrinks the box.
    ext += (glm::length(half) + glm::length(centre)) * 1e-6f;
    return {centre - ext, centre + ext};
}

template <>
void validate_pose<2>(const Pose<2>& pose) {
    for (int k = 0; k < 2; ++k) {
        if (!std::isfinite(pose.position[k]))
            throw std::invalid_argument(std::string("pose: position.") + kAxisName[k] + " = " +
                                        format_value(pose.position[k]) + " is not finite");
    }
    if (!std::isfinite(pose.angle))
        throw std::invalid_argument("pose: angle = " + format_value(pose.angle) + " is not finite");
}

template <>
void validate_pose<3>(const Pose<3>& pose) {
    for (int k = 0; k < 3; ++k) {
        if (!std::isfinite(pose.position[k]))
            throw std::invalid_argument(std::string("pose: position.") + kAxisName[k] + " = " +
                                        format_value(pose.position[k]) + " is not finite");
    }
    constexpr const char* kQuatName[4] = {"x", "y", "z", "w"};
    for (int k = 0; k < 4; ++k) {
        if (!std::isfinite(pose.rotation[k]))
            throw std::invalid_argument(std::string("pose: rotation.") + kQuatName[k] + " = " +
                                        format_value(pose.rotation[k]) + " is not finite");
    }
    if (glm::dot(pose.rotation, pose.rotation) < 1e-12f)
        throw std::invalid_argument("pose: rotation is the zero quaternion");
}

template class ImplicitShape<2>;
template class ImplicitShape<3>;
template Vec<2> to_world<2>(const Pose<2>&, const Vec<2>&);
template Vec<3> to_world<3>(const Pose<3>&, const Vec<3>&);
template Vec<2> to_local<2>(const Pose<2>&, const Vec<2>&);
template Vec<3> to_local<3>(const Pose<3>&, const Vec<3>&);
template Vec<2> direction_to_world<2>(const Pose<2>&, const Vec<2>&);
template Vec<3> direction_to_world<3>(const Pose<3>&, const Vec<3>&);
template Aabb<2> world_box<2>(const Aabb<2>&, const Pose<2>&);
template Aabb<3> world_box<3>(const Aabb<3>&, const Pose<3>&);

}  // namespace collide
