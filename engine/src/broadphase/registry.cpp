// The one table of broad phases. Add an algorithm here and the app, the bench and the
// equivalence tests all pick it up.
#include "collide/registry.hpp"

#include <array>

#include "broadphase/brute_force.hpp"
#include "broadphase/sort_and_sweep.hpp"

namespace collide {

namespace {

template <template <int> class Algorithm, int D>
std::unique_ptr<BroadPhase<D>> make() {
    return std::make_unique<Algorithm<D>>();
}

template <template <int> class Algorithm>
constexpr BroadPhaseEntry row(std::string_view name, std::string_view description) {
    return {name, description, true, true, &make<Algorithm, 2>, &make<Algorithm, 3>};
}

constexpr std::array kBroadPhases = {
    row<BruteForce>("brute-force", "Brute force: every pair tested (the reference)"),
    row<SortAndSweep>("sort-and-sweep",
                      "Sort and sweep on the axis of greatest spread, insertion re-sort"),
};

}  // namespace

std::span<const BroadPhaseEntry> broadphases() {
    return kBroadPhases;
}

const BroadPhaseEntry* find_broadphase(std::string_view name) {
    for (const BroadPhaseEntry& e : kBroadPhases) {
        if (e.name == name) return &e;
    }
    return nullptr;
}

template <int D>
std::unique_ptr<BroadPhase<D>> make_broadphase(std::string_view name) {
    const BroadPhaseEntry* e = find_broadphase(name);
    if (e == nullptr || !e->supports(D)) return nullptr;
    if constexpr (D == 2) {
        return e->make_2d();
    } else {
        return e->make_3d();
    }
}

template std::unique_ptr<BroadPhase<2>> make_broadphase<2>(std::string_view);
template std::unique_ptr<BroadPhase<3>> make_broadphase<3>(std::string_view);

}  // namespace collide
