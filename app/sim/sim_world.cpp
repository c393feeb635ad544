#include "sim/sim_world.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "cli/launch_options.hpp"
#include "collide/gpu/catalog.hpp"
#include "collide/gpu/gpu_world.hpp"
#include "collide/registry.hpp"
#include "collide/tunnelling_check.hpp"
#include "sim/dim_cast.hpp"
#include "sim/overlay_builder.hpp"
#include "tooling/scene_names.hpp"
#include "tooling/scenes.hpp"

namespace collidoscope {
namespace {

using collide::BodyId;
using collide::kNoBody;

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

template <int D>
std::unique_ptr<collide::BroadPhase<D>> available_broadphase(std::string_view name) {
    auto bp = collide::make_any_broadphase<D>(name);
    if (!bp) {
        throw collide::InputError("broad phase '" + std::string(name) + "' is not available in " +
                                  std::to_string(D) + "D");
    }
    return bp;
}

// A new BodyArrays::shape_id for each world, 2D or 3D.
std::uint64_t next_shape_id() {
    static std::uint64_t worlds = 0;
    return ++worlds;
}

template <int D>
struct SnapshotOf final : WorldSnapshot {
    typename collide::World<D>::Snapshot world;
    collide::TunnellingCount tunnelling;
    std::uint64_t step() const override { return world.steps; }
    std::size_t bytes() const override { return sizeof(*this) + world.bytes(); }
};

// FNV-1a, 64 bits, over raw bytes: the types hashed have no padding.
class Fnv1a {
public:
    void add(const void* data, std::size_t size) {
        const auto* bytes = static_cast<const unsigned char*>(data);
        for (std::size_t i = 0; i < size; ++i) hash_ = (hash_ ^ bytes[i]) * 0x100000001b3ULL;
    }
    template <typename T>
    void add(const std::vector<T>& v) {
        add(v.data(), v.size() * sizeof(T));
    }
    std::uint64_t value() const { return hash_; }

private:
    std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

template <int D>
class WorldAdapter final : public SimWorld {
public:
    WorldAdapter(collide::Scene<D> scene, std::string_view broadphase)
        : world_(scene.settings, std::move(scene.bodies), available_broadphase<D>(broadphase)),
          recycled_share_(scene.recycled_share) {
        collide::Vec<D> g = world_.settings().gravity;
        float g_len = glm::length(g);
        gravity_dir_ = collide::Vec<D>(0.0f);
        gravity_dir_[1] = -1.0f;
        if (g_len > 0.0f) gravity_dir_ = g / g_len;
        for (std::size_t i = 0; i < speed_lut_.size(); ++i) {
            speed_lut_[i] = collide::ramp_color(static_cast<float>(i) /
                                                static_cast<float>(speed_lut_.size() - 1));
        }
        const auto& radius = world_.bodies().radius;
        if (!radius.empty()) max_radius_ = *std::max_element(radius.begin(), radius.end());
    }

    int dim() const override { return D; }
    std::size_t body_count() const override { return world_.bodies().size(); }
    Box3 bounds() const override { return to3<D>(world_.settings().bounds); }
    float recycled_share() const override { return recycled_share_; }

    void step(BodyId watched) override;
    const collide::StepTimings& timings() const override {
        return gpu_ ? gpu_timings_ : world_.timings();
    }
    std::optional<BodyId> add_body(const glm::vec3& pos, const glm::vec3& vel,
                                   float radius) override {
        if (gpu_) return std::nullopt;
        max_radius_ = std::max(max_radius_, radius);
        bodies_refusal_.reset();
        return world_.add_body(from3<D>(pos), from3<D>(vel), radius).id;
    }
    bool remove_body(BodyId id) override {
        if (gpu_ || !world_.present(id) || world_.bodies().is_implicit(id)) return false;
        world_.remove_body(world_.handle(id));
        return true;
    }
    bool present(BodyId id) const override { return world_.present(id); }

    WorldCounts counts() const override {
        const std::size_t fixed = world_.static_count();
        if (gpu_) {  // it does not sleep, and has no pair budget
            return {world_.bodies().size() - fixed, 0, fixed, gpu_->latest().pairs,
                    gpu_->latest().contacts, 0};
        }
        return {world_.awake(),         world_.sleeping(),         fixed,
                world_.pairs().size(), world_.contacts().size(), world_.pairs_over_budget()};
    }

