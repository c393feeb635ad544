// The window's layout: where each panel goes and what is left for the world, computed from
// the window size, the UI scale and which panels are open. Every panel is placed from it
// (ui*.cpp), the camera frames the world inside `world` and the renderer draws only there,
// so no panel covers another or the world. Views drawn inside the world (a legend, split
// panes) take their rectangles from `world`. Plain arithmetic, no ImGui, tested on its own.
#pragma once

#include <span>

#include <glm/glm.hpp>

#include "render/camera.hpp"

namespace collidoscope {

inline constexpr float kPanelMargin = 8.0f;
inline constexpr float kLeftPanelWidth = 310.0f;   // at UI scale 1
inline constexpr float kRightPanelWidth = 290.0f;  // the right column: Stats, Race, Selected body
inline constexpr float kWatchPanelWidth = 420.0f;  // the right column while Watch is open
inline constexpr float kTimelineHeight = 84.0f;    // the strip under the world
inline constexpr float kMaxSideShare = 0.3f;       // a side panel's widest, of the window

// What the layout needs to know about this frame.
struct LayoutInput {
    glm::vec2 screen{1280.0f, 720.0f};  // window size in points
    float ui_scale = 1.0f;
    bool hidden = false;         // Tab: no panels, the world fills the window
    bool race_open = false;      // collapsed, the Race window is its title bar
    bool selection = false;      // a body is selected: the Selected-body panel is shown
    bool watch = false;          // Watch mode: its panel takes the whole right column
    float title_height = 19.0f;  // a window's title bar (a collapsed window's height)
    // The heights the right column's panels would take to show all their content (last
    // frame's); each gets that or its fair share of the column, and scrolls beyond it.
    float stats_wants = 0.0f;
    float race_wants = 0.0f;
    float selection_wants = 0.0f;
};

// Rectangles in window points; an absent panel's is empty (zero size).
struct UiLayout {
    ScreenRect left;   // the control panel
    ScreenRect stats;  // the right column, top down: Stats, Race, Selected body
    ScreenRect race;
    ScreenRect selection;
    ScreenRect watch;     // the Watch panel, in place of the three above while it is open
    ScreenRect timeline;  // under the world
    ScreenRect world;     // what is left: the world view
};

UiLayout compute_layout(const LayoutInput& in);

// Shares `room` among panels that want `wanted[i]` each (water filling): whoever wants less
// than an equal share gets what it wants, the rest split what remains equally. `out` is as
// long as `wanted`.
void fit_heights(std::span<const float> wanted, std::span<float> out, float room);

}  // namespace collidoscope
