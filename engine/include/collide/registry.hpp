// The registry: one table of every broad phase. The app's menu, the bench's
// --broadphase and the equivalence tests all iterate it, so a new algorithm is one
// file pair plus one row in registry.cpp.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "collide/broadphase.hpp"

namespace collide {

// Brute force is the reference every algorithm is checked against (and quadratic: benches
// leave it out at large n). Sort-and-sweep, exact in both dimensions and never quadratic on
// the generated scenes, is the reference above kMaxReferenceBodies.
inline constexpr std::string_view kReferenceBroadPhase = "brute-force";
inline constexpr std::string_view kLargeReferenceBroadPhase = "sort-and-sweep";

// The largest n at which brute force is the reference (in the app's race, the bench's runs
// of 'all' and its --check); sort-and-sweep is the reference above it. The race runs it live
// every step: about 0.1 s at 10,000 bodies, four times that at 20,000, past the race's
// live cutoff.
inline constexpr std::size_t kMaxReferenceBodies = 10'000;

// The algorithm the others are checked against at n bodies.
constexpr std::string_view reference_broadphase(std::size_t n) {
    return n <= kMaxReferenceBodies ? kReferenceBroadPhase : kLargeReferenceBroadPhase;
}

// An algorithm's real path for mostly still worlds (see still_split.hpp): `make_still`'s
// structure holds the still bodies, kept between frames, and `make_moving`'s the moving ones.
template <int D>
std::unique_ptr<BroadPhase<D>> make_still_split(std::unique_ptr<BroadPhase<D>> (*make_still)(),
                                                std::unique_ptr<BroadPhase<D>> (*make_moving)());

struct BroadPhaseEntry {
    std::string_view name;         // CLI name, e.g. "sort-and-sweep"
    std::string_view description;  // one line for menus and --list
    bool in_2d;
    bool in_3d;
    std::unique_ptr<BroadPhase<2>> (*make_2d)();
    std::unique_ptr<BroadPhase<3>> (*make_3d)();
    // Where set, the row keeps its still bodies in a structure of their own, this one, when
    // fed BodyChanges (a still split); null: update_changes runs on the whole array.
    std::unique_ptr<BroadPhase<2>> (*still_2d)() = nullptr;
    std::unique_ptr<BroadPhase<3>> (*still_3d)() = nullptr;
    // A row in one dimension only: the row that does its job in the other (quadtree's is
    // octree), so a viewer switching dimension keeps the idea the user chose.
    std::string_view in_other_dim = {};

    bool supports(int dim) const { return dim == 2 ? in_2d : in_3d; }
    bool splits_still() const { return still_2d != nullptr || still_3d != nullptr; }

    // A new instance for dimension D; nullptr if the entry has none in D.
    template <int D>
    std::unique_ptr<BroadPhase<D>> make() const {
        if (!supports(D)) return nullptr;
        if constexpr (D == 2) {
            return still_2d ? make_still_split<2>(still_2d, make_2d) : make_2d();
        } else {
            return still_3d ? make_still_split<3>(still_3d, make_3d) : make_3d();
        }
    }
    // The algorithm alone, without its still split (what auto races).
    template <int D>
    std::unique_ptr<BroadPhase<D>> make_unsplit() const {
        if (!supports(D)) return nullptr;
        if constexpr (D == 2) {
            return make_2d();
        } else {
            return make_3d();
        }
    }
};

// A new Algorithm<D>: what a row stores for a class template with a default constructor
// (the bench's own subjects' rows use it too).
template <template <int> class Algorithm, int D>
std::unique_ptr<BroadPhase<D>> make_instance() {
    return std::make_unique<Algorithm<D>>();
}

std::span<const BroadPhaseEntry> broadphases();

// The entry called `name` in `table`, or nullptr (the bench looks up its own rows too).
const BroadPhaseEntry* find_entry(std::span<const BroadPhaseEntry> table, std::string_view name);

// A new instance of `entry` for dimension D; nullptr if there is no entry or none in D.
template <int D>
std::unique_ptr<BroadPhase<D>> make_from(const BroadPhaseEntry* entry) {
    return entry != nullptr ? entry->make<D>() : nullptr;
}

// The entry called `name`, or nullptr.
const BroadPhaseEntry* find_broadphase(std::string_view name);

// A new instance of `name` for dimension D; nullptr if unknown or not available in D.
template <int D>
std::unique_ptr<BroadPhase<D>> make_broadphase(std::string_view name);
// The same without its still split, if it has one.
template <int D>
std::unique_ptr<BroadPhase<D>> make_unsplit_broadphase(std::string_view name);

}  // namespace collide
