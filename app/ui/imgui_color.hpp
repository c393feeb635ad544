// Our colours (0xAARRGGBB, collide::Color) as ImGui packs them (0xAABBGGRR), for whatever
// the app draws with ImGui's draw lists over the world view.
#pragma once

#include <imgui.h>

#include "collide/debug_draw.hpp"
#include "common/palette.hpp"

namespace collidoscope {

inline ImU32 to_imgui(collide::Color c) {
    return to_abgr(c);
}

}  // namespace collidoscope
