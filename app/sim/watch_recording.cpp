#include "sim/watch_recording.hpp"

#include <algorithm>
#include <chrono>

#include "collide/broadphase_view.hpp"
#include "collide/gpu/catalog.hpp"
#include "sim/dim_cast.hpp"

using collide::WatchStep;

namespace collidoscope {

namespace {

// The query's lines, after the algorithm's own (at most 46 characters each, as theirs).
constexpr const char* kQueryLines[] = {
    "query(region), on the structure just built:",
    "  look in the nodes or cells it meets (lit)",
    "  skip those it misses (grey)",
    "  return each body whose box meets region",
};

// The viewer's region query() on the structure the recorded update built, as a last
// phase: the regions its trace holds (QueryTrace, filled by the query's own code; an
// algorithm that keeps none shows only the bodies found), then each body it returned.
template <int D>
void append_query(const collide::BroadPhase<D>& algorithm, const collide::Aabb<D>& region,
                  WatchTape& tape) {
    collide::QueryTrace<D> trace;
    std::vector<collide::BodyId> found;
    algorithm.query(region, found, &trace);
    const auto phase = static_cast<std::uint8_t>(tape.phases.size());
    tape.phases.emplace_back("query");
    const int first = static_cast<int>(tape.script.lines.size());
    tape.script.lines.insert(tape.script.lines.end(), std::begin(kQueryLines),
                             std::end(kQueryLines));
    // First match wins: the query's rules go before the algorithm's.
    const std::vector<collide::WatchScript::Rule> rules = {
        {WatchStep::kPhase, "query", first},     {WatchStep::kVisit, "query", first + 1},
        {WatchStep::kEnter, "query", first + 1}, {WatchStep::kPrune, "query", first + 2},
        {WatchStep::kFound, "query", first + 3}};
    tape.script.rules.insert(tape.script.rules.begin(), rules.begin(), rules.end());
    const auto add = [&](WatchStep step, collide::BodyId a, const collide::Aabb<D>& box) {
        tape.events.push_back({step, false, 0, phase, a, collide::kNoBody, 0.0f, 0, to3<D>(box)});
        ++tape.made[std::size_t(step)];
    };
    add(WatchStep::kPhase, collide::kNoBody, region);
    for (const auto& r : trace.regions) {
        const bool skipped = r.kind == collide::TraceKind::kPruned ||
                             r.kind == collide::TraceKind::kRejected;
        add(skipped ? WatchStep::kPrune : WatchStep::kVisit, collide::kNoBody, r.box);
    }
    for (const collide::BodyId id : found) add(WatchStep::kFound, id, region);
}

}  // namespace

template <int D>
WatchTape record_tape(std::string_view algorithm, collide::BroadPhase<D>& live,
                      std::span<const collide::Aabb<D>> boxes,
                      std::span<const std::uint8_t> is_static,
                      std::span<const collide::BodyId> ids, collide::BodyId focus,
                      const std::optional<collide::Aabb<D>>& query) {
    WatchTape tape;
    tape.algorithm = std::string(algorithm);
    tape.dim = D;
    tape.bodies = boxes.size();
    auto fresh = collide::make_any_broadphase<D>(algorithm);
    if (!fresh) {
        tape.not_recorded = std::string(algorithm) + " is not available in " +
                            std::to_string(D) + "D";
        return tape;
    }
    // The live instance's settings, so the recording is of the algorithm as tuned.
    const std::span<collide::Param> from = live.params();
    const std::span<collide::Param> to = fresh->params();
    for (std::size_t i = 0; i < std::min(from.size(), to.size()); ++i) to[i].value = from[i].value;

    collide::WatchLimits<D> limits;
    if (focus != collide::kNoBody) {
        // The focus as the recording numbers it (compacted boxes renumber the bodies).
        const auto it = std::find(ids.begin(), ids.end(), focus);
        limits.focus = ids.empty() ? focus : it == ids.end() ? collide::kNoBody
                                                              : collide::BodyId(it - ids.begin());
    }
    collide::WatchRecorder<D> recorder(boxes, limits);
    collide::PairList pairs;
    const auto start = std::chrono::steady_clock::now();
    if (!collide::record_update<D>(*fresh, boxes, is_static, pairs, recorder)) {
        tape.not_recorded = collide::view_of(*fresh).why_not_recorded();
        return tape;
    }
    tape.record_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    collide::WatchRecord<D>& rec = recorder.record();
    tape.script = collide::view_of(*fresh).watch_script();
    tape.phases = std::move(rec.phases);
    tape.made = rec.made;
    tape.not_kept = rec.not_kept;
    tape.everything = rec.everything;
    tape.focus = rec.everything ? collide::kNoBody : focus;
    tape.pairs = pairs.size();
    tape.ids.assign(ids.begin(), ids.end());
    tape.events.reserve(rec.events.size());
    for (const collide::WatchEvent<D>& e : rec.events)
        tape.events.push_back({e.step, e.hit, e.axis, e.phase, e.a, e.b, e.at, e.count,
                               to3<D>(e.region)});
    if (query) append_query<D>(*fresh, *query, tape);
    tape.boxes.reserve(boxes.size());
    for (const collide::Aabb<D>& b : boxes) {
        tape.boxes.push_back(to3<D>(b));
        tape.extent.grow(tape.boxes.back());
    }
    return tape;
}

template WatchTape record_tape<2>(std::string_view, collide::BroadPhase<2>&,
                                  std::span<const collide::Aabb<2>>, std::span<const std::uint8_t>,
                                  std::span<const collide::BodyId>, collide::BodyId,
                                  const std::optional<collide::Aabb<2>>&);
template WatchTape record_tape<3>(std::string_view, collide::BroadPhase<3>&,
                                  std::span<const collide::Aabb<3>>, std::span<const std::uint8_t>,
                                  std::span<const collide::BodyId>, collide::BodyId,
                                  const std::optional<collide::Aabb<3>>&);

}  // namespace collidoscope
