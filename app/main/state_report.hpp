// The app's state as a small JSON file (--report-state FILE), for tests that drive the real
// window with real input: what is selected and how it moves, what the broad phase says about
// it, the camera's zoom, the algorithm, the open dialogs, where the panels and the world view
// are, where the frames' time went, and how the app ended. The file is rewritten (whole, by a
// rename) whenever its content changes, so a test can poll it while the app runs.
#pragma once

#include <map>
#include <span>
#include <string>

#include <glm/glm.hpp>

#include "ui/compare_view.hpp"
#include "sim/demo.hpp"
#include "ui/frame_stats.hpp"
#include "main/input.hpp"
#include "ui/ui_layout.hpp"

namespace collidoscope {

// What the report needs beyond the Demo.
struct ReportFacts {
    const Dialogs& dialogs;
    float zoom;              // world units per pixel when fitted / now: 1 = as fitted
    float world_per_point;   // world units per screen point at the world's centre
    glm::vec2 world_centre;  // where the world's centre is on the screen, in points
    int threads;
    std::string last_screenshot;  // the last F12 picture's path; empty: none
    std::string exit;             // "running", or how the app quit: "confirmed", "window", "frames"
    const UiLayout& layout;       // the world view's rectangle
    FrameBreakdown frame;         // where the recent frames' time went
    // Where some controls were drawn (Ui::widgets), for the real-input tests.
    const std::map<std::string, ScreenRect>& widgets;
    bool tour_paragraph = false;    // the tour's paragraph is shown
    bool tour_preview_fits = true;  // the tour's closed list box shows its text whole
    // The compare view's panes and cost scales last frame (empty when it is off).
    std::span<const CompareView::PaneLayout> compare_layout = {};
    std::span<const std::string> stats_cut = {};  // the Stats panel's labels cut (Ui::stats_cut)
    std::string preset = {};  // the tour stop shown; empty once the world is no longer its
    std::int64_t frames = 0;  // frames run so far, this one included
};

class StateReport {
public:
    explicit StateReport(std::string path) : path_(std::move(path)) {}
    // Writes the report if it differs from the last one written. Call between ImGui's
    // NewFrame and Render, so the panels' places are this frame's.
    void update(const Demo& demo, const ReportFacts& facts);

private:
    std::string path_;  // empty: no report
    std::string last_;
};

}  // namespace collidoscope
