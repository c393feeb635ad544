// Watch mode's record of one update: the steps an algorithm's real code takes (nodes and
// cells visited, bodies placed, the sweep's cursor, candidate tests, pairs) as plain events a
// viewer plays back at its own pace. The algorithm calls the recorder where it does the work;
// with no recorder its hook is a null pointer read once per phase, as the cost heat map's is.
// A recording keeps everything at small n; at large n it keeps what touches one focus body
// and counts the rest, so its size stays bounded.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "collide/core.hpp"

namespace collide {

template <int D>
class BroadPhase;

enum class WatchStep : std::uint8_t {
    kPhase,       // a phase begins: phase names it (sort, build, search)
    kVisit,       // a node or cell looked at: region
    kEnter,       // a node descended into: region
    kPrune,       // a node or cell skipped whole: region
    kPlace,       // body a placed in a node or cell: region
    kCursor,      // the sweep reaches body a, whose box starts at `at` on `axis`
    kActiveAdd,   // body a joins the active list (or window) of the sweep
    kActiveDrop,  // body a leaves it
    kJump,        // the scan of body a jumps to body b (BIGMIN), skipping `count` entries
    kTest,        // candidate pair (a, b) tested; hit says whether the boxes overlap
    kEmit,        // pair (a, b) reported
    kFound,       // a region query found body a (read from the query's own result)
    kCount
};

// The name of a step, as the Watch panel and the tests print it.
const char* step_name(WatchStep step);
// The step a name gives (step_name's, with '-' for its spaces: "active-add"), or none.
std::optional<WatchStep> step_named(std::string_view name);

template <int D>
struct WatchEvent {
    WatchStep step = WatchStep::kPhase;
    bool hit = false;
    std::uint8_t axis = 0;
    std::uint8_t phase = 0;  // index into WatchRecord::phases: the phase this event is in
    BodyId a = kNoBody;
    BodyId b = kNoBody;
    float at = 0.0f;
    std::uint32_t count = 0;
    Aabb<D> region{};
};

// Past this many bodies a recording keeps only the focus's events (with no focus, none but
// phases): the default of WatchLimits::keep_all_up_to, which the app's panel also names.
inline constexpr std::size_t kWatchKeepAllUpTo = 3000;

// Which events a recording keeps.
template <int D>
struct WatchLimits {
    std::size_t keep_all_up_to = kWatchKeepAllUpTo;
    std::size_t max_events = 400000;  // kept events past this are counted, not kept
    BodyId focus = kNoBody;           // the selected body, at large n
};

// What one recorded update left: its events, counts of every event made (kept or not),
// and every pair it emitted.
template <int D>
struct WatchRecord {
    std::vector<WatchEvent<D>> events;
    std::vector<std::string> phases;
    std::array<std::uint64_t, std::size_t(WatchStep::kCount)> made{};  // by step, kept or not
    std::uint64_t not_kept = 0;   // events made but not kept (outside the focus, or past max)
    bool everything = true;       // every event was kept
    BodyId focus = kNoBody;       // the focus, when not everything was kept
    PairList emitted;             // every pair emitted, kept or not
    std::string not_recorded;     // why nothing was recorded (a GPU row), or empty

    std::uint64_t made_of(WatchStep s) const { return made[std::size_t(s)]; }
};

// The sink an algorithm calls. One thread at a time: a recorded update runs on a
// one-thread arena (record_update).
template <int D>
class WatchRecorder {
public:
    WatchRecorder(std::span<const Aabb<D>> boxes, const WatchLimits<D>& limits);

