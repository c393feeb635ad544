// Why the GPU rows and the GPU world cannot run in a build without compute shaders.
#pragma once

#include <string_view>

namespace collide::gpu {

inline constexpr std::string_view kNoComputeReason =
    "the GPU rows and the GPU world need OpenGL 4.3 compute shaders, which WebGL2 (the "
    "browser's OpenGL ES 3.0) does not have: run the desktop app for them";

// Throws GpuError with kNoComputeReason: what making (or using) any GPU object does here.
[[noreturn]] void throw_no_compute();

}  // namespace collide::gpu
