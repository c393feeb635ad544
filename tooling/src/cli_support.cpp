#include "tooling/cli_support.hpp"

#include <thread>

namespace collide {

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
