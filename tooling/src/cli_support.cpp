#include "tooling/cli_support.hpp"

#include <cmath>
#include <thread>

#include "collide/broadphase.hpp"

namespace collide {

bool param_matches(std::string_view param_name, std::string_view given) {
    if (param_name.size() != given.size()) return false;
    for (std::size_t i = 0; i < given.size(); ++i) {
        const char g = given[i] == '-' || given[i] == '_' ? ' ' : given[i];
        if (g != param_name[i]) return false;
    }
    return true;
}

const char* param_kind_words(const Param& p) {
    switch (p.kind) {
        case Param::Kind::kWhole: return "a whole number";
        case Param::Kind::kToggle: return "0 or 1";
        case Param::Kind::kReal: break;
    }
    return nullptr;
}

bool param_kind_takes(const Param& p, float value) {
    switch (p.kind) {
        case Param::Kind::kWhole: return std::trunc(value) == value;
        case Param::Kind::kToggle: return value == 0.0f || value == 1.0f;
        case Param::Kind::kReal: break;
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
