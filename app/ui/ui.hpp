// The ImGui panels: a control panel on the left (scene, broad phase, overlays), the stats
// panel on the right (what the frame's time went on, pair counts, memory, draw calls), the
// race and an info panel for the selected body under it, and the timeline under the world.
// Each is placed where the layout (ui_layout.hpp) says; Tab hides them all. Panels act on
// the Demo directly; what needs the rest of the app (fitting the camera) comes back as
// UiActions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "render/camera.hpp"
#include "sim/demo.hpp"
#include "ui/frame_stats.hpp"
#include "ui/dialogs.hpp"
#include "ui/ui_layout.hpp"

namespace collidoscope {

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
    const std::string& msaa_note;  // why antialiasing is off by default here, or empty
    int threads;                   // the oneTBB threads the app's work may use
    ScreenRect bodies;             // where the world's bodies are on screen (the legend avoids it)
};

// What the legend keeps between frames: its size when shown whole (known once drawn), and
// whether the user opened it where it covers the bodies.
struct LegendState {
    glm::vec2 full_size{0.0f};
    std::uint32_t shape = 0;  // rows and notes full_size was measured with
    int frames_measured = 0;  // frames drawn with this shape
    bool opened = false;
};

struct UiActions {
    bool fit_camera = false;
    bool quit = false;
    int threads = 0;     // the count the slider asks for; 0: unchanged
    std::string preset;  // the preset the Tour asks to load; empty: none
    // Files the panels wrote this frame (a saved scene, a finished recording): the browser
    // build hands them to the browser as downloads.
    std::vector<std::string> written;
    bool choose_replay = false;  // the browser build's "Replay a file..."
};

class Ui {
public:
    // Lays out every panel for this frame (none while dialogs.ui_hidden), and the help, the
    // quit prompt and the toast.
    UiActions draw(Demo& demo, const UiFrame& frame, Dialogs& dialogs);
    // This frame's layout (set by draw): the panels' rectangles and the world view's.
    const UiLayout& layout() const { return layout_; }
    // Where some controls were drawn last frame, by name ("bodies", "tour_next",
    // "tour_back"): the state report gives them to the real-input tests.
    const std::map<std::string, ScreenRect>& widgets() const { return widgets_; }
    // Whether the tour's paragraph is shown (its stop's world is still the one on screen).
    bool tour_paragraph_shown() const { return !preset_.empty() && preset_shown_; }
    // Whether the tour's closed list box showed its text whole last frame.
    bool tour_preview_fits() const { return tour_preview_fits_; }
    // The Stats panel's labels that were cut last frame (none, where it fits its text).
    const std::vector<std::string>& stats_cut() const { return stats_cut_; }
    // Shows `text` at the bottom of the window for a few seconds.
    void toast(std::string text);

    // Which sections are open: set before the first frame, followed after (settings file).
    PanelState& panels() { return panels_; }
    const PanelState& panels() const { return panels_; }
    // Saves the world under a timestamped name; the panel shows the outcome (the S key).
    // Returns the file written, if it was.
    std::optional<std::string> save_scene(const Demo& demo);
    // The preset the Tour section shows (presets.hpp); empty: none yet.
    // The tour's stop; `still_shown` false once the world was changed away from it (its
    // paragraph is then put away, and Back and Next go on from it).
    void set_preset(std::string name, bool still_shown = true) {
        preset_ = std::move(name);
        preset_shown_ = still_shown;
    }
    // Where the legend in the view was drawn last frame (empty when hidden).
    const ScreenRect& legend_rect() const { return legend_rect_; }

private:
    void scene_section(Demo& demo, UiActions& actions);
    void physics_section(Demo& demo);
    void broad_phase_section(Demo& demo, const UiFrame& frame, UiActions& actions);
    void compare_controls(Demo& demo);
    void overlays_section(Demo& demo, const OverlayReport& report);
    void query_section(Demo& demo, const UiFrame& frame);
    // The guided tour (ui_tour.cpp): the presets, and the current one's paragraph.
    void tour_section(UiActions& actions);
    // Returns the height its content wants.
    float selection_panel(Demo& demo, const ScreenRect& at);
    // Watch mode's panel (ui_watch.cpp): the player's controls, the event, the running
    // totals, the pseudocode with the event's line lit, and the quiz.
    void watch_panel(Demo& demo, const ScreenRect& at);

