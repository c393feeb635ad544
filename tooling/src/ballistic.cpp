#include "tooling/ballistic.hpp"

#include <algorithm>

#include "tooling/random.hpp"

namespace collide {

namespace {

float median(std::vector<float> v) {
    if (v.empty()) return 1.0f;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

}  // namespace

template <int D>
BallisticMotion<D>::BallisticMotion(Scene<D> scene, float speed_fraction, std::uint64_t seed)
    : bounds_(scene.settings.bounds), bodies_(std::move(scene.bodies)) {
    Rng rng(seed ^ 0xB0A710u);
    const float step = speed_fraction * median(bodies_.radius);
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        bodies_.vel[i] = bodies_.is_static[i] ? Vec<D>(0.0f) : rng.direction<D>() * step;
    }
    boxes_.resize(bodies_.size());
    compute_boxes();
}

template <int D>
void BallisticMotion<D>::advance() {
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        Vec<D>& p = bodies_.pos[i];
        Vec<D>& v = bodies_.vel[i];
        p += v;
        for (int k = 0; k < D; ++k) {
            if ((p[k] < bounds_.lo[k] && v[k] < 0) || (p[k] > bounds_.hi[k] && v[k] > 0))
                v[k] = -v[k];
        }
    }
    compute_boxes();
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
