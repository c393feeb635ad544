// Every broad phase this build has: the engine's registry (collide/registry.hpp), then the
// GPU rows. The engine's table cannot name the GPU algorithms (the engine knows no GL), so
// the app, the bench and the tests iterate this one instead; in a build without the GPU
// library it is the engine's table alone. Making a GPU row makes (or joins) the process's
// GL context, and throws gpu::GpuError when none can be had.
#pragma once

#include <memory>
#include <span>
#include <optional>
#include <string>
#include <string_view>

#include "collide/registry.hpp"

namespace collide {

// The GPU rows alone (empty in a build without the GPU library).
std::span<const BroadPhaseEntry> gpu_broadphases();
// The engine's rows, then the GPU rows.
std::span<const BroadPhaseEntry> all_broadphases();
// True for a row of gpu_broadphases().
bool runs_on_gpu(std::string_view name);

// Why `name` cannot run in this process (a GPU row with no GL 4.3 context to be had: what
// was tried), or nothing when it can.
std::optional<std::string> gpu_unavailable_reason(std::string_view name);

// The row called `name` in all_broadphases(), or nullptr.
const BroadPhaseEntry* find_any_broadphase(std::string_view name);

// A new instance of `name` for dimension D; nullptr if unknown or not available in D.
template <int D>
std::unique_ptr<BroadPhase<D>> make_any_broadphase(std::string_view name) {
    return make_from<D>(find_any_broadphase(name));
}

}  // namespace collide