    void draw_toast();

    UiLayout layout_;
    LayoutInput wants_;  // last frame's content heights, for this frame's layout
    bool was_hidden_ = false;
    std::string toast_;
    double toast_until_ = 0.0;  // ImGui::GetTime() when the toast goes
    // The count slider's value while it is being dragged; the world is only rebuilt when
    // the slider is let go, since building a million bodies takes a moment.
    int count_edit_ = -1;
    // The Bodies slider rebuilds only for a drag or a typed value: a plain click (the first of
    // a double click, which opens the text field) would jump it to where the mouse fell.
    std::map<std::string, ScreenRect> widgets_;
    std::vector<std::string> stats_cut_;
    // Records the last item's rectangle as widgets_[name].
    void note_widget(const std::string& name);
    bool count_dragged_ = false;
    bool count_typed_ = false;
    bool count_open_text_ = false;  // a double click asks for the text field next frame
    PanelState panels_;
    std::string preset_;
    bool preset_shown_ = true;
    bool tour_preview_fits_ = true;
    bool tour_open_ = true;
    std::string last_save_;  // the last save's line; empty until the first save
    bool last_save_failed_ = false;
    ScreenRect legend_rect_;
    LegendState legend_;
    std::string watch_note_;  // why "Next event of #N" did not move; empty when it did
};

// Each panel is placed in its rectangle `at` from the layout and scrolls when its content is
// taller; those in the right column return the height their content wants.
// The stats panel (ui_stats.cpp).
// `cut` gets the labels it had too little room for (the real-input tests read them).
float stats_panel(Demo& demo, const UiFrame& frame, const ScreenRect& at,
                  std::vector<std::string>& cut);
// The race window (ui_race.cpp); it starts expanded if `open` (or the race is live), and
// `open` follows it.
float race_window(Demo& demo, const ScreenRect& at, bool& open);

// The legend in the view (ui_legend.cpp): what the colours of the overlays now shown mean.
// It goes in a corner of `area` (the world view) whose strip beside `bodies` (where the
// bodies are on screen) holds it; where none does, it shrinks to a one-line "Legend" button
// that opens it over the bodies. Returns its rectangle, empty when there is nothing to
// explain or the legend is off; `toggle` is the button's (empty when not shown).
ScreenRect legend_window(const Demo& demo, const OverlayReport& report, const ScreenRect& area,
                         const ScreenRect& bodies, LegendState& state, ScreenRect& toggle);

// The legend, lens and slab controls of the Overlays section (ui_legend.cpp).
void lod_controls(Demo& demo);

// The timeline strip under the world: rewind, Record, replay (ui_timeline.cpp).
void timeline_panel(Demo& demo, const ScreenRect& at, UiActions& actions);

// Places the next window at `at`, this frame and every frame.
void place_next_window(const ScreenRect& at);
// The height the current window needs to show all its content, title bar included.
float wanted_height();
// Puts the next button (labelled `label`) on the same line if it fits before the window's
// right edge, else on the next line; so rows of buttons wrap instead of being cut off.
void same_line_if_fits(const char* label);
// The keys and mouse window, from the bindings table, and the quit prompt (ui_help.cpp).
void help_window(Dialogs& dialogs, glm::vec2 screen);
// Returns true if the user chose to quit.
bool quit_prompt(Dialogs& dialogs, glm::vec2 screen);

// "12.3 MiB" and the like.
std::string format_bytes(std::size_t bytes);
// "1,234,567".
std::string format_count(std::uint64_t n);

// One "name | value" row of a two-column ImGui table.
// `cut`, if given, gets the name when its column is too narrow for it.
void table_row(const char* name, const std::string& value,
               std::vector<std::string>* cut = nullptr);

}  // namespace collidoscope
