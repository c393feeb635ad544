// The ImGui panels: a control panel on the left (scene, broad phase, overlays), the stats
// panel on the right (timings with rolling plots, pair counts, memory, draw calls) and an
// info panel for the selected body. Panels act on the Demo directly; what needs the rest of
// the app (fitting the camera) comes back as UiActions.
#pragma once

#include <cstdint>
#include <string>

#include <glm/glm.hpp>

#include "camera.hpp"
#include "demo.hpp"
#include "frame_stats.hpp"
#include "scene_save.hpp"
#include "input.hpp"

namespace collidoscope {

inline constexpr float kPanelMargin = 8.0f;
inline constexpr float kLeftPanelWidth = 310.0f;
inline constexpr float kRightPanelWidth = 290.0f;
inline constexpr float kTimelineHeight = 84.0f;  // the strip under the world
inline constexpr float kRaceMinHeight = 80.0f;  // the race window's least room when open

// What the last query of the viewer's region returned.
struct QueryReport {
    std::size_t found = 0;
    double micros = 0.0;  // the broad phase's query() alone
};

struct UiFrame {
    const FrameStats& stats;
    const OverlayReport& overlays;
    const QueryReport& query;
    glm::vec2 screen;  // window size in points
    const std::string& gl_description;
    int threads;  // the oneTBB threads the app's work may use
};

struct UiActions {
    bool fit_camera = false;
    bool quit = false;
    int threads = 0;  // the count the slider asks for; 0: unchanged
};

class Ui {
public:
    // Lays out every panel for this frame, and the help, the quit prompt and the toast.
    UiActions draw(Demo& demo, const UiFrame& frame, Dialogs& dialogs);
    // Shows `text` at the bottom of the window for a few seconds.
    void toast(std::string text);

    // The part of the window the panels leave free, where the camera frames the world.
    static ScreenRect free_area(glm::vec2 screen);

    // Which sections are open: set before the first frame, followed after (settings file).
    PanelState& panels() { return panels_; }
    const PanelState& panels() const { return panels_; }
    // Saves the world under a timestamped name; the panel shows the outcome (the S key).
    void save_scene(const Demo& demo);

private:
    void scene_section(Demo& demo, UiActions& actions);
    void physics_section(Demo& demo);
    void broad_phase_section(Demo& demo, const UiFrame& frame, UiActions& actions);
    void compare_controls(Demo& demo);
    void overlays_section(Demo& demo, const OverlayReport& report);
    void query_section(Demo& demo, const UiFrame& frame);
    // Returns the top of the panel (the screen's bottom when nothing is selected).
    float selection_panel(Demo& demo, const UiFrame& frame);

    void draw_toast(glm::vec2 screen);

    float stats_bottom_ = 0.0f;  // last frame's: the selection panel leaves room under it
    std::string toast_;
    double toast_until_ = 0.0;  // ImGui::GetTime() when the toast goes
    // The count slider's value while it is being dragged; the world is only rebuilt when
    // the slider is let go, since building a million bodies takes a moment.
    int count_edit_ = -1;
    PanelState panels_;
    SceneSaveResult last_save_;  // message empty until the first save
};

// The stats panel (ui_stats.cpp).
// The stats panel; the race window under it ends above `bottom`. Returns the stats panel's
// bottom.
float stats_panel(Demo& demo, const UiFrame& frame, float bottom, bool& race_open);
// The race window, from `top` down to at most `bottom` (ui_race.cpp); it starts expanded if
// `open` (or the race is live), and `open` follows it.
void race_window(Demo& demo, const UiFrame& frame, float top, float bottom, bool& open);

// The timeline strip under the world: rewind, Record, replay (ui_timeline.cpp).
void timeline_panel(Demo& demo, const UiFrame& frame);
// The keys and mouse window, from the bindings table, and the quit prompt (ui_help.cpp).
void help_window(Dialogs& dialogs, glm::vec2 screen);
// Returns true if the user chose to quit.
bool quit_prompt(Dialogs& dialogs, glm::vec2 screen);

// "12.3 MiB" and the like.
std::string format_bytes(std::size_t bytes);
// "1,234,567".
std::string format_count(std::uint64_t n);

// One "name | value" row of a two-column ImGui table.
void table_row(const char* name, const std::string& value);

}  // namespace collidoscope
