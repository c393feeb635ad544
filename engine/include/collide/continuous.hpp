// Continuous collision for World<D> (WorldSettings::swept): each body's box covers its path
// over the step, and a time-of-impact narrow phase stops bodies where they first touch, so
// fast small bodies cannot pass through others. Also the prediction of a body's next touch
// that the app draws. Paths are straight lines from the start of the step to its end, and
// bodies are their bounding spheres (conservative for implicit bodies).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "collide/bodies.hpp"
#include "collide/narrowphase.hpp"

namespace collide {

// Where a body will first touch another if both keep their velocities (walls ignored).
template <int D>
struct PredictedImpact {
    BodyId other = kNoBody;
    float seconds = 0;  // from now
    Vec<D> at{0.0f};    // the body's centre then
    Vec<D> other_at{0.0f};
    Vec<D> point{0.0f};  // the touching point
};

// Grows each body's box by its sphere at the start of the step, so it covers the path.
template <int D>
void sweep_boxes(std::span<const Vec<D>> start_pos, std::span<const float> radius,
                 std::span<Aabb<D>> boxes);

// The first touch of body `id` within `horizon` seconds, by a linear scan of the bodies.
template <int D>
std::optional<PredictedImpact<D>> predict_impact(const Bodies<D>& bodies, BodyId id, float horizon);

template <int D>
class ContinuousCollision {
public:
    // Stops bodies whose paths from `start_pos` to their positions touch among `pairs`
    // where they first touch; remembers those pairs.
    void stop_at_impacts(std::span<const Vec<D>> start_pos, std::span<const Pair> pairs,
                         Bodies<D>& bodies);
    // Forgets the last step's impacts (a step that is not swept).
    void clear();
    // Adds a contact of zero depth for each impact pair the narrow phase did not find, so
    // the solver turns them around; `contacts` stay sorted by (a, b).
    void add_impact_contacts(const Bodies<D>& bodies, std::vector<Contact<D>>& contacts) const;
    // Pairs that met at a time of impact in the last step.
    std::size_t impacts() const { return impact_pairs_.size(); }
    const std::vector<Pair>& impact_pairs() const { return impact_pairs_; }
    // Puts back the impact pairs of a restored step (World::restore); the next step makes
    // its own.
    void set_impact_pairs(std::vector<Pair> pairs) { impact_pairs_ = std::move(pairs); }

private:
    std::vector<float> stop_at_;      // per body, the fraction of its path it keeps
    std::vector<Pair> impact_pairs_;  // pairs that stopped a body at their first touch
};

}  // namespace collide
