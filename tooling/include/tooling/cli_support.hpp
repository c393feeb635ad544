// What the app's and the bench's command lines share beyond CLI11's setup (that is
// tooling/cli11_setup.hpp, for the files that include CLI11 anyway).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace collide {

// Whether a Param's name is the one a --param gave (spaces may be written '-' or '_'), for
// the app's and the bench's --param.
bool param_matches(std::string_view param_name, std::string_view given);

// The one-line warning for a --threads above this machine's hardware threads (accepted: the
// threads share the cores), or nothing.
std::optional<std::string> threads_warning(std::uint64_t threads);

}  // namespace collide
