#include "tooling/cli_support.hpp"

#include <thread>

#include <CLI/CLI.hpp>

namespace collide {

void configure_cli(CLI::App& app, std::size_t column_width) {
    app.set_help_flag();  // the caller adds its own -h,--help
    app.allow_extras();   // the caller reports them
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.get_formatter()->column_width(column_width);
    app.get_formatter()->label("OPTIONS", "options");
}

bool param_matches(std::string_view param_name, std::string_view given) {
    if (param_name.size() != given.size()) return false;
    for (std::size_t i = 0; i < given.size(); ++i) {
        const char g = given[i] == '-' || given[i] == '_' ? ' ' : given[i];
        if (g != param_name[i]) return false;
    }
    return true;
}

std::optional<std::string> threads_warning(std::uint64_t threads) {
    const unsigned cores = std::thread::hardware_concurrency();
    if (cores == 0 || threads <= cores) return std::nullopt;
    return "--threads " + std::to_string(threads) + " is more than the " + std::to_string(cores) +
           " hardware threads of this machine; the threads will share them";
}

}  // namespace collide
