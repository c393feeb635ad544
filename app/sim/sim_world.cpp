#include "sim/sim_world.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "cli/launch_options.hpp"
#include "collide/broadphase_view.hpp"
#include "collide/gpu/gpu_world.hpp"
#include "collide/registry.hpp"
#include "collide/tunnelling_check.hpp"
#include "sim/body_colours.hpp"
#include "sim/algorithm_policy.hpp"
#include "sim/body_pick.hpp"
#include "sim/dim_cast.hpp"
#include "sim/gpu_handover.hpp"
#include "sim/overlay_builder.hpp"
#include "sim/watch_recording.hpp"
#include "tooling/scene_names.hpp"
#include "tooling/scenes.hpp"

namespace collidoscope {
namespace {

using collide::BodyId;
using collide::kNoBody;

template <int D>
std::unique_ptr<collide::BroadPhase<D>> available_broadphase(std::string_view name) {
    auto bp = collide::make_any_broadphase<D>(name);
    if (!bp) {
        throw collide::InputError("broad phase '" + std::string(name) + "' is not available in " +
                                  std::to_string(D) + "D");
    }
    return bp;
}

// Hides D: a world of one dimension behind SimWorld, glm::vec3 at the boundary. Colouring
// (body_colours.hpp), the GPU handover (gpu_handover.hpp), snapshots and hashes
// (world_snapshot.hpp) and picking (body_pick.hpp) have files of their own.
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
        const auto& radius = world_.bodies().radius;
        if (!radius.empty()) max_radius_ = *std::max_element(radius.begin(), radius.end());
    }

    int dim() const override { return D; }
    std::size_t body_count() const override { return world_.bodies().size(); }
    Box3 bounds() const override { return to3<D>(world_.settings().bounds); }
    float recycled_share() const override { return recycled_share_; }

    void step(BodyId watched) override;
    const collide::StepTimings& timings() const override {
        return gpu() ? handover_.timings() : world_.timings();
    }
    std::optional<BodyId> add_body(const glm::vec3& pos, const glm::vec3& vel,
                                   float radius) override {
        if (gpu()) return std::nullopt;
        max_radius_ = std::max(max_radius_, radius);
        handover_.bodies_added();
        return world_.add_body(from3<D>(pos), from3<D>(vel), radius).id;
    }
    bool remove_body(BodyId id) override {
        if (gpu() || !world_.present(id) || world_.bodies().is_implicit(id)) return false;
        world_.remove_body(world_.handle(id));
        return true;
    }
    bool present(BodyId id) const override { return world_.present(id); }

    WorldCounts counts() const override {
        const std::size_t fixed = world_.static_count();
        if (gpu()) {  // it does not sleep, and has no pair budget
            const auto& latest = gpu()->latest();
            return {world_.bodies().size() - fixed, 0, fixed, latest.pairs, latest.contacts, 0};
        }
        return {world_.awake(),        world_.sleeping(),        fixed,
                world_.pairs().size(), world_.contacts().size(), world_.pairs_over_budget()};
    }

    bool set_broad_phase(std::string_view name) override {
        auto bp = collide::make_any_broadphase<D>(name);
        if (!bp) return false;
        // Build the new structure right away so its overlay and stats show even when paused
        // (at step 0 too: the boxes exist from the start); the pairs it reports are the ones
        // the world already has.
        bp->set_cost_tracking(colours_.tracking_costs());
        const PresentBoxes present = present_boxes();
        bp->update(present.boxes, present.is_static, scratch_pairs_);
        world_.set_broad_phase(std::move(bp));
        query_trace_.clear();  // the old algorithm's; the next frame's query traces the new one
        return true;
    }
    collide::BroadPhaseStats broad_phase_stats() const override {
        if (!gpu()) return world_.broad_phase()->stats();
        collide::BroadPhaseStats s;
        s.candidate_tests = gpu()->latest().tests;
        s.device_ms = gpu()->latest().times.broad_ms;
        return s;
    }
    std::span<collide::Param> broad_phase_params() override {
        return world_.broad_phase()->params();
    }
    std::string broad_phase_status() const override {
        if (!gpu()) return collide::view_of(*world_.broad_phase()).status();
        return "GPU world on " + gpu()->context().renderer() +
               ": the whole step in compute shaders, its broad phase gpu-grid's kernels";
    }
    StructureKey structure_key() const override {
        if (gpu()) return {};
        return {collide::view_of(*world_.broad_phase()).layers(), collide::view_of(*world_.broad_phase()).legend()};
    }
    void query(const Box3& region, std::vector<BodyId>& out) override {
        out.clear();
        query_trace_.clear();
        if (gpu() || world_.steps() == 0) return;  // nothing is built before the first update
        const collide::Aabb<D> box = from3<D>(region);
        world_.broad_phase()->query(box, out, &query_trace_);
    }
    std::uint64_t steps() const override { return gpu() ? gpu()->steps() : world_.steps(); }

