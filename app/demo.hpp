// Demo: the simulation side of the app, with no SDL or GL in it. It owns the current world
// (2D or 3D, behind SimWorld), remembers how it was built so it can be rebuilt when the
// dimension, scene, count or seed changes, swaps broad phases live, steps (or pauses), and
// holds the viewer's choices: overlays, colour mode and the selected body.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "launch_options.hpp"
#include "collide/registry.hpp"
#include "sim_world.hpp"
#include "tooling/scene_names.hpp"

namespace collidoscope {

struct SceneChoice {
    std::string name;   // what make_scene takes: "uniform", "csv:path", ...
    std::string label;  // what the menu shows
    std::string description;
    int dim = 0;  // 0: either dimension; CSV scenes have the file's
};

struct ViewOptions {
    OverlayFlags overlays;
    ColorMode color_mode = ColorMode::kSpeed;
    bool overlays_on_top = true;  // 3D: draw overlays through the spheres
};

class Demo {
public:
    // Builds the starting world; throws collide::InputError.
    explicit Demo(const Options& options);

    SimWorld& world() { return *world_; }
    const SimWorld& world() const { return *world_; }

    // --- The scene. Each setter rebuilds the world; on failure the old world stays and
    // last_error() says why.
    int dim() const { return dim_; }
    const std::string& scene() const { return scene_; }
    std::size_t count() const { return count_; }
    std::uint64_t seed() const { return seed_; }
    bool scene_is_csv() const { return collide::is_csv_scene(scene_); }
    std::span<const SceneChoice> scenes() const { return scenes_; }
    void set_dim(int dim);
    void set_scene(const std::string& name);
    void set_count(std::size_t count);
    void set_seed(std::uint64_t seed);
    // Rebuilds the same scene, keeping the physics the user dialled in.
    void reset();
    const std::string& last_error() const { return last_error_; }

    // --- The broad phase, swapped without touching the bodies.
    const std::string& broad_phase() const { return broad_phase_; }
    bool set_broad_phase(const std::string& name);
    // Registry entries available in the current dimension, in registry order.
    std::vector<const collide::BroadPhaseEntry*> algorithms() const;

    // --- Physics knobs and stepping.
    Physics physics() const { return world_->physics(); }
    void set_physics(const Physics& p) { world_->set_physics(p); }
    const Physics& scene_physics() const { return scene_physics_; }
    float max_gravity() const;
    bool paused() const { return paused_; }
    void set_paused(bool paused) { paused_ = paused; }
    void step_once() { step_pending_ = true; }
    // Steps the world if running or a single step was asked for; true if it stepped.
    bool update();

    // --- The race (race.hpp): run once on request, or after every step while live.
    void request_race() { race_requested_ = true; }
    bool race_live() const { return race_live_; }
    void set_race_live(bool live) { race_live_ = live; }
    const RaceReport& race() const { return race_; }
    // Runs the race if asked for or live; call after update().
    void update_race(bool stepped);

    ViewOptions& view() { return view_; }
    const ViewOptions& view() const { return view_; }

    collide::BodyId selected() const { return selected_; }
    void select(collide::BodyId id);

    // The region the viewer queries, in world coordinates (z = 0 in 2D); it stays put while
    // the bodies move, and is dropped when the dimension changes.
    const std::optional<Box3>& query() const { return query_; }
    void set_query(const std::optional<Box3>& region) { query_ = region; }

private:
    // Builds a world from the given description and, only if that succeeds, adopts it.
    bool rebuild(int dim, const std::string& scene, std::size_t count, std::uint64_t seed,
                 bool keep_physics);

    std::unique_ptr<SimWorld> world_;
    std::vector<SceneChoice> scenes_;
    int dim_ = 2;
    std::string scene_;
    std::size_t count_ = 0;
    std::uint64_t seed_ = 0;
    std::string broad_phase_;
    Physics scene_physics_;
    std::string last_error_;
    bool paused_ = false;
    bool step_pending_ = false;
    bool race_requested_ = false;
    bool race_live_ = false;
    RaceReport race_;
    ViewOptions view_;
    collide::BodyId selected_ = collide::kNoBody;
    std::optional<Box3> query_;
};

}  // namespace collidoscope
