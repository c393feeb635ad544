// The race: every algorithm of the registry that has the world's dimension, run on the same
// boxes (the world's current frame), each timed, its pairs compared with a reference (brute
// force up to collide::kMaxReferenceBodies, sort-and-sweep beyond). Each algorithm keeps its
// own instance between races, so persistent structures are measured warm, as in the world.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collide/broadphase.hpp"

namespace collidoscope {

// The time budget of a subject the app runs beside the world each frame (a live race entry,
// a compare pane): one slower than this last time sits out until asked to run once, and
// brute force above collide::kMaxReferenceBodies (seconds a frame at 100,000 bodies) is not
// started at all.
inline constexpr double kRaceLiveCutoffMs = 250.0;

// "Run once" on a subject past its budget stops the window for as long as it runs: it is
// refused where that would pass kRunOnceMaxSeconds. Brute force is estimated at the rate it
// keeps with its costs counted (the compare view's heat map), the slowest it runs: 5e9
// tests took 85 s on the 2-core VM.
inline constexpr double kRunOnceMaxSeconds = 2.0;
inline constexpr double kBruteForceSlowestTestsPerSecond = 5e7;

// Why running `name` once on n bodies would freeze the window, if it would.
std::optional<std::string> too_slow_to_run_once(std::string_view name, std::size_t n);

struct RaceEntry {
    std::string name;
    double ms = 0;
    std::size_t pairs = 0;
    std::uint64_t tests = 0;
    std::size_t structure_bytes = 0;  // the algorithm's BroadPhaseStats, for the compare view
    std::size_t nodes = 0;
    bool ran = false;      // false: left out (see note)
    std::string note;      // why it was left out, or how its pairs differ
    bool differs = false;  // its pairs are not the reference's
};

struct RaceReport {
    std::vector<RaceEntry> entries;  // registry order
    std::string reference;
    std::size_t bodies = 0;
    std::uint64_t step = 0;  // the world step the boxes came from
};

template <int D>
class Race {
public:
    // `live`: leave out the algorithms that were slower than the live cutoff last time.
    void run(std::span<const collide::Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
             std::uint64_t step, bool live, RaceReport& out);
    // One algorithm alone on the boxes, timed, with the same instance the race keeps (the
    // compare view's panes); its pairs are not checked. nullopt for an unknown name. Unless
    // `once`, an algorithm over the time budget is not run: the entry says why (ran false);
    // with `once`, one too slow to run even once (too_slow_to_run_once) is not run either.
    std::optional<RaceEntry> run_one(std::string_view name, std::span<const collide::Aabb<D>> boxes,
                                     std::span<const std::uint8_t> is_static, bool once = false);
    // The instance run_one() and run() update (to draw its structure, count its costs);
    // null if unknown.
    collide::BroadPhase<D>* algorithm(std::string_view name);

private:
    struct Runner {
        std::string name;
        std::unique_ptr<collide::BroadPhase<D>> algorithm;  // null where it cannot run here
        double last_ms = 0;
        std::string unavailable;  // why not (a GPU row without OpenGL 4.3 compute)
    };
    // Why `r` would blow the time budget on n bodies, if it would.
    static std::optional<std::string> over_budget(const Runner& r, std::size_t n);
    void make_runners();
    // Updates r's algorithm on the boxes into `pairs`, timing it into `e`.
    void time_update(Runner& r, std::span<const collide::Aabb<D>> boxes,
                     std::span<const std::uint8_t> is_static, collide::PairList& pairs,
                     RaceEntry& e);
    std::vector<Runner> runners_;
    collide::PairList pairs_, reference_;
};

}  // namespace collidoscope
