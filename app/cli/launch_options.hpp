// How the app is asked to start: the settings the command line gives (cli.hpp parses and
// validates them), kept apart from the parser so the simulation side never includes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collide/watch.hpp"
#include "collide/core.hpp"
#include "collide/debug_draw.hpp"
#include "common/palette.hpp"

namespace collidoscope {

inline constexpr std::size_t kMaxAppBodies = 10'000'000;

// The overlays shown, one struct from the command line to the algorithm's draw().
using OverlayFlags = collide::OverlayFlags;

// Which parts of the panels are open (the settings file keeps them).
struct PanelState {
    bool scene = true;
    bool broad_phase = true;
    bool query = true;
    bool overlays = true;
    bool keys = false;  // "Mouse and keys"
    bool race = false;  // the Race window, expanded
};

// Where the bodies live (--world): the CPU world, the GPU world (any OpenGL 4.3 context,
// software ones too), or the GPU world where the context is a hardware GPU.
enum class WorldChoice { kCpu, kGpu, kAuto };

// One --param: an algorithm's tunable by its name ('-' may stand for a space), and its value.
struct ParamSetting {
    std::string name;  // as the algorithm spells it (BroadPhase::params)
    float value = 0.0f;
};

struct Options {
    int dim = 2;
    std::string scene = "uniform";  // a scene_list() name or "csv:PATH"
    std::size_t count = 5000;
    std::uint64_t seed = 1;
    std::string broadphase;  // always a registry name supporting `dim` after parsing
    OverlayFlags overlays;
    std::optional<std::int64_t> frames;  // run this many frames, then quit
    std::string screenshot;              // PNG of the last frame; empty = none
    int width = 1280;
    int height = 720;
    bool paused = false;
    bool swept = false;  // WorldSettings::swept from the start
    std::optional<float> spawn_rate;  // Demo::set_spawn_rate: bodies a second; unset: the scene's
    WorldChoice world = WorldChoice::kCpu;
    bool race = false;   // the race panel open and live from the start
    // Watch mode from the start (--watch), at an event (--watch-event), with the quiz.
    bool watch = false;
    std::optional<std::uint64_t> watch_event;
    bool watch_at_selection = false;  // --watch-event selected: the selection's first event
    std::optional<collide::WatchStep> watch_at_step;  // --watch-event jump: the first jump
    bool watch_quiz = false;
    // Samples per pixel; 0 = off. Unset: 4, or 0 on software GL (llvmpipe), where 4 costs
    // more than half the frame rate.
    std::optional<int> msaa;
    collide::BodyId select = collide::kNoBody;  // body selected at start (for screenshots)
    std::optional<collide::Aabb<3>> query;      // region queried from the start; 2D: z = 0
    // Presets (presets.hpp): the one started on, the algorithm's tunables, and the part of
    // the world the camera frames (else all of it); 2D: z = 0.
    std::string preset;
    std::vector<ParamSetting> params;
    std::optional<collide::Aabb<3>> camera;
    std::string preset_shots;  // --preset-shots: a folder for every preset's pictures

    // Persistence (settings_store.hpp): the scene written on exit, the settings file (read
    // at start, written on exit; empty with --no-settings), and what the file sets.
    std::string save_scene;
    std::string settings_file;
    PanelState panels;
    ColorMode color_mode = ColorMode::kSpeed;
    // --compare: the compare view's algorithms (2 to 4 registry names); empty = off.
    std::vector<std::string> compare;
    bool overlays_on_top = true;
    float ui_scale = 0.0f;  // text size in the panels; 0: from the display's DPI
    // What the command line gave, which the stored settings do not override.
    struct Given {
        bool size = false;
        bool overlay = false;
        bool scene = false;  // --dim, --scene or --broadphase: the stored scene is not used
        bool no_settings = false;
        bool ui_scale = false;  // --ui-scale
        bool view = false;      // any flag that chooses what is shown (world, algorithm, overlays)
        bool color = false;     // --color: the stored colour mode is not used
    } given;
    // The scene came from the settings file (apply_settings): if it is refused now (a CSV
    // file that changed or went), the app warns and starts on the default scene instead.
    bool scene_from_settings = false;
    // Record and replay (session_file.hpp): write the session to `record`; replay the one
    // in `replay`, whose world replaces dim, scene, count, seed, algorithm, swept, paused.
    std::string record;
    std::string replay;
    // Interaction (issue 16, A): F12's folder, the state report for tests, oneTBB threads.
    std::string screenshot_dir = ".";  // where F12 writes its timestamped PNGs
    std::string report_state;          // JSON state file (state_report.hpp); empty = none
    int threads = 0;                   // oneTBB threads; 0 = every hardware thread
};

}  // namespace collidoscope
