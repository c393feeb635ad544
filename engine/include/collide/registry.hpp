// The registry: one table of every broad phase. The app's menu, the bench's
// --broadphase and the equivalence tests all iterate it, so a new algorithm is one
// file pair plus one row in registry.cpp.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "collide/broadphase.hpp"

namespace collide {

// Brute force is the reference every algorithm is checked against (and quadratic: benches
// leave it out at large n); sort-and-sweep is what a World uses until told otherwise.
inline constexpr std::string_view kReferenceBroadPhase = "brute-force";
inline constexpr std::string_view kDefaultBroadPhase = "sort-and-sweep";

struct BroadPhaseEntry {
    std::string_view name;         // CLI name, e.g. "sort-and-sweep"
    std::string_view description;  // one line for menus and --list
    bool in_2d;
    bool in_3d;
    std::unique_ptr<BroadPhase<2>> (*make_2d)();
    std::unique_ptr<BroadPhase<3>> (*make_3d)();

    bool supports(int dim) const { return dim == 2 ? in_2d : in_3d; }
};

std::span<const BroadPhaseEntry> broadphases();

// The entry called `name`, or nullptr.
const BroadPhaseEntry* find_broadphase(std::string_view name);

// A new instance of `name` for dimension D; nullptr if unknown or not available in D.
template <int D>
std::unique_ptr<BroadPhase<D>> make_broadphase(std::string_view name);

}  // namespace collide
