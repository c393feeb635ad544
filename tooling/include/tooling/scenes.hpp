// Scenes shared by the app, the bench and the tests. Each generator takes a body count,
// the dimension (as the template argument) and a seed, and is deterministic. "csv:PATH"
// loads bodies from a file instead (docs/scenes.md gives the format). The names alone are in
// tooling/scene_names.hpp.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include "collide/bodies.hpp"
#include "tooling/input_error.hpp"
#include "tooling/scene_names.hpp"

namespace collide {

template <int D>
struct Scene {
    WorldSettings<D> settings;
    Bodies<D> bodies;
    // The share of its bodies a second that a spawner drops in again, each taking the place
    // of the oldest (rain: drops fall, vanish and fall again); 0 for a scene that keeps its
    // bodies. The app's spawn rate starts there.
    float recycled_share = 0.0f;
};

// Builds scene `name` ("uniform", ..., or "csv:PATH") with n bodies. Throws InputError.
template <int D>
Scene<D> make_scene(std::string_view name, std::size_t n, std::uint64_t seed);

// Loads a CSV scene; every row is checked before anything is returned. Throws InputError
// with "path:line: reason".
template <int D>
Scene<D> load_csv_scene(const std::string& path);

// The same from a stream (the fuzzer's way in); messages name the input `name`.
template <int D>
Scene<D> load_csv_scene_from(std::istream& in, const std::string& name);

// Writes the world (its settings, then every body in id order, implicit bodies with their
// metaballs) as a CSV scene that load_csv_scene reads back identically: floats in their
// shortest form that parses to the same bits. Throws std::runtime_error naming the path if
// the file cannot be written.
template <int D>
void save_csv_scene(const std::string& path, const WorldSettings<D>& settings,
                    const Bodies<D>& bodies);

// Renumbers the bodies in the Morton order of their centres, so bodies near each other in
// space are near each other in memory (generators and files give them in no spatial order).
template <int D>
void order_by_morton(Bodies<D>& bodies);

}  // namespace collide
