// The app's frame loop: events, ImGui panels, stepping the world, drawing it (the pipeline
// is frame_draw.hpp), screenshots, presets and the state report; at the end, the exit
// summary (exit_summary.hpp). main() parses the command line; run_app() builds the world
// first (so a bad scene fails before any window opens) and then the window, and owns
// everything for the lifetime of the run.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <SDL_events.h>
#include <tbb/task_arena.h>

#include "cli/cli.hpp"
#include "main/frame_draw.hpp"
#include "main/input.hpp"
#include "main/platform.hpp"
#include "main/state_report.hpp"
#include "render/camera.hpp"
#include "render/gpu_timer.hpp"
#include "sim/demo.hpp"
#include "ui/frame_stats.hpp"
#include "ui/ui.hpp"

namespace collidoscope {

// Returns the process exit code: 0, 1 for a runtime failure, 2 for a bad scene.
int run_app(const Options& options);

class App {
public:
    App(const Options& options, Demo& demo, Platform& platform);
    // Runs until the user quits or --frames is reached; returns the exit code.
    int run();
    // The browser build: hands the frames to the browser's loop and returns at once.
    void run_in_browser();

private:
    // Asks the broad phase for the bodies in the viewer's query region, if there is one.
    void run_query();
    // Frames the world when the dimension or the world's size changed, or when asked to.
    void fit_camera_if_needed(glm::vec2 screen, bool asked);
    // Writes the settings file (settings_store.hpp) from the state the app ends in.
    void store_settings() const;
    // F12: a timestamped PNG in the screenshot folder, named in a toast.
    void save_timestamped_screenshot(glm::ivec2 framebuffer);
    // Loads the preset `name` live (presets.hpp): the world through the Demo's actions, the
    // camera's framing, and the Tour's paragraph.
    void show_preset(const std::string& name);
    // What a start (or a preset) sets of the view beside the world: colour mode, compare
    // panes, overlays on top.
    void apply_view(const Options& options);
    // Whether the world shown is still the current preset's (the settings file keeps it).
    bool preset_still_shown() const;
    // --preset-shots: after this frame is drawn, writes its picture when one is due, and
    // moves on to the next preset; true when every preset has its pictures.
    bool take_preset_shot(glm::ivec2 framebuffer, int& exit_code);
    // What run() carries from frame to frame.
    struct Loop {
        std::int64_t frame = 0;
        const char* exit = "window";
        int exit_code = 0;
    };
    Loop browser_loop_;  // run_in_browser's
    // One frame: events, step, panels, drawing; false when it was the last.
    bool run_frame(Loop& loop);
    // Runs the app's parallel work, the engine's included, on `threads` oneTBB threads: the
    // arena each frame runs in.
    void set_threads(int threads);
    void report_state(glm::vec2 screen, std::int64_t frames, const char* exit);
    // The camera of the current dimension.
    Camera& camera();
    const Camera& camera() const;

    const Options& options_;
    Demo& demo_;
    Platform& platform_;
    FrameDraw draw_;  // its renderer needs the window's OpenGL context, which platform_ holds
    Ui ui_;
    Input input_;
    Dialogs dialogs_;
    StateReport report_;
    std::vector<SDL_Event> events_;  // this frame's, handled after ImGui's new frame
    int threads_ = 1;
    int wanted_threads_ = 1;  // the Threads field's, applied after the frame that set it
    std::unique_ptr<tbb::task_arena> arena_;
    std::string last_screenshot_;
    float fitted_pixel_ = 0.0f;  // world units per pixel at the centre when last fitted
    FrameStats stats_;
    // The world (Demo::worlds_built) and algorithm the Stats panel's means are of.
    std::pair<std::uint64_t, std::string> measured_;
    FrameClock clock_;
    GpuTimer gpu_timer_;
    float display_scale_ = 1.0f;  // the UI scale the display's DPI suggests
    Camera2D camera_2d_;
    Camera3D camera_3d_;
    int fitted_dim_ = 0;
    std::size_t fitted_panes_ = 0;  // compare panes when last fitted (0: one view)
    // The world's view area and the window when the camera last framed it, so a change of
    // area alone (Tab) reframes what was shown instead of leaving it where it was.
    ScreenRect framed_view_;
    glm::vec2 framed_screen_{0.0f};
    Box3 fitted_bounds_;
    std::optional<Box3> camera_box_;  // what the camera frames; empty: the whole world
    std::string preset_;              // the preset last loaded; empty: none
    // That preset's world as --preset alone builds it, parsed once when it is loaded (the
    // tour asks every frame whether it is still shown).
    std::optional<Options> preset_options_;
    void set_preset(const std::string& name);
    // --preset-shots: the preset being shot, and its frames so far.
    std::size_t shot_preset_ = 0;
    int shot_frame_ = 0;
    OverlayReport overlay_report_;
    QueryReport query_report_;
    std::vector<collide::BodyId> query_hits_;
};

}  // namespace collidoscope