    bool set_broad_phase(std::string_view name) override {
        auto bp = collide::make_any_broadphase<D>(name);
        if (!bp) return false;
        // Build the new structure right away so its overlay and stats show even when paused
        // (at step 0 too: the boxes exist from the start); the pairs it reports are the ones
        // the world already has.
        bp->set_cost_tracking(tracking_costs_);
        const PresentBoxes present = present_boxes();
        bp->update(present.boxes, present.is_static, scratch_pairs_);
        world_.set_broad_phase(std::move(bp));
        query_trace_.clear();  // the old algorithm's; the next frame's query traces the new one
        return true;
    }
    collide::BroadPhaseStats broad_phase_stats() const override {
        if (!gpu_) return world_.broad_phase()->stats();
        collide::BroadPhaseStats s;
        s.candidate_tests = gpu_->latest().tests;
        s.device_ms = gpu_->latest().times.broad_ms;
        return s;
    }
    std::span<collide::Param> broad_phase_params() override {
        return world_.broad_phase()->params();
    }
    std::string broad_phase_status() const override {
        if (!gpu_) return world_.broad_phase()->status();
        return "GPU world on " + gpu_->context().renderer() +
               ": the whole step in compute shaders, its broad phase gpu-grid's kernels";
    }
    StructureKey structure_key() const override {
        if (gpu_) return {};
        return {world_.broad_phase()->layers(), world_.broad_phase()->legend()};
    }
    void query(const Box3& region, std::vector<BodyId>& out) override {
        out.clear();
        query_trace_.clear();
        if (gpu_ || world_.steps() == 0) return;  // nothing is built before the first update
        const collide::Aabb<D> box = from3<D>(region);
        world_.broad_phase()->query(box, out, &query_trace_);
    }
    std::uint64_t steps() const override { return gpu_ ? gpu_->steps() : world_.steps(); }

    Physics physics() const override {
        const auto& s = world_.settings();
        return {s.restitution, glm::length(s.gravity), s.dt,         s.swept,
                s.count_tunnelling, s.sleep,   s.sleep_speed,         s.sleep_time};
    }
    void race(bool live, RaceReport& out) override {
        if (gpu_) return;  // the CPU world's boxes are not this step's
        const PresentBoxes present = present_boxes();
        race_.run(present.boxes, present.is_static, world_.steps(), live, out);
    }
    ContinuousFacts continuous_facts() const override {
        return {world_.impacts(), tunnelling_.count().last_step, tunnelling_.count().total};
    }
    void set_physics(const Physics& p) override {
        auto& s = world_.settings();
        s.restitution = p.restitution;
        s.gravity = gravity_dir_ * p.gravity;
        s.dt = p.dt;
        s.swept = p.swept;
        s.count_tunnelling = p.count_tunnelling;
        s.sleep = p.sleep;
        s.sleep_speed = p.sleep_speed;
        s.sleep_time = p.sleep_time;
        // Swept steps and the tunnelling check are the CPU world's: it takes the bodies back.
        if (gpu_ && gpu_world_refusal()) set_gpu_world(false);
        if (gpu_) gpu_->set_settings(s);
    }

