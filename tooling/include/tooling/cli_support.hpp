// What the app's and the bench's command lines set up alike on their CLI11 parser: the
// caller handles --help itself (so that it wins over mistakes) and reports stray arguments
// in its own words, the last of a repeated flag wins, and --help lays out options the same
// way. Only the declaration of CLI::App is needed here, so tooling's users do not inherit
// CLI11 through this header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace collide {

// Sets up `app` as above, with option names padded to `column_width` in --help.
void configure_cli(CLI::App& app, std::size_t column_width);

// Whether a Param's name is the one a --param gave (spaces may be written '-' or '_'), for
// the app's and the bench's --param.
bool param_matches(std::string_view param_name, std::string_view given);

// The one-line warning for a --threads above this machine's hardware threads (accepted: the
// threads share the cores), or nothing.
std::optional<std::string> threads_warning(std::uint64_t threads);

}  // namespace collide
