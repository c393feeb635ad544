// Demo: the simulation side of the app, with no SDL or GL in it. It owns the current world
// (2D or 3D, behind SimWorld), remembers how it was built so it can be rebuilt when the
// dimension, scene, count or seed changes, swaps broad phases live, steps (or pauses), and
// holds the viewer's choices: overlays, colour mode and the selected body.
//
// Every change a user makes goes through apply(UserAction) (session_action.hpp); the
// setters below are its shorthands. That one place logs the session (for --record and the
// Record button), and a replay (--replay) feeds a recorded session's actions back through
// it at the steps they happened. After each step the world's snapshot goes into the rewind
// buffer (session_history.hpp), which seek() restores.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collide/registry.hpp"
#include "cli/launch_options.hpp"
#include "sim/session_action.hpp"
#include "sim/session_file.hpp"
#include "sim/session_history.hpp"
#include "sim/sim_world.hpp"
#include "sim/watch_mode.hpp"
#include "tooling/scene_names.hpp"

namespace collidoscope {

struct SceneChoice {
    std::string name;   // what make_scene takes: "uniform", "csv:path", ...
    std::string label;  // what the menu shows
    std::string description;
    int dim = 0;  // 0: either dimension; CSV scenes have the file's
};

// Past this many bodies, boxes and pairs drawn through a whole 3D world are a tangle.
inline constexpr std::size_t kTangledBodies = 500;

struct ViewOptions {
    OverlayFlags overlays;
    // The spray tool: a left drag adds bodies under the cursor instead of selecting.
    bool spray = false;
    ColorMode color_mode = ColorMode::kSpeed;
    bool overlays_on_top = true;  // 3D: draw overlays through the spheres
    // Level of detail of the structure overlay: the legend in the view, a focus lens around
    // the selection (or the cursor, 2D), and in 3D a slab across one axis around the
    // selection (or at slab_at, a share of the world) slab_width of the world thick.
    bool legend = true;
    bool lens = false;
    bool slab = false;
    int slab_axis = 2;
    float slab_at = 0.5f;
    float slab_width = 0.2f;
    // The compare view's algorithms, one pane each (compare_view.hpp); empty = off.
    std::vector<std::string> compare;
    // Per pane, why it sat out last frame over the time budget (empty: it ran); and the
    // algorithm the panel asked to run once anyway (cleared once it has).
    std::vector<std::string> compare_notes;
    std::string compare_run_once;
};

// How a replay is going.
struct ReplayStatus {
    std::string path;
    std::size_t applied = 0;  // actions applied so far
    std::size_t total = 0;
    std::size_t checks = 0;  // hash checks compared so far
    std::size_t failed = 0;
    std::optional<std::uint64_t> first_failed;  // the step of the first check that failed
    bool finished = false;                      // the recording's end was reached
    // The file has no 'end' line: it stopped early, and is replayed as far as it goes.
    bool cut_short = false;
    // An action refused as the command line would refuse it ("file:line: ..."): the replay
    // stopped there, paused, and the app exits with code 2.
    std::string refused;
};

// A recorded hash check every this many steps of the session.
inline constexpr std::uint64_t kCheckEvery = 100;

class Demo {
public:
    // Builds the starting world (a replay's from its file) and starts recording if asked
    // to; throws collide::InputError.
    explicit Demo(const Options& options);
    ~Demo();

    // Applies one change, logging it for the session (see the top of this file).
    void apply(const UserAction& action);
    // Shows what `options` describe (a preset, cli.hpp): the world and algorithm as one
    // action, then its tunables, swept steps, pause, selection and query as actions of
    // their own, and its overlays. On a world that cannot be built, last_error() says why.
    void show(const Options& options);

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
    void set_dim(int dim) { apply(action::SetDim{dim}); }
    void set_scene(const std::string& name) { apply(action::SetScene{name}); }
    void set_count(std::size_t count) { apply(action::SetCount{count}); }
    void set_seed(std::uint64_t seed) { apply(action::SetSeed{seed}); }
    // Rebuilds the same scene, keeping the physics the user dialled in.
    void reset() { apply(action::Reset{}); }
    const std::string& last_error() const { return last_error_; }
    // Why the world did not take the algorithm it was asked for (brute force over the
    // reference limit would freeze the app for minutes a frame), or empty.
    const std::string& notice() const { return notice_; }
    // The algorithm a large world starts on, when this one has grown past
    // kLargeWorldBodies on the small worlds' default (the Bodies slider keeps the
    // algorithm: the panel offers the switch rather than making it), else nothing.
    std::optional<std::string_view> large_world_suggestion() const;
    // Why `algorithm` must not run a world of `count` bodies, if it must not.
    static std::optional<std::string> too_slow_for_the_world(std::string_view algorithm,
                                                             std::size_t count);
    // What the command line would refuse of `a` in the world as it is now (a body that does
    // not exist, a parameter the algorithm lacks or a value out of its range), if anything.
    std::optional<std::string> refusal(const UserAction& a) const;

