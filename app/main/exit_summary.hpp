// What a scripted run (--frames) prints as it ends, for the scripts and tests that read it:
// the frame statistics, the last race, the OpenGL in use, the GPU world's overflows, the
// session (recording, replay) and the tunnelling count.
#pragma once

#include <string>

#include "sim/demo.hpp"
#include "ui/frame_stats.hpp"

namespace collidoscope {

// Prints the summary of the run on stdout; `gl` names the OpenGL in use.
void print_exit_summary(const Demo& demo, const FrameStats& stats, const std::string& gl);

}  // namespace collidoscope
