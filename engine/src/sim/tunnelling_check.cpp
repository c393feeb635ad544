#include "collide/tunnelling_check.hpp"

#include <algorithm>
#include <cassert>

namespace collide {

template <int D>
TunnellingCheck<D>::TunnellingCheck(std::unique_ptr<BroadPhase<D>> path_sweep)
    : path_sweep_(std::move(path_sweep)) {
    assert(path_sweep_);
}

// A pair tunnelled if during the step their paths came closer than the sum of the radii
// (or than they began, for bodies already touching) by more than the slop, and the world has
// no contact for it.
template <int D>
void TunnellingCheck<D>::observe(const World<D>& world) {
    const Bodies<D>& bodies = world.bodies();
    const std::size_t n = bodies.size();
    const auto& pos = bodies.pos;
    const auto& r = bodies.radius;
    const std::span<const Vec<D>> start_pos = world.start_positions();
    const std::vector<Contact<D>>& contacts = world.contacts();
    assert(start_pos.size() == n);
    path_boxes_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        path_boxes_[i] = Aabb<D>::around(start_pos[i], r[i]);
        path_boxes_[i].grow(Aabb<D>::around(pos[i], r[i]));
    }
    path_sweep_->update(path_boxes_, bodies.is_static, path_pairs_);
    std::uint64_t count = 0;
    for (const Pair& p : path_pairs_) {
        // Bounding spheres say nothing about implicit bodies passing through each other.
        if (bodies.is_implicit(p.a) || bodies.is_implicit(p.b)) continue;
        // How close they came against where they began (or the sum of the radii, for bodies
        // that began apart), beyond the slop that resting contacts are allowed.
        const float start = glm::length(start_pos[p.b] - start_pos[p.a]);
        const float limit =
            std::min(start, r[p.a] + r[p.b]) - kImpactSlop * std::min(r[p.a], r[p.b]);
        if (closest_approach<D>(start_pos[p.a], pos[p.a], start_pos[p.b], pos[p.b]) >= limit)
            continue;
        const auto it = std::lower_bound(contacts.begin(), contacts.end(), p,
                                         [](const Contact<D>& c, const Pair& q) {
                                             return Pair{c.a, c.b} < q;
                                         });
        if (it == contacts.end() || it->a != p.a || it->b != p.b) ++count;
    }
    count_.last_step = count;
    count_.total += count;
}

template class TunnellingCheck<2>;
template class TunnellingCheck<3>;

}  // namespace collide
