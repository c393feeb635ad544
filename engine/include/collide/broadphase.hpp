// The broad-phase contract: from an array of boxes (indexed by body id), report every
// pair whose boxes overlap, exactly once. Every algorithm implements this interface and
// is listed in registry.cpp; brute force is the reference all others are tested against.
// The viewer's hooks (draw, describe, layers, status) live apart in broadphase_view.hpp;
// this contract knows nothing of drawing.
// Threads are the caller's: an update runs on the oneTBB task arena it is called from
// (tbb::task_arena(n).execute(...) hands it n), never on a process-wide setting, and gives
// the same pairs on any number.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "collide/body_changes.hpp"
#include "collide/core.hpp"
#include "collide/query_trace.hpp"

namespace collide {

struct BroadPhaseStats {
    std::uint64_t candidate_tests = 0;  // box-box overlap tests in the last update
    std::size_t structure_bytes = 0;    // memory held by the structure (capacity, not size)
    std::size_t nodes = 0;              // cells, nodes or entries, whatever the algorithm has
    int depth = 0;                      // tree depth or levels; 0 where meaningless
    // Bodies whose entries the structure moved in the last update (re-bucketed,
    // re-inserted); 0 for structures rebuilt from scratch every frame.
    std::uint64_t reinserted = 0;
    // Milliseconds the last update spent on the GPU's own clock (timer queries, without the
    // transfers); < 0 for algorithms that run on the CPU.
    double device_ms = -1.0;
};

// A tunable the UI shows as a slider of real or of whole numbers, or as a checkbox. The
// fields are plain data, so the UI, the session recorder and the command lines set any
// parameter alike; an algorithm reads its own through the typed reads, which check in debug
// builds that the kind is the one it declared.
struct Param {
    enum class Kind : std::uint8_t { kReal, kWhole, kToggle };

    const char* name;
    float value;
    float min;
    float max;
    Kind kind = Kind::kReal;

    static constexpr Param real(const char* name, float value, float min, float max) {
        return {name, value, min, max, Kind::kReal};
    }
    static constexpr Param whole(const char* name, int value, int min, int max) {
        return {name, static_cast<float>(value), static_cast<float>(min), static_cast<float>(max),
                Kind::kWhole};
    }
    static constexpr Param toggle(const char* name, bool on) {
        return {name, on ? 1.0f : 0.0f, 0.0f, 1.0f, Kind::kToggle};
    }

    float as_real() const {
        assert(kind == Kind::kReal);
        return value;
    }
    int as_whole() const {
        assert(kind == Kind::kWhole);
        return static_cast<int>(value);
    }
    bool is_on() const {
        assert(kind == Kind::kToggle);
        return value != 0.0f;
    }
};

// A broken invariant of an algorithm's structure, found by validate(): a bug, not bad input.
class InvariantError : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

// Throws InvariantError("ALGORITHM: WHAT"): validate()'s one way to report.
[[noreturn]] inline void invariant_broken(std::string_view algorithm, const std::string& what) {
    throw InvariantError(std::string(algorithm) + ": " + what);
}

// validate()'s reporter for one algorithm: fail("what") throws
// InvariantError("ALGORITHM: PART what"), PART naming a part of it (or empty).
class InvariantFail {
public:
    explicit InvariantFail(std::string_view algorithm, std::string_view part = {})
        : algorithm_(algorithm), part_(part) {}
    [[noreturn]] void operator()(const std::string& what) const {
        invariant_broken(algorithm_, std::string(part_) + what);
    }

private:
    std::string_view algorithm_, part_;
};

// A number in an invariant's message.
template <typename T>
std::string str(T v) {
    return std::to_string(v);
}

// What update_changes' whole-array path keeps between updates.
template <int D>
struct ChangesAsWholeArray {
    StillSet still;
    // The present bodies compacted (slot order), when some slots are absent.
    std::vector<Aabb<D>> boxes;
    std::vector<std::uint8_t> is_still;
    std::vector<BodyId> ids;  // compact index -> body id
    bool compacted = false;   // the last update ran on `boxes`, so query() maps back
    PairList pairs;
};

// What the simulation and the bench need.
template <int D>
class BroadPhase {
public:
    virtual ~BroadPhase() = default;
    // Report every pair (a < b) whose boxes overlap (closed intervals), exactly once.
    // Pairs of two static bodies are not reported. `out` is cleared first.
    void update(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                PairList& out) {
        whole_.compacted = false;
        update_whole(boxes, is_static, out);
    }
    // The same from what changed since the last update (see BodyChanges): the pairs of the
    // present bodies with at least one moving. An algorithm with a still structure of its own
    // (StillSplit) costs what the moving bodies cost; this default runs update() on the whole
    // array with the still bodies as static (the present ones compacted when some slots are
    // absent). A first call, or one after update(), needs `reset`.
    virtual void update_changes(const BodyChanges<D>& changes, PairList& out);
    // Bodies whose boxes overlap `region`, as of the last update. With a `trace`, it also
    // appends what it visited there, for draw() to show.
    void query(const Aabb<D>& region, std::vector<BodyId>& out,
               QueryTrace<D>* trace = nullptr) const {
        search(region, out, trace);
        if (whole_.compacted)
            for (BodyId& id : out) id = whole_.ids[id];
    }
    virtual BroadPhaseStats stats() const = 0;
    // Tunable parameters the UI shows (name, value, range); empty if none.
    virtual std::span<Param> params() { return {}; }

    // The cost heat map. While tracking is on, an algorithm that can attribute its work
    // counts, per body, the candidate tests the body took part in during each update (a
    // body-body test counts for both bodies; where a test is of a body against a tree
    // node it counts for that body). Off by default, so timed runs do not pay for it.
    virtual void set_cost_tracking(bool /*on*/) {}
    // Copies the last update's per-body costs into `out` (one per body). False when the
    // algorithm cannot attribute its work, tracking is off or `out` has the wrong size.
    virtual bool body_costs(std::span<std::uint32_t> /*out*/) const { return false; }

    // Checks every invariant of the structure the last update built (boxes held by their
    // nodes or cells, counts, order, links) and throws InvariantError naming the first
    // broken one. Debug builds run it after every update of the engine's own algorithms;
    // the equivalence tests call it in every build. Peers have nothing of ours to check.
    virtual void validate() const {}

protected:
    // What each algorithm implements: update() and query() on its own bodies. The base
    // maps the bodies when update_changes' whole-array path compacted them.
    virtual void update_whole(std::span<const Aabb<D>> boxes,
                              std::span<const std::uint8_t> is_static, PairList& out) = 0;
    // Every override repeats the default argument.
    virtual void search(const Aabb<D>& region, std::vector<BodyId>& out,
                        QueryTrace<D>* trace = nullptr) const = 0;

private:
    ChangesAsWholeArray<D> whole_;
};

}  // namespace collide
