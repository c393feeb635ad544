// SimWorld: a collide::World of either dimension behind one small interface, so the demo can
// switch between circles and spheres live and the renderer and UI never see the template
// parameter. Positions cross this boundary as glm::vec3 (z = 0 in 2D). It also hands the
// renderer what it draws: the bodies (in the colours of body_colours.hpp) and one batch of
// coloured lines. The vertex types are in geometry.hpp, the overlay request in
// overlay_request.hpp, the snapshots in world_snapshot.hpp; how the bodies go to the GPU
// world and back is gpu_handover.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <glm/glm.hpp>

#include "collide/broadphase.hpp"
#include "collide/broadphase_view.hpp"
#include "collide/world.hpp"
#include "common/geometry.hpp"
#include "common/palette.hpp"
#include "sim/body_colours.hpp"
#include "sim/overlay_request.hpp"
#include "sim/race.hpp"
#include "sim/watch_tape.hpp"
#include "sim/world_snapshot.hpp"

namespace collidoscope {

// The live-tunable part of the world's settings.
struct Physics {
    float restitution = 1.0f;
    float gravity = 0.0f;  // magnitude; the direction stays the scene's (or -y)
    float dt = 1.0f / 60.0f;
    bool swept = false;             // swept boxes and time-of-impact contacts
    bool count_tunnelling = false;  // the bullets scene turns it on
    // Sleeping by island (collide::WorldSettings::sleep): on in the app, the user's choice
    // across scenes, as swept steps are.
    bool sleep = true;
    float sleep_speed = 0.05f;  // units per second
    float sleep_time = 0.5f;    // seconds at rest before an island sleeps
};

// How many bodies a step moves and how many it leaves still, and what the last step found.
struct WorldCounts {
    std::size_t moving = 0;
    std::size_t sleeping = 0;
    std::size_t fixed = 0;  // static
    std::size_t pairs = 0;
    std::size_t contacts = 0;
    // The pairs of the last step when they were over the world's pair budget (the step
    // stopped before its narrow phase), else 0.
    std::size_t pairs_over_budget = 0;
};

// Swept steps and the tunnelling check (collide::World's figures).
struct ContinuousFacts {
    std::size_t impacts = 0;  // pairs met at a time of impact in the last step
    std::uint64_t tunnelled_last = 0;
    std::uint64_t tunnelled_total = 0;
};

struct BodyInfo {
    collide::BodyId id = collide::kNoBody;
    glm::vec3 pos{0.0f};
    glm::vec3 vel{0.0f};
    float radius = 0.0f;
    bool is_static = false;
    bool asleep = false;
    std::vector<collide::BodyId> partners;  // broad-phase pairs with this body (capped)
    std::vector<bool> partner_touches;      // parallel: a real contact, not just boxes
    std::size_t partner_total = 0;
    std::size_t contact_total = 0;
    bool on_gpu = false;  // the GPU world: no partners or contacts are read back
    // Implicit bodies only.
    bool implicit = false;
    std::size_t metaballs = 0;
    std::size_t vertices = 0;
    std::size_t signature_marked = 0;
    std::size_t signature_cells = 0;
    // The world's implicit contact tests in the last step and their density evaluations at
    // surface points, with the signature and without it (every point tested).
    std::uint64_t implicit_tests = 0;
    std::uint64_t density_evals = 0;
    std::uint64_t density_evals_unsigned = 0;
    // The broad phase's own text about the body (its describe()); empty if it has nothing to
    // add, and on the GPU world.
    std::string described;
};

// What a compare pane shows in its stats line and scale bar.
struct ComparePaneFacts {
    RaceEntry run;
    CostScale costs;  // the pane's own costs' scale
    CostScale shown;  // the scale its bodies were coloured on (the common one, if given)
};

// The structure overlay's key: the parts the viewer may hide one by one (the algorithm's
// layers()) and what its colours mean (its legend()).
struct StructureKey {
    std::vector<std::string> layers;
    std::vector<collide::LegendEntry> legend;
};

// What the body shaders draw from (SimWorld::body_buffers): nothing (then instances), the
// CPU world's arrays to upload, or the GPU world's buffers.
using BodyBuffers = std::variant<std::monostate, BodyArrays, GpuBodies>;

class SimWorld {
public:
    virtual ~SimWorld() = default;