    // --- The broad phase, swapped without touching the bodies.
    const std::string& broad_phase() const { return broad_phase_; }
    // How many worlds were built since the first (scene, count, seed, dimension, reset).
    std::uint64_t worlds_built() const { return worlds_built_; }
    // What finds the pairs now: the broad phase, or the GPU world's own grid.
    std::string pairs_found_by() const { return world_->on_gpu() ? "GPU world" : broad_phase_; }
    void set_broad_phase(const std::string& name) { apply(action::SetBroadPhase{name}); }
    // Sets the current algorithm's parameter `name` (see BroadPhase::params).
    void set_param(const std::string& name, float value) { apply(action::SetParam{name, value}); }
    // Registry entries available in the current dimension, in registry order.
    std::vector<const collide::BroadPhaseEntry*> algorithms() const;

    // --- Physics knobs and stepping.
    Physics physics() const { return world_->physics(); }
    void set_physics(const Physics& p) { apply(action::SetPhysics{p}); }
    const Physics& scene_physics() const { return scene_physics_; }
    float max_gravity() const;
    bool paused() const { return paused_; }
    void set_paused(bool paused) { apply(action::SetPaused{paused}); }
    void step_once() { apply(action::StepOnce{}); }
    // Applies a replay's actions due at this step, then steps the world if running or a
    // single step was asked for; true if it stepped.
    bool update();
    // The GPU world (SimWorld::set_gpu_world): on a world that cannot go there the toggle
    // stays off and last_error() says why. A rebuilt world goes there too while it is on.
    bool gpu_world() const { return world_->on_gpu(); }
    void set_gpu_world(bool on) { apply(action::SetGpuWorld{on}); }
    // --world: the GPU world for kGpu; for kAuto only on a hardware GPU, else the notice says
    // why the bodies stay on the CPU. Needs the GL context (show() calls it; at the start,
    // the app does once its window is open).
    void choose_world(WorldChoice choice);
    // A drag: puts the body at `pos` with velocity `vel`.
    void move_body(collide::BodyId id, const glm::vec3& pos, const glm::vec3& vel) {
        apply(action::MoveBody{id, pos, vel});
    }
    // Bodies that come and go (the CPU world only; on the GPU world last_error() says so).
    void add_body(const glm::vec3& pos, const glm::vec3& vel, float radius) {
        apply(action::AddBody{pos, vel, radius});
    }
    void remove_body(collide::BodyId id) { apply(action::RemoveBody{id}); }
    // Every body whose centre lies in `region`.
    void remove_in(const Box3& region) { apply(action::RemoveRegion{region}); }
    // Bodies a second (of simulated time) falling in from the top of the world; once as
    // many are present as the world began with, each new one takes the place of the oldest
    // (the rain recycles its drops). Each body added or removed is logged as an action, so a
    // replay, which spawns nothing itself, repeats them.
    // Bodies a second: the one chosen, else the scene's (rain recycles its drops).
    float spawn_rate() const {
        return spawn_rate_ ? *spawn_rate_
                           : world_->recycled_share() * static_cast<float>(count_);
    }
    // nullopt: the scene's again.
    void set_spawn_rate(std::optional<float> per_second) { spawn_rate_ = per_second; }

    // --- Rewind. A seek restores the buffer's snapshot of a world step and pauses.
    const SessionHistory& history() const { return history_; }
    void seek(std::uint64_t step) { apply(action::Seek{step}); }
    // One step back (','), if the buffer has it.
    void step_back();
    // One step forward ('.'): the buffer's next snapshot, else a new step.
    void step_forward();

    // --- Record and replay.
    // Steps the session has taken (rewinds do not lower it): the step of logged actions.
    std::uint64_t ticks() const { return ticks_; }
    // Writes the session so far to `path` and goes on recording into it; throws
    // collide::InputError if the file cannot be written.
    void start_recording(const std::string& path);
    void stop_recording();
    // The file being recorded to; empty when not recording.
    std::string recording_path() const { return recorder_ ? recorder_->path() : std::string(); }
    const std::optional<ReplayStatus>& replay() const { return replay_status_; }
    // The world's state hash (SimWorld::state_hash) and, when recording or replaying, lines
    // for the exit summary: the hash at the current step and how the replay went.
    std::string session_summary() const;

