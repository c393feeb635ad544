// Ballistic motion for benches and tests: bodies fly in straight lines and bounce off the
// world's walls, with no contacts. It drives a broad phase with realistic frame-to-frame
// coherence without the cost (or the feedback) of a full simulation. Speeds follow a
// Maxwell-Boltzmann distribution (a gas: every velocity component normal), so bodies leave
// fat boxes at different frames, as in real motion; `kEqual` gives every body the same
// speed (the old motion, which makes fat-box methods run in synchronized waves). A share of
// the bodies can rest (velocity 0 but not static, as sleeping bodies in a game world).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "tooling/scenes.hpp"

namespace collide {

enum class SpeedDistribution { kMaxwellBoltzmann, kEqual };

struct MotionSettings {
    // Median displacement per frame of the moving bodies, as a fraction of the median radius.
    float speed = 0.05f;
    SpeedDistribution speeds = SpeedDistribution::kMaxwellBoltzmann;
    // This share of the non-static bodies at rest (exactly round(share x count) of them).
    float resting = 0.0f;
};

// "maxwell-boltzmann" or "equal", as the bench's --speeds names them; nullopt otherwise.
std::optional<SpeedDistribution> speed_distribution(std::string_view name);

// The median of the chi distribution with D degrees of freedom: the median speed of a
// velocity whose D components are standard normal.
template <int D>
float chi_median();

template <int D>
class BallisticMotion {
public:
    BallisticMotion(Scene<D> scene, const MotionSettings& motion, std::uint64_t seed);
    // Maxwell-Boltzmann speeds with median `speed_fraction` x the median radius, none resting.
    BallisticMotion(Scene<D> scene, float speed_fraction, std::uint64_t seed)
        : BallisticMotion(std::move(scene), MotionSettings{.speed = speed_fraction}, seed) {}

    // Moves every body with a velocity one frame and recomputes its box. The others are not
    // touched, as a game integrates only its awake bodies: a mostly-still world's frame
    // leaves the caches as a game's would.
    void advance();
    // Puts body `id` at `pos` (its velocity kept): a body removed and another added in its
    // place, as the bench's churn does.
    void place(BodyId id, const Vec<D>& pos) {
        bodies_.pos[id] = pos;
        boxes_[id] = Aabb<D>::around(pos, bodies_.radius[id]);
    }

    const std::vector<Aabb<D>>& boxes() const { return boxes_; }
    const std::vector<std::uint8_t>& is_static() const { return bodies_.is_static; }
    const Bodies<D>& bodies() const { return bodies_; }
    const Aabb<D>& bounds() const { return bounds_; }
    std::size_t size() const { return bodies_.size(); }

private:
    void compute_boxes();

    Aabb<D> bounds_;
    Bodies<D> bodies_;
    std::vector<Aabb<D>> boxes_;
    std::vector<BodyId> moving_;  // the bodies with a velocity (a bounce only flips it)
};

}  // namespace collide