    virtual int dim() const = 0;
    virtual std::size_t body_count() const = 0;
    virtual Box3 bounds() const = 0;
    // The scene's Scene::recycled_share: bodies a second, as a share of its count, that the
    // spawner drops in again by default.
    virtual float recycled_share() const = 0;

    // One step. `watched` is the body whose state the GPU world's readbacks carry (the
    // selection); the CPU world has every body at hand.
    virtual void step(collide::BodyId watched) = 0;
    void step() { step(collide::kNoBody); }
    virtual const collide::StepTimings& timings() const = 0;
    virtual WorldCounts counts() const = 0;
    // Bodies that come and go, on the CPU world (the GPU world refuses: nullopt, false): a
    // circle or sphere added at `pos`, and its id; a body removed (not an implicit one).
    // Slots stay numbered; present() says which hold a body.
    virtual std::optional<collide::BodyId> add_body(const glm::vec3& pos, const glm::vec3& vel,
                                                    float radius) = 0;
    virtual bool remove_body(collide::BodyId id) = 0;
    virtual bool present(collide::BodyId id) const = 0;

    // Replaces the broad phase without touching the bodies; false if `name` is not
    // available in this dimension.
    virtual bool set_broad_phase(std::string_view name) = 0;
    virtual collide::BroadPhaseStats broad_phase_stats() const = 0;
    virtual std::span<collide::Param> broad_phase_params() = 0;
    // What the structure overlay is made of (empty on the GPU world, which draws none).
    virtual StructureKey structure_key() const = 0;
    virtual std::string broad_phase_status() const = 0;
    // The broad phase's query(): bodies whose boxes overlap `region` as of its last update
    // (none before the first step). z is ignored in 2D. It keeps the trace of what the query
    // visited, which fill_overlays() hands to the algorithm's draw() for the same region.
    virtual void query(const Box3& region, std::vector<collide::BodyId>& out) = 0;
    virtual std::uint64_t steps() const = 0;

    virtual Physics physics() const = 0;
    virtual ContinuousFacts continuous_facts() const = 0;
    // Every algorithm on this frame's boxes (see race.hpp).
    virtual void race(bool live, RaceReport& out) = 0;
    virtual void set_physics(const Physics& p) = 0;

    // --- Rewind (session_history.hpp keeps the snapshots).
    // `spare`, a snapshot of this world about to be dropped, lends its buffers (no fresh
    // pages to fault in at a million bodies); null for a new one.
    virtual std::unique_ptr<WorldSnapshot> snapshot(std::unique_ptr<WorldSnapshot> spare) const = 0;
    std::unique_ptr<WorldSnapshot> snapshot() const { return snapshot(nullptr); }
    // Puts back a snapshot this world made (a snapshot of another world is ignored); the
    // broad phase re-runs on the restored frame, so overlays and panels show that frame.
    virtual void restore(const WorldSnapshot& snapshot) = 0;
    // About the bytes a snapshot of this world takes, without taking one.
    virtual std::size_t snapshot_bytes() const = 0;
    // FNV-1a over the raw bytes of what decides the future: positions, velocities,
    // rotations, spins, the step counter, the solver's warm-start impulses and the
    // tunnelling count. Two worlds with equal hashes step on alike.
    virtual std::uint64_t state_hash() const = 0;

    // Nearest body hit by the ray (3D) or containing origin.xy (2D; `dir` unused). Bodies
    // get at least `min_radius` so that sub-pixel ones can still be clicked.
    virtual collide::BodyId pick(const glm::vec3& origin, const glm::vec3& dir,
                                 float min_radius) const = 0;
    virtual glm::vec3 position(collide::BodyId id) const = 0;
    virtual float radius(collide::BodyId id) const = 0;
    virtual void move_body(collide::BodyId id, const glm::vec3& pos, const glm::vec3& vel) = 0;
    // The broad phase (and contacts) again for the bodies as they stand, without a step.
    virtual void refresh_broad_phase() = 0;
    virtual BodyInfo body_info(collide::BodyId id, std::size_t max_partners) const = 0;

