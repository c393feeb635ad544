// Saving the current world as a CSV scene from the app (the S key, the panel's button and
// --save-scene): a fresh timestamped file name in the current folder, the write, and the
// line the panel and the terminal show. The format is the loader's (tooling/scenes.hpp).
#pragma once

#include <string>

#include "sim/sim_world.hpp"

namespace collidoscope {

// "scene-20250131-142501.csv" in the current folder, with "-2", "-3", ... if that is taken.
std::string timestamped_scene_name();

// Writes `world` to `path` and returns the line to show ("saved 5000 bodies to FILE"); throws
// (collide::InputError) saying why it could not.
std::string save_scene(const SimWorld& world, const std::string& path);

}  // namespace collidoscope
