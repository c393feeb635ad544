#include "tooling/ballistic.hpp"

#include <algorithm>
#include <cmath>

#include "tooling/random.hpp"

namespace collide {

namespace {

float median(std::vector<float> v) {
    if (v.empty()) return 1.0f;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

}  // namespace

std::optional<SpeedDistribution> speed_distribution(std::string_view name) {
    if (name == "maxwell-boltzmann") return SpeedDistribution::kMaxwellBoltzmann;
    if (name == "equal") return SpeedDistribution::kEqual;
    return std::nullopt;
}

// 2D: the chi CDF is 1 - exp(-x^2 / 2), so the median is sqrt(2 ln 2). 3D: the root of
// erf(x / sqrt 2) - sqrt(2 / pi) x exp(-x^2 / 2) = 1/2, found by bisection.
template <>
float chi_median<2>() {
    return 1.17741002f;
}
template <>
float chi_median<3>() {
    return 1.53817225f;
}

template <int D>
BallisticMotion<D>::BallisticMotion(Scene<D> scene, const MotionSettings& motion,
                                    std::uint64_t seed)
    : bounds_(scene.settings.bounds), bodies_(std::move(scene.bodies)) {
    Rng rng(seed ^ 0xB0A710u);
    const float step = motion.speed * median(bodies_.radius);
    // Components normal with this deviation give a median speed of `step`.
    const float sigma = step / chi_median<D>();
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        if (bodies_.is_static[i]) {
            bodies_.vel[i] = Vec<D>(0.0f);
        } else if (motion.speeds == SpeedDistribution::kEqual) {
            bodies_.vel[i] = rng.direction<D>() * step;
        } else {
            for (int k = 0; k < D; ++k) bodies_.vel[i][k] = rng.normal() * sigma;
        }
    }
    if (motion.resting > 0) {
        // Exactly round(share x moving) bodies, drawn at random (a partial shuffle) with an
        // rng of their own, so the velocities above do not depend on the share.
        std::vector<std::size_t> moving;
        for (std::size_t i = 0; i < bodies_.size(); ++i)
            if (!bodies_.is_static[i]) moving.push_back(i);
        const auto resting = static_cast<std::size_t>(
            std::lround(static_cast<double>(motion.resting) * static_cast<double>(moving.size())));
        Rng pick(seed ^ 0x5EE9u);
        for (std::size_t r = 0; r < resting; ++r) {
            const std::size_t j = r + pick.next() % (moving.size() - r);
            std::swap(moving[r], moving[j]);
            bodies_.vel[moving[r]] = Vec<D>(0.0f);
        }
    }
    for (BodyId i = 0; i < bodies_.size(); ++i)
        if (bodies_.vel[i] != Vec<D>(0.0f)) moving_.push_back(i);
    boxes_.resize(bodies_.size());
    compute_boxes();
}

template <int D>
void BallisticMotion<D>::advance() {
    for (const BodyId i : moving_) {
        Vec<D>& p = bodies_.pos[i];
        Vec<D>& v = bodies_.vel[i];
        p += v;
        for (int k = 0; k < D; ++k) {
            if ((p[k] < bounds_.lo[k] && v[k] < 0) || (p[k] > bounds_.hi[k] && v[k] > 0))
                v[k] = -v[k];
        }
        boxes_[i] = Aabb<D>::around(p, bodies_.radius[i]);
    }
}

template <int D>
void BallisticMotion<D>::compute_boxes() {
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        boxes_[i] = Aabb<D>::around(bodies_.pos[i], bodies_.radius[i]);
    }
}

template class BallisticMotion<2>;
template class BallisticMotion<3>;

}  // namespace collide
