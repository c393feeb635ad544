#include "tooling/cli_support.hpp"

#include <CLI/CLI.hpp>

namespace collide {

void configure_cli(CLI::App& app, std::size_t column_width) {
    app.set_help_flag();  // the caller adds its own -h,--help
    app.allow_extras();   // the caller reports them
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.get_formatter()->column_width(column_width);
    app.get_formatter()->label("OPTIONS", "options");
}

}  // namespace collide
