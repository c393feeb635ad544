// Which algorithm the app starts on, and which it will not run unasked: the viewer's
// policy, kept out of the engine, whose registry only names the reference.
#pragma once

#include <cstddef>
#include <string_view>

#include "collide/registry.hpp"

namespace collidoscope {

// Where the app starts on small worlds: sort-and-sweep, the simplest to watch.
inline constexpr std::string_view kDefaultBroadPhase = "sort-and-sweep";

// Where the app starts at n bodies when no algorithm is asked for: sort-and-sweep up to
// kLargeWorldBodies; above that the sorted grid, since one sweep axis costs ever more per
// body as n grows (2D uniform, 2 threads, 2-core EPYC: 6.6 ms against 0.84 at 30,000
// bodies, 111 against 9.2 at 300,000; 3D 34 against 1.6 at 30,000).
inline constexpr std::size_t kLargeWorldBodies = 20'000;
inline constexpr std::string_view kLargeWorldBroadPhase = "sorted-grid";
constexpr std::string_view default_broadphase(std::size_t n) {
    return n <= kLargeWorldBodies ? kDefaultBroadPhase : kLargeWorldBroadPhase;
}

// The box tests `name` would take a frame when it is brute force past the reference limit
// (seconds to minutes a frame, so the app does not run it there unasked); 0 otherwise.
constexpr double brute_force_tests_past_limit(std::string_view name, std::size_t n) {
    if (name != collide::kReferenceBroadPhase || n <= collide::kMaxReferenceBodies) return 0.0;
    return 0.5 * static_cast<double>(n) * static_cast<double>(n - 1);
}

}  // namespace collidoscope
