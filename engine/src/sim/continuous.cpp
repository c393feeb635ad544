#include "collide/continuous.hpp"

#include <algorithm>

namespace collide {

template <int D>
void sweep_boxes(std::span<const Vec<D>> start_pos, std::span<const float> radius,
                 std::span<Aabb<D>> boxes) {
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        boxes[i].grow(Aabb<D>::around(start_pos[i], radius[i]));
    }
}

// Each body moved in a straight line from start_pos to pos this step. A pair whose paths
// touch before the end stops both bodies where they first touch; stopping one body shortens
// its path and can bring on an earlier touch with another, so this repeats until no path
// changes. Every path stays inside the body's swept box, so the broad phase's pairs are
// still the only candidates.
template <int D>
void ContinuousCollision<D>::stop_at_impacts(std::span<const Vec<D>> start_pos,
                                             std::span<const Pair> pairs, Bodies<D>& bodies) {
    auto& pos = bodies.pos;
    const auto& r = bodies.radius;
    impact_pairs_.clear();
    constexpr int kMaxRounds = 16;
    for (int round = 0; round < kMaxRounds; ++round) {
        stop_at_.assign(bodies.size(), 1.0f);
        bool stopped = false;
        for (const Pair& p : pairs) {
            if (bodies.is_implicit(p.a) || bodies.is_implicit(p.b)) {
                // Bounding spheres: conservative. Once they overlap, the implicit test decides.
                const float reach = r[p.a] + r[p.b];
                const Vec<D> d = start_pos[p.b] - start_pos[p.a];
                if (glm::dot(d, d) <= reach * reach) continue;
            }
            const std::optional<float> t = time_of_impact<D>(start_pos[p.a], pos[p.a], r[p.a],
                                                             start_pos[p.b], pos[p.b], r[p.b]);
            if (!t) continue;
            impact_pairs_.push_back(p);
            // Touching as they arrive (within rounding, which a shortened path leaves).
            if (*t >= 1.0f - 1e-4f) continue;
            stop_at_[p.a] = std::min(stop_at_[p.a], *t);
            stop_at_[p.b] = std::min(stop_at_[p.b], *t);
            stopped = true;
        }
        if (!stopped) break;
        for (std::size_t i = 0; i < pos.size(); ++i) {
            if (stop_at_[i] < 1.0f) pos[i] = start_pos[i] + stop_at_[i] * (pos[i] - start_pos[i]);
        }
    }
    std::sort(impact_pairs_.begin(), impact_pairs_.end());
    impact_pairs_.erase(std::unique(impact_pairs_.begin(), impact_pairs_.end()),
                        impact_pairs_.end());
}

template <int D>
void ContinuousCollision<D>::clear() {
    impact_pairs_.clear();
}

// Bodies stopped at their first touch meet at exactly the sum of the radii, where rounding
// may leave a hair's gap: they get a contact of zero depth all the same.
template <int D>
void ContinuousCollision<D>::add_impact_contacts(const Bodies<D>& bodies,
                                                 std::vector<Contact<D>>& contacts) const {
    const std::size_t found = contacts.size();
    std::size_t next = 0;
    for (const Pair& p : impact_pairs_) {
        // An implicit pair's bounding spheres touching is no contact of the bodies.
        if (bodies.is_implicit(p.a) || bodies.is_implicit(p.b)) continue;
        while (next < found && Pair{contacts[next].a, contacts[next].b} < p) ++next;
        if (next < found && contacts[next].a == p.a && contacts[next].b == p.b) continue;
        const Vec<D> d = bodies.pos[p.b] - bodies.pos[p.a];
        const float len = glm::length(d);
        if (len <= 0.0f) continue;
        contacts.push_back({p.a, p.b, d / len, 0.0f});
    }
    if (contacts.size() == found) return;
    std::sort(contacts.begin(), contacts.end(), [](const Contact<D>& x, const Contact<D>& y) {
        return x.a != y.a ? x.a < y.a : x.b < y.b;
    });
}

template <int D>
std::optional<PredictedImpact<D>> predict_impact(const Bodies<D>& bodies, BodyId id,
                                                 float horizon) {
    const auto& pos = bodies.pos;
    const auto& vel = bodies.vel;
    const auto& r = bodies.radius;
    if (id >= bodies.size() || !(horizon > 0.0f)) return std::nullopt;
    std::optional<PredictedImpact<D>> best;
    float best_t = 2.0f;
    for (BodyId j = 0; j < bodies.size(); ++j) {
        if (j == id) continue;
        const std::optional<float> t = time_of_impact<D>(
            pos[id], pos[id] + vel[id] * horizon, r[id], pos[j], pos[j] + vel[j] * horizon, r[j]);
        if (!t || *t >= best_t) continue;
        best_t = *t;
        PredictedImpact<D> hit;
        hit.other = j;
        hit.seconds = *t * horizon;
        hit.at = pos[id] + vel[id] * hit.seconds;
        hit.other_at = pos[j] + vel[j] * hit.seconds;
        const float reach = r[id] + r[j];
        hit.point = reach > 0.0f ? hit.at + (hit.other_at - hit.at) * (r[id] / reach) : hit.at;
        best = hit;
    }
    return best;
}

template void sweep_boxes<2>(std::span<const Vec<2>>, std::span<const float>, std::span<Aabb<2>>);
template void sweep_boxes<3>(std::span<const Vec<3>>, std::span<const float>, std::span<Aabb<3>>);
template std::optional<PredictedImpact<2>> predict_impact<2>(const Bodies<2>&, BodyId, float);
template std::optional<PredictedImpact<3>> predict_impact<3>(const Bodies<3>&, BodyId, float);
template class ContinuousCollision<2>;
template class ContinuousCollision<3>;

}  // namespace collide
