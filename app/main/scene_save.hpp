// Saving the current world as a CSV scene from the app (the S key, the panel's button and
// --save-scene): a fresh timestamped file name in the current folder, the write, and the
// line the panel and the terminal show. The format is the loader's (tooling/scenes.hpp).
#pragma once

#include <string>

#include "sim/sim_world.hpp"

namespace collidoscope {

// "scene-20250131-142501.csv" in the current folder, with "-2", "-3", ... if that is taken.
std::string timestamped_scene_name();

struct SceneSaveResult {
    bool ok = false;
    std::string message;  // "saved 5,000 bodies to FILE" or why not
};

// Writes `world` to `path`; never throws.
SceneSaveResult save_scene(const SimWorld& world, const std::string& path);

}  // namespace collidoscope