    Physics physics() const override {
        const auto& s = world_.settings();
        return {s.restitution, glm::length(s.gravity), s.dt,         s.swept,
                s.count_tunnelling, s.sleep,   s.sleep_speed,         s.sleep_time};
    }
    void race(bool live, RaceReport& out) override {
        if (gpu()) return;  // the CPU world's boxes are not this step's
        const PresentBoxes present = present_boxes();
        race_.run(present.boxes, present.is_static, world_.steps(), live, out);
    }
    WatchTape record_watch(std::string_view algorithm, BodyId focus,
                           const std::optional<Box3>& query) override {
        if (gpu()) {
            WatchTape tape;
            tape.algorithm = std::string(algorithm);
            tape.dim = D;
            tape.not_recorded =
                "the GPU world steps every body in compute shaders; switch it off (World "
                "section) to watch a CPU algorithm";
            return tape;
        }
        const PresentBoxes present = present_boxes();
        std::vector<BodyId> ids;
        if (present.compacted) {
            for (BodyId i = 0; i < world_.bodies().size(); ++i)
                if (world_.present(i)) ids.push_back(i);
        }
        std::optional<collide::Aabb<D>> region;
        if (query) region = from3<D>(*query);
        return record_tape<D>(algorithm, *world_.broad_phase(), present.boxes, present.is_static,
                              ids, focus, region);
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
        if (gpu() && gpu_world_refusal()) set_gpu_world(false);
        if (gpu()) gpu()->set_settings(s);
    }

