// Screenshots: reads the default framebuffer's back buffer (call after ImGui has rendered
// and before the buffers are swapped) and writes it as a PNG, flipped so row 0 is the top.
#pragma once

#include <string>

#include <glm/glm.hpp>

namespace collidoscope {

// Writes the current back buffer of `framebuffer` pixels to `path`; throws
// std::runtime_error saying what went wrong.
void save_screenshot(const std::string& path, glm::ivec2 framebuffer);

}  // namespace collidoscope