    void phase(const char* name);
    // Each call counts its event; at large n those outside the focus are dropped here,
    // inline, before anything is built (a focused 100k update makes millions of them).
    void visit(const Aabb<D>& region) { region_event(WatchStep::kVisit, region); }
    void enter(const Aabb<D>& region) { region_event(WatchStep::kEnter, region); }
    void prune(const Aabb<D>& region) { region_event(WatchStep::kPrune, region); }
    void place(BodyId a, const Aabb<D>& region) {
        if (outside(a, a)) return skip(WatchStep::kPlace);
        place_kept(a, region);
    }
    void cursor(BodyId a, int axis, float at) {
        if (outside_window(a, axis)) return skip(WatchStep::kCursor);
        body_event(WatchStep::kCursor, a, axis, at);
    }
    void active_add(BodyId a, int axis) {
        if (outside_window(a, axis)) return skip(WatchStep::kActiveAdd);
        body_event(WatchStep::kActiveAdd, a, axis, boxes_[a].lo[axis]);
    }
    void active_drop(BodyId a, int axis) {
        if (outside_window(a, axis)) return skip(WatchStep::kActiveDrop);
        body_event(WatchStep::kActiveDrop, a, axis, boxes_[a].hi[axis]);
    }
    void jump(BodyId from, BodyId to, std::uint32_t skipped) {
        if (outside(from, to)) return skip(WatchStep::kJump);
        jump_kept(from, to, skipped);
    }
    void test(BodyId a, BodyId b, bool hit) {
        if (outside(a, b)) return skip(WatchStep::kTest);
        pair_event(WatchStep::kTest, a, b, hit);
    }
    void emit(BodyId a, BodyId b) {
        record_.emitted.push_back(make_pair(a, b));
        if (outside(a, b)) return skip(WatchStep::kEmit);
        pair_event(WatchStep::kEmit, a, b, true);
    }

    WatchRecord<D>& record() { return record_; }

private:
    // Not kept: at large n, an event naming neither a nor b as the focus (with no focus,
    // none; a jump that ends its scan names kNoBody, which is no focus).
    bool outside(BodyId a, BodyId b) const {
        return !keep_all_ &&
               (limits_.focus == kNoBody || (a != limits_.focus && b != limits_.focus));
    }
    // Not kept: at large n, a sweep's body outside the focus's window on the sweep axis.
    bool outside_window(BodyId a, int axis) const {
        return !keep_all_ && a != limits_.focus &&
               !(boxes_[a].lo[axis] <= focus_box_.hi[axis] &&
                 focus_box_.lo[axis] <= boxes_[a].hi[axis]);
    }
    void skip(WatchStep step) {
        ++record_.made[std::size_t(step)];
        ++record_.not_kept;
        record_.everything = false;
    }
    void region_event(WatchStep step, const Aabb<D>& region) {
        if (!keep_all_ && !region.overlaps(focus_box_)) return skip(step);
        WatchEvent<D> e;
        e.step = step;
        e.region = region;
        keep(e);
    }
    void place_kept(BodyId a, const Aabb<D>& region);
    void body_event(WatchStep step, BodyId a, int axis, float at);
    void jump_kept(BodyId from, BodyId to, std::uint32_t skipped);
    void pair_event(WatchStep step, BodyId a, BodyId b, bool hit);
    // Keeps `e` (within max_events; past it, counts it).
    void keep(WatchEvent<D> e);

    std::span<const Aabb<D>> boxes_;
    WatchLimits<D> limits_;
    bool keep_all_;
    Aabb<D> focus_box_ = Aabb<D>::empty();
    WatchRecord<D> record_;
};

// The widest pseudocode line, in characters: what the Watch panel shows unwrapped.
inline constexpr std::size_t kWatchLineWidth = 46;

// One pseudocode line per step kind (or per phase), for the Watch panel's pane: the lines
// in the words of the algorithm's docs page, and which line each event lights.
struct WatchScript {
    struct Rule {
        WatchStep step;
        const char* phase;  // this step in this phase only; null for any phase
        int line;           // 0-based
    };
    std::vector<const char*> lines;
    std::vector<Rule> rules;
    // The cursor is a line across the world at its `at` (a sweep), rather than one body.
    bool cursor_is_line = false;

    // The line an event of `step` in `phase` lights; -1 when none does.
    int line_of(WatchStep step, std::string_view phase) const;
};

// Runs one update of `algorithm` on one thread with `recorder` attached, so what it records
// is what update() did. False when the algorithm cannot record (a peer, a GPU row).
template <int D>
bool record_update(BroadPhase<D>& algorithm, std::span<const Aabb<D>> boxes,
                   std::span<const std::uint8_t> is_static, PairList& out,
                   WatchRecorder<D>& recorder);

}  // namespace collide