    std::unique_ptr<WorldSnapshot> snapshot(std::unique_ptr<WorldSnapshot> spare) const override {
        std::unique_ptr<SnapshotOf<D>> s = reuse_snapshot<D>(std::move(spare));
        if (gpu()) {
            s->world = handover_.snapshot(world_);
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
        if (gpu()) {
            handover_.drop();
            set_gpu_world(true);  // the restored bodies go up again
        }
    }
    std::size_t snapshot_bytes() const override {
        // Too big for any buffer: each would read every body back and stall the GPU.
        if (gpu() && body_count() > kGpuRewindBodies) return std::numeric_limits<std::size_t>::max();
        return collidoscope::snapshot_bytes<D>(world_);
    }
    std::uint64_t state_hash() const override {
        return collidoscope::state_hash<D>(gpu() ? handover_.snapshot(world_) : world_.snapshot(),
                                           tunnelling_.count().total);
    }

    BodyId pick(const glm::vec3& origin, const glm::vec3& dir, float min_radius) const override;
    glm::vec3 position(BodyId id) const override { return to3<D>(world_.bodies().pos[id]); }
    float radius(BodyId id) const override { return world_.bodies().radius[id]; }
    void move_body(BodyId id, const glm::vec3& pos, const glm::vec3& vel) override {
        world_.move_body(id, from3<D>(pos), from3<D>(vel));
        if (gpu()) gpu()->move_body(id, from3<D>(pos), world_.bodies().vel[id]);
    }
    void refresh_broad_phase() override {
        if (!gpu()) world_.refresh_pairs();
    }
    BodyInfo body_info(BodyId id, std::size_t max_partners) const override;
    CostScale fill_instances(ColorMode mode, std::vector<Instance>& out) override {
        if (gpu()) {  // drawn from the GPU world's buffers
            out.clear();
            return {};
        }
        return colours_.fill_instances(world_, mode, out);
    }
    BodyBuffers body_buffers(ColorMode mode) override;
    void fill_shapes(ShapeGeometry& out) const override {
        colours_.fill_shapes(world_.bodies(), out);
    }
    OverlayReport fill_overlays(const OverlayRequest& req, OverlayGeometry& out) const override {
        if (!gpu()) return build_overlays<D>(world_, req, query_trace_, out);
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
        if (!gpu()) return collide::save_csv_scene<D>(path, world_.settings(), world_.bodies());
        collide::Bodies<D> bodies = world_.bodies();
        gpu()->download(bodies.pos, bodies.vel);
        collide::save_csv_scene<D>(path, world_.settings(), bodies);
    }

    std::optional<std::string> gpu_world_refusal() const override {
        return handover_.refusal(world_);
    }
    std::optional<std::string> set_gpu_world(bool on) override;
    bool on_gpu() const override { return gpu() != nullptr; }
    std::uint64_t gpu_overflowed_steps() const override {
        return gpu() ? gpu()->overflowed_steps() : 0;
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

    // The GPU world while the bodies live there, else null.
    collide::gpu::GpuWorld<D>* gpu() const { return handover_.gpu(); }

    collide::World<D> world_;
    // The GPU side: its world while the bodies live there (world_ then keeps the settings,
    // the broad phase for the way back, and the watched body as the readbacks bring it).
    GpuHandover<D> handover_;
    BodyColours<D> colours_;
    std::vector<collide::Aabb<D>> present_boxes_;  // present_boxes()' compacted copies
    std::vector<std::uint8_t> present_static_;
    float recycled_share_ = 0.0f;
    float max_radius_ = 0.0f;  // radii never change: the largest, taken once
    collide::TunnellingCheck<D> tunnelling_{collide::make_broadphase<D>("sort-and-sweep")};
    Race<D> race_;
    collide::Vec<D> gravity_dir_;
    collide::PairList scratch_pairs_;
    collide::QueryTrace<D> query_trace_;  // what the last query() visited, for the overlay
};

template <int D>
BodyId WorldAdapter<D>::pick(const glm::vec3& origin, const glm::vec3& dir,
                             float min_radius) const {
    if (!gpu()) return pick_body<D>(world_, world_.bodies().pos, origin, dir, min_radius);
    // On the GPU world a click reads the positions back once (the one wait it allows).
    std::vector<collide::Vec<D>> pos, vel;
    gpu()->download(pos, vel);
    return pick_body<D>(world_, pos, origin, dir, min_radius);
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
    info.on_gpu = gpu() != nullptr;
    if (gpu()) return info;  // its pairs and contacts stay on the GPU
    info.implicit_tests = world_.implicit_tests();
    info.density_evals = world_.implicit_counters().density_evals;
    info.density_evals_unsigned = world_.implicit_counters().points_tested;
    info.described = collide::view_of(*world_.broad_phase()).describe(id);
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
        facts.costs = colours_.colour_by_cost(world_, *pane, bodies, common);
        facts.shown = common.attributed && facts.costs.attributed ? common : facts.costs;
    }
    // The pane's algorithm never ran the viewer's query, so it has no trace to show.
    build_overlays<D>(world_, req, collide::QueryTrace<D>{}, out, pane);
    return facts;
}

template <int D>
BodyBuffers WorldAdapter<D>::body_buffers(ColorMode mode) {
    if (gpu()) {
        const collide::gpu::BodyBuffers b = gpu()->buffers();
        return GpuBodies{
            b.pos, b.vel, b.radius, b.mass, b.count, D, colours_.gpu_speed_scale(), max_radius_};
    }
    if (auto arrays = colours_.arrays(world_, mode, max_radius_)) return *arrays;
    return {};
}

template <int D>
void WorldAdapter<D>::step(BodyId watched) {
    if (!gpu()) {
        collide::step_counting_tunnelling(world_, tunnelling_);
        return;
    }
    const collide::gpu::GpuWorldReadback<D>& r = handover_.step(world_, watched);
    colours_.follow_gpu_speeds(r.step, r.speeds);  // a new sample: the colours follow it
}

template <int D>
std::optional<std::string> WorldAdapter<D>::set_gpu_world(bool on) {
    if (on == (gpu() != nullptr)) return std::nullopt;
    if (!on) {
        handover_.move_down(world_);
        return std::nullopt;
    }
    if (auto why = handover_.move_up(world_)) return why;
    // The CPU's scale until the readbacks bring samples of the GPU's speeds.
    colours_.start_gpu_scale(world_.bodies());
    return std::nullopt;
}

template <int D>
std::unique_ptr<SimWorld> make_world(std::string_view scene, std::size_t count, std::uint64_t seed,
                                     std::string_view broadphase, WorldDefaults defaults) {
    collide::Scene<D> built = collide::make_scene<D>(scene, count, seed);
    built.settings.sleep = defaults.sleep;
    if (defaults.numbering == BodyNumbering::kMortonWhenLarge && !collide::is_csv_scene(scene) &&
        built.bodies.size() > kLargeWorldBodies) {
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

std::unique_ptr<SimWorld> make_sim_world(int dim, std::string_view scene, std::size_t count,
                                         std::uint64_t seed, std::string_view broadphase,
                                         WorldDefaults defaults) {
    if (dim == 2) return make_world<2>(scene, count, seed, broadphase, defaults);
    if (dim == 3) return make_world<3>(scene, count, seed, broadphase, defaults);
    throw collide::InputError("dimension " + std::to_string(dim) + " is neither 2 nor 3");
}

}  // namespace collidoscope
