// What the app's and the bench's command lines set up alike on their CLI11 parser: the
// caller handles --help itself (so that it wins over mistakes) and reports stray arguments
// in its own words, the last of a repeated flag wins, and --help lays out options the same
// way. Inline, for the two files that parse with CLI11 anyway: CLI11 2.1 compiles a few
// thousand functions into every file that includes it (10 s each in a Release build), so
// tooling's own sources leave it out.
#pragma once

#include <cstddef>

#include <CLI/CLI.hpp>

namespace collide {

// Sets up `app` as above, with option names padded to `column_width` in --help.
inline void configure_cli(CLI::App& app, std::size_t column_width) {
    app.set_help_flag();  // the caller adds its own -h,--help
    app.allow_extras();   // the caller reports them
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.get_formatter()->column_width(column_width);
    app.get_formatter()->label("OPTIONS", "options");
}

}  // namespace collide