    // --- The race (race.hpp): run once on request, or after every step while live.
    void request_race() { race_requested_ = true; }
    bool race_live() const { return race_live_; }
    void set_race_live(bool live) { race_live_ = live; }
    // The compare view with `count` panes (0: off). Kept panes keep their algorithms; the
    // first is the world's own, and new ones take the menu's next algorithms not shown yet,
    // never brute force (the slowest; a pane can still be set to it).
    void set_compare_panes(std::size_t count);
    const RaceReport& race() const { return race_; }
    // Runs the race if asked for or live; call after update().
    void update_race(bool stepped);

    // Watch mode (watch_mode.hpp). Opening it pauses the simulation: it shows one frame's
    // update, recorded again when the frame or the algorithm changes.
    WatchMode& watch() { return watch_; }
    const WatchMode& watch() const { return watch_; }
    void set_watching(bool on);
    // Records again if stale and plays on by `seconds`; once a frame, after the step.
    void update_watch(double seconds);

    ViewOptions& view() { return view_; }
    const ViewOptions& view() const { return view_; }

    collide::BodyId selected() const { return selected_; }
    void select(collide::BodyId id) { apply(action::Select{id}); }

    // The region the viewer queries, in world coordinates (z = 0 in 2D); it stays put while
    // the bodies move, and is dropped when the dimension changes.
    const std::optional<Box3>& query() const { return query_; }
    void set_query(const std::optional<Box3>& region) { apply(action::SetQuery{region}); }

private:
    // What each action does (apply logs, then calls the one for its type).
    void act(const action::SetDim& a);
    void act(const action::SetScene& a);
    void act(const action::SetCount& a);
    void act(const action::SetSeed& a);
    void act(const action::Reset& a);
    void act(const action::SetWorld& a);
    void act(const action::SetBroadPhase& a);
    void act(const action::SetParam& a);
    void act(const action::SetPhysics& a);
    void act(const action::SetPaused& a) { paused_ = a.paused; }
    void act(const action::SetGpuWorld& a);
    void act(const action::StepOnce&) { step_pending_ = true; }
    void act(const action::Seek& a);
    void act(const action::MoveBody& a);
    void act(const action::AddBody& a);
    void act(const action::RemoveBody& a);
    void act(const action::RemoveRegion& a);
    // After bodies were added or removed: a paused world's pairs brought up to date, and
    // the stored future dropped.
    void bodies_changed();
    // The spawn rate's bodies due this step.
    void spawn();
    void act(const action::Select& a);
    void act(const action::SetQuery& a) { query_ = a.region; }
    void act(const action::Check& a);
    void log(const UserAction& action);
    // A replay's actions up to the current step.
    void apply_replay();

    // What the options ask of the world just built, as actions: with `world`, the
    // algorithm's tunables, swept steps and pause; always the selection and the query.
    void apply_options(const Options& options, bool world);
    // Builds a world from the given description and, only if that succeeds, adopts it
    // (with `algorithm`, or the default where the dimension lacks it).
    bool rebuild(int dim, const std::string& scene, std::size_t count, std::uint64_t seed,
                 bool keep_physics, const std::string& algorithm);

    std::unique_ptr<SimWorld> world_;
    std::uint64_t worlds_built_ = 0;
    std::vector<SceneChoice> scenes_;
    int dim_ = 2;
    std::string scene_;
    std::size_t count_ = 0;
    std::uint64_t seed_ = 0;
    std::string broad_phase_;
    Physics scene_physics_;
    std::string last_error_;
    std::string notice_;
    bool paused_ = false;
    bool want_gpu_ = false;  // the GPU world was asked for (and rebuilt worlds go there)
    bool step_pending_ = false;
    bool race_requested_ = false;
    bool race_live_ = false;
    RaceReport race_;
    ViewOptions view_;
    WatchMode watch_;
    collide::BodyId selected_ = collide::kNoBody;
    std::optional<Box3> query_;
    std::optional<float> spawn_rate_;  // chosen (--spawn-rate, the slider); else the scene's
    double spawn_due_ = 0.0;               // bodies owed to the rate, fractions included
    std::deque<collide::BodyId> arrivals_;  // present bodies, oldest first (the spawner's)

    SessionStart start_;  // the world the session began with
    std::uint64_t ticks_ = 0;
    SessionHistory history_;
    std::vector<SessionEntry> log_;
    std::unique_ptr<SessionRecorder> recorder_;
    std::optional<Session> replay_;
    std::size_t replay_next_ = 0;
    std::optional<ReplayStatus> replay_status_;
};

}  // namespace collidoscope