    // The bodies as arrays the body shaders read and colour themselves: the GPU world's own
    // buffers, or the CPU world's arrays to upload (speed or id colours). Nothing for cost
    // colours or implicit bodies, which then draw as fill_instances() says.
    virtual BodyBuffers body_buffers(ColorMode mode) = 0;
    // One instance per body, coloured by speed, id or cost; static bodies grey; nothing on
    // the GPU world. Implicit bodies are left out: fill_shapes draws them, in the colours
    // chosen here. Returns the cost colours' scale (kCost; cost tracking is on only while
    // asked for), else an unattributed one.
    virtual CostScale fill_instances(ColorMode mode, std::vector<Instance>& out) = 0;
    // A compare pane: runs the race's own instance of `algorithm` on this frame's boxes
    // (nullopt if unknown here) and appends the overlays `req` asks for, with that
    // algorithm's structure, to `out`. In cost mode it recolours `bodies` (as
    // fill_instances filled them) by that algorithm's costs, on `common` where it is
    // attributed (see common_scale), else on the pane's own scale. An algorithm over the
    // time budget (race.hpp) sits out, its structure not drawn and its bodies uncoloured,
    // unless `once`.
    virtual std::optional<ComparePaneFacts> compare_pane(std::string_view algorithm,
                                                         const OverlayRequest& req, ColorMode mode,
                                                         std::vector<Instance>& bodies,
                                                         OverlayGeometry& out, bool once,
                                                         const CostScale& common = {}) = 0;
    // Watch mode: one update of `algorithm` recorded on this frame's boxes, keeping the
    // events of `focus` (the selection) whole when the world is too large to keep all, and
    // then the query of `query` (the viewer's region) on what it built.
    virtual WatchTape record_watch(std::string_view algorithm, collide::BodyId focus,
                                   const std::optional<Box3>& query) = 0;
    // The implicit bodies' surfaces (empty in a world without them).
    virtual void fill_shapes(ShapeGeometry& out) const = 0;
    // The world outline, the requested overlays and the selection ring, as line pairs.
    virtual OverlayReport fill_overlays(const OverlayRequest& req, OverlayGeometry& out) const = 0;

    // Writes the world (settings and bodies) as a CSV scene; throws std::runtime_error.
    virtual void save_scene(const std::string& path) const = 0;

    // --- The GPU world (collide/gpu/gpu_world.hpp): the same bodies stepped by compute
    // shaders. While on it the broad phase chosen is kept for the way back; queries, the
    // race, compare panes, structure overlays and cost colours are the CPU world's alone.
    // Why this world cannot go there (implicit bodies, swept steps, the tunnelling check,
    // no OpenGL 4.3 context, too many bodies for a software GPU), or nothing.
    virtual std::optional<std::string> gpu_world_refusal() const = 0;
    // Moves the bodies to the GPU world or back, keeping every position and velocity to the
    // float, the step count and the physics; returns why not when it cannot.
    virtual std::optional<std::string> set_gpu_world(bool on) = 0;
    virtual bool on_gpu() const = 0;
    // Steps whose pairs overflowed the GPU world's pair buffer (see GpuWorld).
    virtual std::uint64_t gpu_overflowed_steps() const = 0;
};

// How a generated world numbers its bodies. A large world (over kLargeWorldBodies)
// is numbered along the Morton curve, so bodies near in space are near in memory: every
// phase of the step reads its neighbours from the caches (at 1M bodies the app ran about
// 30% faster). A CSV scene keeps its file's order. Session files before version 2 were
// recorded with the generator's numbering, and replay with it.
enum class BodyNumbering { kGenerated, kMortonWhenLarge };

// What a new world starts with beyond its scene: its numbering, and whether it sleeps
// (session files before version 3 were recorded without sleeping, and replay without it).
struct WorldDefaults {
    BodyNumbering numbering = BodyNumbering::kMortonWhenLarge;
    bool sleep = true;
};

// Builds scene `scene` in dimension `dim` with broad phase `broadphase`. Throws
// collide::InputError for a bad scene or an algorithm not available in `dim`.
std::unique_ptr<SimWorld> make_sim_world(int dim, std::string_view scene, std::size_t count,
                                         std::uint64_t seed, std::string_view broadphase,
                                         WorldDefaults defaults = {});

}  // namespace collidoscope
