// The names of the scenes, without the scenes themselves: what a command line needs to
// check a --scene value or list the choices (and a CSV file's dimension), with no world or
// implicit types behind it. tooling/scenes.hpp builds the scenes these names stand for.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "tooling/input_error.hpp"

namespace collide {

struct SceneEntry {
    std::string_view name;
    std::string_view description;
};

// "csv:PATH" names a scene file rather than a generator.
inline constexpr std::string_view kCsvPrefix = "csv:";
inline bool is_csv_scene(std::string_view name) {
    return name.starts_with(kCsvPrefix);
}

// The generated scenes (csv: is not listed; it takes a path).
std::span<const SceneEntry> scene_list();

inline constexpr std::size_t kMaxBodies = 10'000'000;

// Dimension a CSV file declares in its header (2 or 3). Throws InputError.
int csv_scene_dimension(const std::string& path);

// The dimension to run scene `name` in, `asked` being --dim when given: a CSV file's header
// decides, and an `asked` that contradicts it is an InputError; other scenes take `asked`,
// or 2.
int scene_dimension(std::string_view name, std::optional<int> asked);

}  // namespace collide