    std::unique_ptr<WorldSnapshot> snapshot(std::unique_ptr<WorldSnapshot> spare) const override {
        std::unique_ptr<SnapshotOf<D>> s(dynamic_cast<SnapshotOf<D>*>(spare.get()));
        if (s) {
            spare.release();
        } else {
            s = std::make_unique<SnapshotOf<D>>();
        }
        if (gpu_) {
            s->world = snapshot_from_gpu();
        } else {
            world_.snapshot_into(s->world);
        }
        s->tunnelling = tunnelling_.count();
        return s;
    }
    void restore(const WorldSnapshot& snapshot) override {
        const auto* s = dynamic_cast<const SnapshotOf<D>*>(&snapshot);
        if (!s || s->world.pos.size() != body_count()) return;
        world_.restore(s->world);
        tunnelling_.set_count(s->tunnelling);
        query_trace_.clear();  // the next frame's query traces the restored structure
        if (gpu_) {
            gpu_.reset();
            set_gpu_world(true);  // the restored bodies go up again
        }
    }
    std::size_t snapshot_bytes() const override {
        // Too big for any buffer: each would read every body back and stall the GPU.
        if (gpu_ && body_count() > kGpuRewindBodies) return std::numeric_limits<std::size_t>::max();
        const std::size_t per_body = 2 * sizeof(collide::Vec<D>) + sizeof(collide::Rotation<D>) +
                                     sizeof(collide::Spin<D>) + sizeof(collide::Aabb<D>);
        return sizeof(SnapshotOf<D>) + body_count() * per_body +
               world_.contacts().size() * sizeof(collide::Contact<D>);
    }
    std::uint64_t state_hash() const override {
        const typename collide::World<D>::Snapshot s =
            gpu_ ? snapshot_from_gpu() : world_.snapshot();
        Fnv1a h;
        h.add(s.pos);
        h.add(s.vel);
        h.add(s.rotation);
        h.add(s.spin);
        h.add(&s.steps, sizeof s.steps);
        h.add(s.warm_start.walls);
        h.add(s.warm_start.keys);
        h.add(s.warm_start.impulses);
        h.add(s.sleep.rest_time);  // who sleeps, and with whom, decides the steps to come
        h.add(s.sleep.island);
        h.add(s.sleep.next);
        const std::uint64_t tunnelled = tunnelling_.count().total;
        h.add(&tunnelled, sizeof tunnelled);
        return h.value();
    }

    BodyId pick(const glm::vec3& origin, const glm::vec3& dir, float min_radius) const override;
    glm::vec3 position(BodyId id) const override { return to3<D>(world_.bodies().pos[id]); }
    float radius(BodyId id) const override { return world_.bodies().radius[id]; }
    void move_body(BodyId id, const glm::vec3& pos, const glm::vec3& vel) override {
        world_.move_body(id, from3<D>(pos), from3<D>(vel));
        if (gpu_) gpu_->move_body(id, from3<D>(pos), world_.bodies().vel[id]);
    }
    void refresh_broad_phase() override {
        if (!gpu_) world_.refresh_pairs();
    }
    BodyInfo body_info(BodyId id, std::size_t max_partners) const override;
    CostScale fill_instances(ColorMode mode, std::vector<Instance>& out) override;
    BodyBuffers body_buffers(ColorMode mode) override;
    void fill_shapes(ShapeGeometry& out) const override;
    OverlayReport fill_overlays(const OverlayRequest& req, OverlayGeometry& out) const override {
        if (!gpu_) return build_overlays<D>(world_, req, query_trace_, out);
        // The CPU world's boxes, pairs and structure are not this step's: the outline and
        // the selection ring (the watched body follows the readbacks) only.
        OverlayRequest outline = req;
        outline.flags = {};
        outline.query.reset();
        outline.predicted_impact = false;
        return build_overlays<D>(world_, outline, collide::QueryTrace<D>{}, out);
    }
    std::optional<ComparePaneFacts> compare_pane(std::string_view algorithm,
                                                 const OverlayRequest& req, ColorMode mode,
                                                 std::vector<Instance>& bodies,
                                                 OverlayGeometry& out, bool once,
                                                 const CostScale& common) override;
    void save_scene(const std::string& path) const override {
        if (!gpu_) return collide::save_csv_scene<D>(path, world_.settings(), world_.bodies());
        collide::Bodies<D> bodies = world_.bodies();
        gpu_->download(bodies.pos, bodies.vel);
        collide::save_csv_scene<D>(path, world_.settings(), bodies);
    }

    std::optional<std::string> gpu_world_refusal() const override;
    std::optional<std::string> set_gpu_world(bool on) override;
    bool on_gpu() const override { return gpu_ != nullptr; }
    std::uint64_t gpu_overflowed_steps() const override {
        return gpu_ ? gpu_->overflowed_steps() : 0;
    }

private:
    // The boxes and static flags of the bodies present: the world's own arrays, or, where
    // bodies were removed, the present ones compacted (the race and the compare panes run
    // whole arrays, in which an empty slot has no place).
    struct PresentBoxes {
        std::span<const collide::Aabb<D>> boxes;
        std::span<const std::uint8_t> is_static;
        bool compacted = false;
    };
    PresentBoxes present_boxes() {
        const auto& b = world_.bodies();
        if (world_.present_count() == b.size()) return {world_.boxes(), b.is_static, false};
        present_boxes_.clear();
        present_static_.clear();
        for (BodyId i = 0; i < b.size(); ++i) {
            if (!world_.present(i)) continue;
            present_boxes_.push_back(world_.boxes()[i]);
            present_static_.push_back(b.is_static[i]);
        }
        return {present_boxes_, present_static_, true};
    }

