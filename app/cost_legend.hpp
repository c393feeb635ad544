// The cost heat map's scale bar, drawn in the world view (bottom right of `area`): the
// colour ramp on its log scale with the costs at its ticks, and what a cost is. When the
// algorithm cannot attribute its work to bodies it says so in one line instead.
#pragma once

#include <string_view>

#include <imgui.h>

#include "camera.hpp"
#include "sim_world.hpp"

namespace collidoscope {

void draw_cost_legend(ImDrawList& draw, const CostScale& scale, std::string_view algorithm,
                      const ScreenRect& area);

}  // namespace collidoscope
