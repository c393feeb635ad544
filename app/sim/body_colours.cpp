#include "sim/body_colours.hpp"

#include <algorithm>
#include <cmath>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "collide/debug_draw.hpp"
#include "sim/dim_cast.hpp"

namespace collidoscope {
namespace {

// A stable, well-mixed hash so neighbouring ids get unrelated hues.
std::uint32_t mix_bits(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

collide::Color hue_color(float h) {
    // HSV with fixed saturation and value; h in [0, 1).
    constexpr float kS = 0.6f;
    constexpr float kV = 0.95f;
    float f = h * 6.0f;
    int sector = static_cast<int>(f) % 6;
    float frac = f - std::floor(f);
    float p = kV * (1 - kS), q = kV * (1 - kS * frac), t = kV * (1 - kS * (1 - frac));
    switch (sector) {
        case 0: return collide::rgba(kV, t, p);
        case 1: return collide::rgba(q, kV, p);
        case 2: return collide::rgba(p, kV, t);
        case 3: return collide::rgba(p, q, kV);
        case 4: return collide::rgba(t, p, kV);
        default: return collide::rgba(kV, p, q);
    }
}

// A new BodyArrays::shape_id for each world, 2D or 3D.
std::uint64_t next_shape_id() {
    static std::uint64_t worlds = 0;
    return ++worlds;
}

// Light from above, a little from the front and the right; an ambient floor keeps the far
// side readable.
collide::Color shade(collide::Color c, const glm::vec3& normal) {
    static const glm::vec3 kLight = glm::normalize(glm::vec3(0.4f, 0.8f, 0.45f));
    const float k = 0.35f + 0.65f * std::max(glm::dot(normal, kLight), 0.0f);
    const auto channel = [&](int shift) {
        return static_cast<collide::Color>(
                   std::min(255.0f, static_cast<float>((c >> shift) & 0xFF) * k))
               << shift;
    };
    return 0xFF000000u | channel(16) | channel(8) | channel(0);
}

}  // namespace

CostScale common_scale(std::span<const CostScale> scales) {
    CostScale out;
    for (const CostScale& s : scales) {
        if (!s.attributed) continue;
        out.low = out.attributed ? std::min(out.low, s.low) : s.low;
        out.peak = std::max(out.peak, s.peak);
        out.attributed = true;
    }
    return out;
}

template <int D>
BodyColours<D>::BodyColours() {
    for (std::size_t i = 0; i < speed_lut_.size(); ++i) {
        speed_lut_[i] =
            collide::ramp_color(static_cast<float>(i) / static_cast<float>(speed_lut_.size() - 1));
    }
}

template <int D>
float BodyColours<D>::speed_scale(const collide::Bodies<D>& b) {
    // A strided sample: cheap at a million bodies, and with the 95th percentile one very
    // fast body does not turn everything else blue.
    constexpr std::size_t kSample = 4096;
    const std::size_t stride = std::max<std::size_t>(1, b.size() / kSample);
    speed_sample_.clear();
    for (std::size_t i = 0; i < b.size(); i += stride) {
        if (!b.is_static[i]) speed_sample_.push_back(glm::length(b.vel[i]));
    }
    return smoothed_speed_scale(speed_sample_);
}

template <int D>
float BodyColours<D>::smoothed_speed_scale(std::vector<float>& sample) {
    if (sample.empty()) return 1.0f;
    auto nth = sample.begin() + static_cast<std::ptrdiff_t>(sample.size() * 95 / 100);
    std::nth_element(sample.begin(), nth, sample.end());
    const float target = std::max(*nth, 1e-6f);
    // Rises at once (so nothing saturates for long) but falls slowly, so the colours do not
    // flicker with the sample and a pile coming to rest fades to blue instead of rescaling.
    if (speed_scale_ <= 0.0f || target > speed_scale_) {
        speed_scale_ = target;
    } else {
        speed_scale_ += 0.02f * (target - speed_scale_);
    }
    return speed_scale_;
}

template <int D>
void BodyColours<D>::start_gpu_scale(const collide::Bodies<D>& bodies) {
    gpu_speed_scale_ = speed_scale(bodies);
    scale_step_ = 0;
}

template <int D>
void BodyColours<D>::follow_gpu_speeds(std::uint64_t step, const std::vector<float>& speeds) {
    if (step <= scale_step_ || speeds.empty()) return;  // no new sample: the colours stay
    scale_step_ = step;
    speed_sample_ = speeds;
    gpu_speed_scale_ = smoothed_speed_scale(speed_sample_);
}

template <int D>
void BodyColours<D>::track_costs(collide::World<D>& world, bool on) {
    if (on == tracking_costs_) return;
    tracking_costs_ = on;
    world.broad_phase()->set_cost_tracking(on);
    if (on) world.refresh_pairs();
}

template <int D>
CostScale BodyColours<D>::colour_by_cost(const collide::World<D>& world,
                                         const collide::BroadPhase<D>& algorithm,
                                         std::vector<Instance>& out, const CostScale& common) {
    const auto& b = world.bodies();
    costs_.resize(b.size());
    CostScale scale;
    scale.attributed = algorithm.body_costs(costs_);
    if (out.size() != b.size()) return scale;
    if (scale.attributed && !costs_.empty()) {
        sorted_costs_.assign(costs_.begin(), costs_.end());
        const auto low = sorted_costs_.begin() + sorted_costs_.size() / 20;
        std::nth_element(sorted_costs_.begin(), low, sorted_costs_.end());
        scale.low = std::max<std::uint32_t>(1, *low);
        scale.peak = *std::max_element(costs_.begin(), costs_.end());
    }
    const CostScale& shown = common.attributed ? common : scale;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (b.is_static[i]) continue;
        out[i].color = scale.attributed
                           ? cost_color(cost_position(costs_[i], shown.low, shown.peak))
                           : kNoCostColor;
    }
    return scale;
}

template <int D>
std::optional<BodyArrays> BodyColours<D>::arrays(collide::World<D>& world, ColorMode mode,
                                                 float max_radius) {
    if (mode == ColorMode::kCost || world.has_implicit()) return std::nullopt;
    track_costs(world, false);
    const auto& b = world.bodies();
    if (shape_id_ == 0) shape_id_ = next_shape_id();
    if (inv_mass_.size() != b.size() || mass_revision_ != world.flags_revision()) {
        mass_revision_ = world.flags_revision();
        inv_mass_.resize(b.size());
        for (collide::BodyId i = 0; i < b.size(); ++i)
            inv_mass_[i] = !world.present(i) ? -2.0f
                           : b.is_static[i]  ? 0.0f
                           : world.asleep(i) ? -1.0f
                                             : 1.0f;
    }
    const auto floats = [](const auto& v) {
        return std::span<const float>(reinterpret_cast<const float*>(v.data()),
                                      v.size() * sizeof(v[0]) / sizeof(float));
    };
    return BodyArrays{floats(b.pos),
                      floats(b.vel),
                      b.radius,
                      inv_mass_,
                      D,
                      mode == ColorMode::kSpeed ? speed_scale(b) : 1.0f,
                      max_radius,
                      shape_id_,
                      world.revision(),
                      mass_revision_};
}

template <int D>
CostScale BodyColours<D>::fill_instances(collide::World<D>& world, ColorMode mode,
                                         std::vector<Instance>& out) {
    const auto& b = world.bodies();
    out.resize(b.size());
    track_costs(world, mode == ColorMode::kCost);
    const float inv_scale = mode == ColorMode::kSpeed ? 1.0f / speed_scale(b) : 0.0f;
    const float lut_max = static_cast<float>(speed_lut_.size() - 1);
    auto fill = [&](const tbb::blocked_range<std::size_t>& range) {
        for (std::size_t i = range.begin(); i != range.end(); ++i) {
            collide::Color color;
            if (b.is_static[i]) {
                color = kStaticColor;
            } else if (mode == ColorMode::kSpeed) {
                float t = glm::length(b.vel[i]) * inv_scale;
                if (!(t < 1.0f)) t = 1.0f;  // also catches NaN, which must not index the table
                color = speed_lut_[static_cast<std::size_t>(t * lut_max + 0.5f)];
            } else {
                color = hue_color(static_cast<float>(mix_bits(static_cast<std::uint32_t>(i)) >> 8) /
                                  16777216.0f);
            }
            if (world.asleep(static_cast<collide::BodyId>(i))) color = dimmed(color);
            // An empty slot's radius is < 0: the body shaders draw nothing for it.
            out[i] = {to3<D>(b.pos[i]), world.present(collide::BodyId(i)) ? b.radius[i] : -1.0f,
                      color};
        }
    };
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, b.size(), 16384), fill);
    const CostScale costs =
        mode == ColorMode::kCost ? colour_by_cost(world, *world.broad_phase(), out) : CostScale{};
    shape_colors_.clear();
    if (!world.has_implicit()) return costs;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (b.is_implicit(i)) {
            shape_colors_.push_back({static_cast<collide::BodyId>(i), out[i].color});
        } else {
            out[kept++] = out[i];
        }
    }
    out.resize(kept);
    return costs;
}

template <int D>
void BodyColours<D>::fill_shapes(const collide::Bodies<D>& b, ShapeGeometry& out) const {
    out.lines.clear();
    out.triangles.clear();
    for (const auto& [id, color] : shape_colors_) {
        if (id >= b.size() || !b.is_implicit(id)) continue;
        const collide::ImplicitMesh<D>& mesh = b.model_of(id)->mesh;
        const collide::Pose<D> pose = b.pose(id);
        if constexpr (D == 2) {
            for (std::size_t k = 0; k + 1 < mesh.indices.size(); k += 2) {
                out.lines.push_back(
                    {to3<D>(collide::to_world<D>(pose, mesh.vertices[mesh.indices[k]])), color});
                out.lines.push_back(
                    {to3<D>(collide::to_world<D>(pose, mesh.vertices[mesh.indices[k + 1]])),
                     color});
            }
        } else {
            for (const std::uint32_t v : mesh.indices) {
                const glm::vec3 n = collide::direction_to_world<D>(pose, mesh.normals[v]);
                out.triangles.push_back(
                    {collide::to_world<D>(pose, mesh.vertices[v]), shade(color, n)});
            }
        }
    }
}

template class BodyColours<2>;
template class BodyColours<3>;

}  // namespace collidoscope