    float speed_scale();
    // The 95th percentile of `sample` (reordered), smoothed over frames.
    float smoothed_speed_scale(std::vector<float>& sample);
    // Switches the broad phase's cost counters on or off; switched on, it re-runs the
    // broad phase on this frame so the heat map shows at once, also when paused.
    void track_costs(bool on);
    // Recolours `out` (one instance per body) by `algorithm`'s costs; leaves it as it is
    // when implicit bodies are left out of it (the indices no longer are body ids).
    // On `common` where it is attributed, else on the costs' own scale; returns their own.
    CostScale colour_by_cost(const collide::BroadPhase<D>& algorithm, std::vector<Instance>& out,
                             const CostScale& common = {});

    // The CPU world's snapshot with the GPU world's bodies and step count (reads them back).
    typename collide::World<D>::Snapshot snapshot_from_gpu() const;

    collide::World<D> world_;
    // The GPU world, while the bodies live there; world_ then keeps the settings, the
    // broad phase for the way back, and the watched body as the readbacks bring it.
    std::unique_ptr<collide::gpu::GpuWorld<D>> gpu_;
    collide::StepTimings gpu_timings_;
    float gpu_speed_scale_ = 1.0f;
    std::uint64_t scale_step_ = 0;  // the step of the speed sample last used
    std::vector<collide::Aabb<D>> present_boxes_;  // present_boxes()' compacted copies
    std::vector<std::uint8_t> present_static_;
    // For body_buffers(): 0 static, -1 asleep, -2 no body (not drawn), 1 moving.
    std::vector<float> inv_mass_;
    std::uint64_t mass_revision_ = 0;  // the world's flags_revision() inv_mass_ was made at
    std::uint64_t shape_id_ = 0;    // body_buffers()' shape_id, this world's own
    float recycled_share_ = 0.0f;
    float max_radius_ = 0.0f;       // radii never change: the largest, taken once
    mutable std::optional<std::optional<std::string>> bodies_refusal_;
    collide::TunnellingCheck<D> tunnelling_{collide::make_broadphase<D>("sort-and-sweep")};
    Race<D> race_;
    collide::Vec<D> gravity_dir_;
    collide::PairList scratch_pairs_;
    collide::QueryTrace<D> query_trace_;  // what the last query() visited, for the overlay
    std::array<collide::Color, 256> speed_lut_{};
    std::vector<float> speed_sample_;
    std::vector<std::pair<BodyId, collide::Color>> shape_colors_;  // implicit bodies
    float speed_scale_ = 0.0f;  // smoothed 95th-percentile speed; 0 = not yet known
    bool tracking_costs_ = false;
    std::vector<std::uint32_t> costs_, sorted_costs_;
};

template <int D>
BodyId WorldAdapter<D>::pick(const glm::vec3& origin, const glm::vec3& dir,
                             float min_radius) const {
    const auto& b = world_.bodies();
    // On the GPU world a click reads the positions back once (the one wait it allows).
    std::vector<collide::Vec<D>> gpu_pos, gpu_vel;
    if (gpu_) gpu_->download(gpu_pos, gpu_vel);
    const std::vector<collide::Vec<D>>& pos = gpu_ ? gpu_pos : b.pos;
    BodyId best = kNoBody;
    float best_score = std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (!world_.present(BodyId(i))) continue;
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

template <int D>
BodyInfo WorldAdapter<D>::body_info(BodyId id, std::size_t max_partners) const {
    BodyInfo info;
    const auto& b = world_.bodies();
    if (id >= b.size()) return info;
    info.id = id;
    info.pos = to3<D>(b.pos[id]);
    info.vel = to3<D>(b.vel[id]);
    info.radius = b.radius[id];
    info.is_static = b.is_static[id] != 0;
    info.asleep = world_.asleep(id);
    if (b.is_implicit(id)) {
        const collide::ImplicitModel<D>& m = *b.model_of(id);
        info.implicit = true;
        info.metaballs = m.shape.metaballs().size();
        info.vertices = m.mesh.vertices.size();
        info.signature_marked = m.signature.marked();
        info.signature_cells = m.signature.cells();
    }
    info.on_gpu = gpu_ != nullptr;
    if (gpu_) return info;  // its pairs and contacts stay on the GPU
    info.implicit_tests = world_.implicit_tests();
    info.density_evals = world_.implicit_counters().density_evals;
    info.density_evals_unsigned = world_.implicit_counters().points_tested;
    info.described = world_.broad_phase()->describe(id);
    std::vector<BodyId> touching;
    for (const auto& c : world_.contacts()) {
        if (c.a == id) touching.push_back(c.b);
        if (c.b == id) touching.push_back(c.a);
    }
    std::sort(touching.begin(), touching.end());
    info.contact_total = touching.size();
    for (const collide::Pair& p : world_.pairs()) {
        if (p.a != id && p.b != id) continue;
        ++info.partner_total;
        if (info.partners.size() >= max_partners) continue;
        BodyId other = p.a == id ? p.b : p.a;
        info.partners.push_back(other);
        info.partner_touches.push_back(std::binary_search(touching.begin(), touching.end(), other));
    }
    return info;
}

template <int D>
float WorldAdapter<D>::speed_scale() {
    // The 95th percentile of a strided sample: cheap at a million bodies, and one very fast
    // body does not turn everything else blue.
    const auto& b = world_.bodies();
    constexpr std::size_t kSample = 4096;
    const std::size_t stride = std::max<std::size_t>(1, b.size() / kSample);
    speed_sample_.clear();
    for (std::size_t i = 0; i < b.size(); i += stride) {
        if (!b.is_static[i]) speed_sample_.push_back(glm::length(b.vel[i]));
    }
    return smoothed_speed_scale(speed_sample_);
}

template <int D>
float WorldAdapter<D>::smoothed_speed_scale(std::vector<float>& sample) {
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
void WorldAdapter<D>::track_costs(bool on) {
    if (on == tracking_costs_) return;
    tracking_costs_ = on;
    world_.broad_phase()->set_cost_tracking(on);
    if (on) refresh_broad_phase();
}

template <int D>
CostScale WorldAdapter<D>::colour_by_cost(const collide::BroadPhase<D>& algorithm,
                                          std::vector<Instance>& out, const CostScale& common) {
    const auto& b = world_.bodies();
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
std::optional<ComparePaneFacts> WorldAdapter<D>::compare_pane(std::string_view algorithm,
                                                              const OverlayRequest& req,
                                                              ColorMode mode,
                                                              std::vector<Instance>& bodies,
                                                              OverlayGeometry& out, bool once,
                                                              const CostScale& common) {
    collide::BroadPhase<D>* pane = race_.algorithm(algorithm);
    if (!pane) return std::nullopt;
    pane->set_cost_tracking(mode == ColorMode::kCost);
    ComparePaneFacts facts;
    const PresentBoxes present = present_boxes();
    facts.run = *race_.run_one(algorithm, present.boxes, present.is_static, once);
    if (!facts.run.ran) {
        // Sat out over the budget: the bodies and the world, no stale structure, and no
        // heat it did not measure.
        OverlayRequest plain = req;
        plain.flags.structure = false;
        build_overlays<D>(world_, plain, collide::QueryTrace<D>{}, out);
        if (mode == ColorMode::kCost) {
            for (std::size_t i = 0; i < bodies.size(); ++i)
                if (i >= world_.bodies().size() || !world_.bodies().is_static[i])
                    bodies[i].color = kNoCostColor;
        }
        return facts;
    }
    // Costs are per body of the pane's array: with bodies removed, not the world's ids.
    if (mode == ColorMode::kCost && !present.compacted) {
        facts.costs = colour_by_cost(*pane, bodies, common);
        facts.shown = common.attributed && facts.costs.attributed ? common : facts.costs;
    }
    // The pane's algorithm never ran the viewer's query, so it has no trace to show.
    build_overlays<D>(world_, req, collide::QueryTrace<D>{}, out, pane);
    return facts;
}

template <int D>
BodyBuffers WorldAdapter<D>::body_buffers(ColorMode mode) {
    if (gpu_) {
        const collide::gpu::BodyBuffers b = gpu_->buffers();
        return GpuBodies{b.pos, b.vel, b.radius, b.mass, b.count, D, gpu_speed_scale_, max_radius_};
    }
    if (mode == ColorMode::kCost || world_.has_implicit()) return {};
    track_costs(false);
    const auto& b = world_.bodies();
    if (shape_id_ == 0) shape_id_ = next_shape_id();
    if (inv_mass_.size() != b.size() || mass_revision_ != world_.flags_revision()) {
        mass_revision_ = world_.flags_revision();
        inv_mass_.resize(b.size());
        for (BodyId i = 0; i < b.size(); ++i)
            inv_mass_[i] = !world_.present(i) ? -2.0f
                           : b.is_static[i]   ? 0.0f
                           : world_.asleep(i) ? -1.0f
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
                      mode == ColorMode::kSpeed ? speed_scale() : 1.0f,
                      max_radius_,
                      shape_id_,
                      world_.revision(),
                      mass_revision_};
}

template <int D>
CostScale WorldAdapter<D>::fill_instances(ColorMode mode, std::vector<Instance>& out) {
    if (gpu_) {  // drawn from the GPU world's buffers
        out.clear();
        return {};
    }
    const auto& b = world_.bodies();
    out.resize(b.size());
    track_costs(mode == ColorMode::kCost);
    const float inv_scale = mode == ColorMode::kSpeed ? 1.0f / speed_scale() : 0.0f;
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
            if (world_.asleep(static_cast<collide::BodyId>(i))) color = dimmed(color);
            // An empty slot's radius is < 0: the body shaders draw nothing for it.
            out[i] = {to3<D>(b.pos[i]), world_.present(BodyId(i)) ? b.radius[i] : -1.0f, color};
        }
    };
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, b.size(), 16384), fill);
    const CostScale costs =
        mode == ColorMode::kCost ? colour_by_cost(*world_.broad_phase(), out) : CostScale{};
    shape_colors_.clear();
    if (!world_.has_implicit()) return costs;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (b.is_implicit(i)) {
            shape_colors_.push_back({static_cast<BodyId>(i), out[i].color});
        } else {
            out[kept++] = out[i];
        }
    }
    out.resize(kept);
    return costs;
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

template <int D>
void WorldAdapter<D>::fill_shapes(ShapeGeometry& out) const {
    out.lines.clear();
    out.triangles.clear();
    const auto& b = world_.bodies();
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

template <int D>
void WorldAdapter<D>::step(BodyId watched) {
    if (!gpu_) {
        collide::step_counting_tunnelling(world_, tunnelling_);
        return;
    }
    gpu_->step(watched);
    const collide::gpu::GpuWorldReadback<D>& r = gpu_->readback();
    gpu_timings_.integrate_ms = r.times.integrate_ms;
    gpu_timings_.broad_ms = r.times.broad_ms;
    gpu_timings_.narrow_ms = r.times.narrow_ms;
    gpu_timings_.resolve_ms = r.times.resolve_ms;
    if (r.step > scale_step_ && !r.speeds.empty()) {  // a new sample: the colours follow it
        scale_step_ = r.step;
        speed_sample_ = r.speeds;
        gpu_speed_scale_ = smoothed_speed_scale(speed_sample_);
    }
    // The selection ring and the body panel follow the watched body's latest state.
    if (r.watched != kNoBody && r.watched == watched) world_.move_body(r.watched, r.pos, r.vel);
}

template <int D>
std::optional<std::string> WorldAdapter<D>::gpu_world_refusal() const {
    const auto& s = world_.settings();
    // The bodies never change kind: what they allow is asked once (it scans them all).
    if (!bodies_refusal_) {
        collide::WorldSettings<D> unswept = s;
        unswept.swept = false;
        bodies_refusal_ = collide::gpu::GpuWorld<D>::unsupported(unswept, world_.bodies());
    }
    if (*bodies_refusal_) return *bodies_refusal_;
    if (world_.present_count() != world_.bodies().size())
        return "bodies were removed here, and the GPU world takes every slot as a body";
    if (s.swept) return collide::gpu::GpuWorld<D>::unsupported(s, {});
    if (s.count_tunnelling) return "the tunnelling check watches the CPU world's steps only";
    // The GPU world needs the GPU broad phases' context.
    if (auto why = collide::gpu_unavailable_reason("gpu-grid")) return "no GPU: " + *why;
    const std::size_t n = world_.bodies().size();
    if (n > kMaxSoftwareGpuWorldBodies) {
        const auto context = collide::gpu::shared_context();
        if (context->software()) {
            char cost[160];
            std::snprintf(cost, sizeof cost,
                          ": a frame of %zu bodies would take about %.1f s (it takes at most %zu)",
                          n, static_cast<double>(n) * kSoftwareGpuWorldSecondsPerBody,
                          kMaxSoftwareGpuWorldBodies);
            return "OpenGL here is " + context->renderer() + ", which renders in software" + cost;
        }
    }
    return std::nullopt;
}

template <int D>
std::optional<std::string> WorldAdapter<D>::set_gpu_world(bool on) {
    if (on == (gpu_ != nullptr)) return std::nullopt;
    if (on) {
        if (auto why = gpu_world_refusal()) return why;
        try {
            gpu_ = std::make_unique<collide::gpu::GpuWorld<D>>(world_.settings(), world_.bodies(),
                                                               world_.steps());
        } catch (const collide::gpu::GpuError& e) {  // shaders or buffers the GPU refused
            return std::string(e.what());
        }
        // The CPU's scale until the readbacks bring samples of the GPU's speeds.
        gpu_speed_scale_ = speed_scale();
        scale_step_ = 0;
        gpu_timings_ = {};
        return std::nullopt;
    }
    world_.restore(snapshot_from_gpu());
    gpu_.reset();
    return std::nullopt;
}

template <int D>
typename collide::World<D>::Snapshot WorldAdapter<D>::snapshot_from_gpu() const {
    typename collide::World<D>::Snapshot s = world_.snapshot();
    gpu_->download(s.pos, s.vel);
    s.steps = gpu_->steps();
    // What the last GPU step found stays on the GPU: the CPU world starts its solve cold.
    s.warm_start = {};
    s.contacts.clear();
    s.impact_pairs.clear();
    const auto& r = world_.bodies().radius;
    for (std::size_t i = 0; i < s.pos.size(); ++i)
        s.boxes[i] = collide::Aabb<D>::around(s.pos[i], r[i]);
    return s;
}

template <int D>
std::unique_ptr<SimWorld> make_world(std::string_view scene, std::size_t count, std::uint64_t seed,
                                     std::string_view broadphase, WorldDefaults defaults) {
    collide::Scene<D> built = collide::make_scene<D>(scene, count, seed);
    built.settings.sleep = defaults.sleep;
    if (defaults.numbering == BodyNumbering::kMortonWhenLarge && !collide::is_csv_scene(scene) &&
        built.bodies.size() > collide::kLargeWorldBodies) {
        collide::order_by_morton(built.bodies);
    }
    if (built.bodies.size() > kMaxAppBodies) {  // only a CSV file can have more
        throw collide::InputError(
            std::string(scene) + " has " + std::to_string(built.bodies.size()) +
            " bodies; the app shows at most " + std::to_string(kMaxAppBodies));
    }
    return std::make_unique<WorldAdapter<D>>(std::move(built), broadphase);
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

std::optional<std::string> no_hardware_gpu() {
    if (auto why = collide::gpu_unavailable_reason("gpu-grid")) return "no GPU: " + *why;
    const auto context = collide::gpu::shared_context();
    if (context->software()) {
        return "no GPU: OpenGL here is " + context->renderer() + ", which renders in software";
    }
    return std::nullopt;
}

std::unique_ptr<SimWorld> make_sim_world(int dim, std::string_view scene, std::size_t count,
                                         std::uint64_t seed, std::string_view broadphase,
                                         WorldDefaults defaults) {
    if (dim == 2) return make_world<2>(scene, count, seed, broadphase, defaults);
    if (dim == 3) return make_world<3>(scene, count, seed, broadphase, defaults);
    throw collide::InputError("dimension " + std::to_string(dim) + " is neither 2 nor 3");
}

}  // namespace collidoscope
