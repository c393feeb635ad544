#include "sim/watch_recording.hpp"

#include <algorithm>
#include <chrono>

#include "collide/broadphase_view.hpp"
#include "collide/gpu/catalog.hpp"
#include "sim/dim_cast.hpp"

namespace collidoscope {

template <int D>
WatchTape record_tape(std::string_view algorithm, collide::BroadPhase<D>& live,
                      std::span<const collide::Aabb<D>> boxes,
                      std::span<const std::uint8_t> is_static,
                      std::span<const collide::BodyId> ids, collide::BodyId focus) {
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
    tape.boxes.reserve(boxes.size());
    for (const collide::Aabb<D>& b : boxes) {
        tape.boxes.push_back(to3<D>(b));
        tape.extent.grow(tape.boxes.back());
    }
    return tape;
}

template WatchTape record_tape<2>(std::string_view, collide::BroadPhase<2>&,
                                  std::span<const collide::Aabb<2>>, std::span<const std::uint8_t>,
                                  std::span<const collide::BodyId>, collide::BodyId);
template WatchTape record_tape<3>(std::string_view, collide::BroadPhase<3>&,
                                  std::span<const collide::Aabb<3>>, std::span<const std::uint8_t>,
                                  std::span<const collide::BodyId>, collide::BodyId);

}  // namespace collidoscope
