// How the app is asked to start: the settings the command line gives (cli.hpp parses and
// validates them), kept apart from the parser so the simulation side never includes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "collide/core.hpp"
#include "collide/debug_draw.hpp"

namespace collidoscope {

inline constexpr std::size_t kMaxAppBodies = 1'000'000;

// The overlays shown, one struct from the command line to the algorithm's draw().
using OverlayFlags = collide::OverlayFlags;

struct Options {
    int dim = 2;
    std::string scene = "uniform";  // a scene_list() name or "csv:PATH"
    std::size_t count = 5000;
    std::uint64_t seed = 1;
    std::string broadphase;  // always a registry name supporting `dim` after parsing
    OverlayFlags overlays;
    std::optional<std::int64_t> frames;  // run this many frames, then quit
    std::string screenshot;              // PNG of the last frame; empty = none
    int width = 1280;
    int height = 720;
    bool paused = false;
    bool swept = false;  // WorldSettings::swept from the start
    bool race = false;   // the race panel open and live from the start
    int msaa = 4;                               // samples per pixel; 0 = off
    collide::BodyId select = collide::kNoBody;  // body selected at start (for screenshots)
    std::optional<collide::Aabb<3>> query;      // region queried from the start; 2D: z = 0
    // Record and replay (session_file.hpp): write the session to `record`; replay the one
    // in `replay`, whose world replaces dim, scene, count, seed, algorithm, swept, paused.
    std::string record;
    std::string replay;
};

}  // namespace collidoscope
