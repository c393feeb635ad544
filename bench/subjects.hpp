// What the bench can run: the catalog's broad phases (the engine's and the GPU's) and, next to
// them, references that are not app algorithms: `floor` (one key per box, no pairs: the time no
// broad phase can beat) and the peers (other engines' broad phases, built when their packages are
// found). The rows have the registry's shape, so --broadphase, --param and --check treat them
// alike.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "collide/gpu/catalog.hpp"
#include "tooling/cli_support.hpp"  // param_matches

namespace collide::bench {

inline constexpr std::string_view kFloor = "floor";

// floor and the peers this build has.
std::span<const BroadPhaseEntry> references();

// The registry's entry or the reference called `name`, or nullptr.
const BroadPhaseEntry* find_subject(std::string_view name);

// A new instance of `name` for dimension D; nullptr if unknown or not available in D.
template <int D>
std::unique_ptr<BroadPhase<D>> make_subject(std::string_view name);

}  // namespace collide::bench
