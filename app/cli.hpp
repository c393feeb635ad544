// Command-line parsing for collidoscope. Everything the user can get wrong is checked here,
// before a window exists: numbers are parsed strictly, names are looked up in the engine's
// registry and scene list, and a CSV scene is loaded once to validate it. No SDL, no GL, so
// the parser is testable on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "collide/core.hpp"
#include "collide/debug_draw.hpp"
#include "tooling/input_error.hpp"

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
};

enum class CliAction { kRun, kHelp, kList };

struct CliResult {
    CliAction action = CliAction::kRun;
    Options options;
};

// Parses and validates the arguments after the program name. Throws collide::InputError.
CliResult parse_cli(std::span<const std::string_view> args);

std::string help_text();

// Every broad phase (with its dimensions) and every scene, for --list.
std::string list_text();

// The broad phase the app starts with when none is named: the first registry entry for
// `dim` that is not the brute-force reference (which is quadratic), else any entry.
std::string default_broadphase(int dim);

}  // namespace collidoscope
