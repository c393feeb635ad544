// The colours the bodies are drawn in: by speed (on a scale that follows the world's
// speeds), by id, or by what each body cost the broad phase (the heat map); static bodies
// grey, sleeping ones dimmed, implicit bodies' surfaces shaded. Or, where the body shaders
// colour the bodies themselves, the arrays and flags they read.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "collide/broadphase.hpp"
#include "collide/world.hpp"
#include "common/geometry.hpp"
#include "common/palette.hpp"

namespace collidoscope {

// The cost heat map's scale this frame: whether the algorithm attributed its work to
// bodies (BroadPhase::body_costs), and the span of the log scale: from the 5th percentile
// of the costs (at least 1, so a few idle bodies do not flatten the rest) to the largest.
struct CostScale {
    bool attributed = false;
    std::uint32_t low = 1;
    std::uint32_t peak = 0;
};

// One scale over several (the compare panes'): the lowest low and the highest peak, so the
// same colour means the same cost in every pane. Not attributed if none of them is.
CostScale common_scale(std::span<const CostScale> scales);

// The colouring of one CPU world's bodies, frame after frame: it keeps the smoothed speed
// scale, the cost buffers and the colours the implicit surfaces take from fill_instances().
template <int D>
class BodyColours {
public:
    BodyColours();

    // The CPU world's arrays for the body shaders, which colour by speed or id themselves;
    // nothing for cost colours or implicit bodies. `max_radius` is the largest radius.
    std::optional<BodyArrays> arrays(collide::World<D>& world, ColorMode mode, float max_radius);
    // One instance per body (SimWorld::fill_instances); returns the cost colours' scale.
    CostScale fill_instances(collide::World<D>& world, ColorMode mode, std::vector<Instance>& out);
    // Recolours `out` (one instance per body) by `algorithm`'s costs; leaves it as it is
    // when implicit bodies are left out of it (the indices no longer are body ids).
    // On `common` where it is attributed, else on the costs' own scale; returns their own.
    CostScale colour_by_cost(const collide::World<D>& world,
                             const collide::BroadPhase<D>& algorithm, std::vector<Instance>& out,
                             const CostScale& common = {});
    // The implicit bodies' surfaces, in the colours the last fill_instances() chose.
    void fill_shapes(const collide::Bodies<D>& bodies, ShapeGeometry& out) const;
    // Whether the broad phase counts its costs: only while cost colours are asked for.
    bool tracking_costs() const { return tracking_costs_; }

    // The GPU world's speed colours: the CPU's scale to start with, then the 95th percentile
    // of each new sample of speeds its readbacks bring (`step`: the sample's step).
    void start_gpu_scale(const collide::Bodies<D>& bodies);
    void follow_gpu_speeds(std::uint64_t step, const std::vector<float>& speeds);
    float gpu_speed_scale() const { return gpu_speed_scale_; }

private:
    // The 95th percentile of a strided sample of the bodies' speeds, smoothed over frames.
    float speed_scale(const collide::Bodies<D>& bodies);
    // The 95th percentile of `sample` (reordered), smoothed over frames.
    float smoothed_speed_scale(std::vector<float>& sample);
    // Switches the broad phase's cost counters on or off; switched on, it re-runs the
    // broad phase on this frame so the heat map shows at once, also when paused.
    void track_costs(collide::World<D>& world, bool on);

    std::array<collide::Color, 256> speed_lut_{};
    std::vector<float> speed_sample_;
    float speed_scale_ = 0.0f;  // smoothed 95th-percentile speed; 0 = not yet known
    float gpu_speed_scale_ = 1.0f;
    std::uint64_t scale_step_ = 0;  // the step of the GPU's speed sample last used
    bool tracking_costs_ = false;
    std::vector<std::uint32_t> costs_, sorted_costs_;
    std::vector<std::pair<collide::BodyId, collide::Color>> shape_colors_;  // implicit bodies
    // For arrays(): 0 static, -1 asleep, -2 no body (not drawn), 1 moving.
    std::vector<float> inv_mass_;
    std::uint64_t mass_revision_ = 0;  // the world's flags_revision() inv_mass_ was made at
    std::uint64_t shape_id_ = 0;       // arrays()' shape_id, this world's own
};

}  // namespace collidoscope
