// The guided tour: a table of presets, each a named view that teaches one idea about a broad
// phase (what to look at in the picture, and why the algorithm behaves so). A preset's
// settings are a command line ("--scene centerline --broadphase quadtree ..."), read by the
// app's own parser (cli.hpp), so presets and flags share one validation; `--preset NAME`
// starts on one, the Tour section of the panel loads one live, and the first one is the
// first screen.
#pragma once

#include <span>
#include <string_view>

namespace collidoscope {

struct Preset {
    std::string_view name;       // kebab-case, for --preset
    std::string_view title;      // one line, for --list and the Tour list
    std::string_view paragraph;  // what to look at and why, shown in the app
    std::string_view args;       // the settings, as command-line flags
};

// Every preset, in tour order; the first is the app's first screen.
std::span<const Preset> presets();

// The preset named `name`, or nullptr.
const Preset* find_preset(std::string_view name);

}  // namespace collidoscope
