#include "sim/body_pick.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace collidoscope {

template <int D>
collide::BodyId pick_body(const collide::World<D>& world, std::span<const collide::Vec<D>> pos,
                          const glm::vec3& origin, const glm::vec3& dir, float min_radius) {
    using collide::BodyId;
    const auto& b = world.bodies();
    BodyId best = collide::kNoBody;
    float best_score = std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (!world.present(BodyId(i))) continue;
        const float r = std::max(b.radius[i], min_radius);
        if constexpr (D == 2) {
            // The most central hit, so a small body on top of a large one can be picked.
            const glm::vec2 d = pos[i] - glm::vec2(origin);
            const float d2 = glm::dot(d, d);
            if (d2 > r * r) continue;
            const float score = d2 / (r * r);
            if (score < best_score) best_score = score, best = static_cast<BodyId>(i);
        } else {
            const glm::vec3 oc = pos[i] - origin;
            const float along = glm::dot(oc, dir);
            const float h = along * along - (glm::dot(oc, oc) - r * r);
            if (h < 0.0f) continue;
            const float root = std::sqrt(h);
            float t = along - root;
            if (t < 0.0f) t = along + root;  // the eye is inside this sphere
            if (t < 0.0f || t >= best_score) continue;
            best_score = t;
            best = static_cast<BodyId>(i);
        }
    }
    return best;
}

template collide::BodyId pick_body<2>(const collide::World<2>&, std::span<const collide::Vec<2>>,
                                      const glm::vec3&, const glm::vec3&, float);
template collide::BodyId pick_body<3>(const collide::World<3>&, std::span<const collide::Vec<3>>,
                                      const glm::vec3&, const glm::vec3&, float);

}  // namespace collidoscope
