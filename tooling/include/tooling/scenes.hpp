// Scenes shared by the app, the bench and the tests. Each generator takes a body count,
// the dimension (as the template argument) and a seed, and is deterministic. "csv:PATH"
// loads bodies from a file instead (see README for the format).
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "collide/world.hpp"

namespace collide {

// Thrown for a bad scene name, size or file; the message names the offending value or line.
class SceneError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

template <int D>
struct Scene {
    WorldSettings<D> settings;
    Bodies<D> bodies;
};

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

// Builds scene `name` ("uniform", ..., or "csv:PATH") with n bodies. Throws SceneError.
template <int D>
Scene<D> make_scene(std::string_view name, std::size_t n, std::uint64_t seed);

// Loads a CSV scene; every row is checked before anything is returned. Throws SceneError
// with "path:line: reason".
template <int D>
Scene<D> load_csv_scene(const std::string& path);

// Renumbers the bodies in the Morton order of their centres, so bodies near each other in
// space are near each other in memory (generators and files give them in no spatial order).
template <int D>
void order_by_morton(Bodies<D>& bodies);

// Dimension a CSV file declares in its header (2 or 3). Throws SceneError.
int csv_scene_dimension(const std::string& path);

}  // namespace collide
