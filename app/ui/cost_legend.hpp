// The cost heat map's scale bar, drawn in the world view (bottom right of `area`): the
// colour ramp on its log scale with the costs at its ticks, and what a cost is. When the
// algorithm cannot attribute its work to bodies it says so in one line instead.
#pragma once

#include <string_view>

#include <imgui.h>

#include "render/camera.hpp"
#include "sim/body_colours.hpp"

namespace collidoscope {

// Draws the scale bar of the cost heat map in the bottom right of `area`, clipped to it.
// Returns the box it laid out (which fits `area` unless that is very small).
ScreenRect draw_cost_legend(ImDrawList& draw, const CostScale& scale, std::string_view algorithm,
                            const ScreenRect& area);

}  // namespace collidoscope
