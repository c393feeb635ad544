// What the app's and the bench's command lines share beyond CLI11's setup (that is
// tooling/cli11_setup.hpp, for the files that include CLI11 anyway).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace collide {

struct Param;

// Whether a Param's name is the one a --param gave (spaces may be written '-' or '_'), for
// the app's and the bench's --param.
bool param_matches(std::string_view param_name, std::string_view given);

// What a --param value must be for `p`'s kind, besides in its range: "a whole number",
// "0 or 1", or null for a real number (any in range), for messages and help.
const char* param_kind_words(const Param& p);

// Whether `value` is of `p`'s kind: a whole number for a whole parameter, 0 or 1 for a toggle.
// The app's and the bench's --param refuse the others, which a slider could not give.
bool param_kind_takes(const Param& p, float value);

// The one-line warning for a --threads above this machine's hardware threads (accepted: the
// threads share the cores), or nothing.
std::optional<std::string> threads_warning(std::uint64_t threads);

}  // namespace collide
