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
#include <vector>

#include "cli/launch_options.hpp"
#include "tooling/input_error.hpp"

namespace collidoscope {

enum class CliAction { kRun, kHelp, kList };

struct CliResult {
    CliAction action = CliAction::kRun;
    Options options;
    std::vector<std::string> warnings;  // one line each, for stderr; the app still runs
};

// Parses and validates the arguments after the program name. Throws collide::InputError.
CliResult parse_cli(std::span<const std::string_view> args);

std::string help_text();

// Every broad phase (with its dimensions) and every scene, for --list.
std::string list_text();

}  // namespace collidoscope
