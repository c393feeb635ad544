#include "collide/watch.hpp"

#include <algorithm>
#include <cassert>
#include <string>

#include <tbb/task_arena.h>

#include "collide/broadphase.hpp"
#include "collide/broadphase_view.hpp"

namespace collide {

const char* step_name(WatchStep step) {
    static constexpr std::array<const char*, std::size_t(WatchStep::kCount)> kNames = {
        "phase", "visit", "enter", "prune", "place", "cursor",
        "active add", "active drop", "jump", "test", "emit", "found"};
    return kNames[std::size_t(step)];
}

std::optional<WatchStep> step_named(std::string_view name) {
    for (std::size_t k = 0; k < std::size_t(WatchStep::kCount); ++k) {
        std::string known = step_name(WatchStep(k));
        std::replace(known.begin(), known.end(), ' ', '-');
        if (name == known) return WatchStep(k);
    }
    return std::nullopt;
}

template <int D>
WatchRecorder<D>::WatchRecorder(std::span<const Aabb<D>> boxes, const WatchLimits<D>& limits)
    : boxes_(boxes), limits_(limits), keep_all_(boxes.size() <= limits.keep_all_up_to) {
    if (!keep_all_ && limits_.focus < boxes.size()) focus_box_ = boxes[limits_.focus];
    if (!keep_all_) {
        record_.everything = false;
        record_.focus = limits_.focus < boxes.size() ? limits_.focus : kNoBody;
    }
}

template <int D>
void WatchRecorder<D>::keep(WatchEvent<D> e) {
    ++record_.made[std::size_t(e.step)];
    if (!record_.phases.empty()) e.phase = std::uint8_t(record_.phases.size() - 1);
    if (record_.events.size() < limits_.max_events) {
        record_.events.push_back(e);
    } else {
        ++record_.not_kept;
        record_.everything = false;
    }
}

template <int D>
void WatchRecorder<D>::phase(const char* name) {
    assert(record_.phases.size() < 255 && "a phase index is one byte");
    record_.phases.emplace_back(name);
    // Phases are always kept: they are few, and they frame the rest.
    WatchEvent<D> e;
    e.step = WatchStep::kPhase;
    keep(e);
}

template <int D>
void WatchRecorder<D>::place_kept(BodyId a, const Aabb<D>& region) {
    WatchEvent<D> e;
    e.step = WatchStep::kPlace;
    e.a = a;
    e.region = region;
    keep(e);
}

template <int D>
void WatchRecorder<D>::body_event(WatchStep step, BodyId a, int axis, float at) {
    assert(a < boxes_.size());
    WatchEvent<D> e;
    e.step = step;
    e.a = a;
    e.axis = std::uint8_t(axis);
    e.at = at;
    keep(e);
}

template <int D>
void WatchRecorder<D>::jump_kept(BodyId from, BodyId to, std::uint32_t skipped) {
    WatchEvent<D> e;
    e.step = WatchStep::kJump;
    e.a = from;
    e.b = to;
    e.count = skipped;
    keep(e);
}

template <int D>
void WatchRecorder<D>::pair_event(WatchStep step, BodyId a, BodyId b, bool hit) {
    WatchEvent<D> e;
    e.step = step;
    e.a = a;
    e.b = b;
    e.hit = hit;
    keep(e);
}

int WatchScript::line_of(WatchStep step, std::string_view phase) const {
    for (const Rule& r : rules) {
        if (r.step == step && (r.phase == nullptr || phase == r.phase)) return r.line;
    }
    return -1;
}

template <int D>
bool record_update(BroadPhase<D>& algorithm, std::span<const Aabb<D>> boxes,
                   std::span<const std::uint8_t> is_static, PairList& out,
                   WatchRecorder<D>& recorder) {
    auto* view = dynamic_cast<BroadPhaseView<D>*>(&algorithm);
    if (view == nullptr || !view->set_watch(&recorder)) {
        out.clear();
        return false;
    }
    // One thread, so the events come in the order the work was done; the pairs are the same
    // on any number of threads (the contract), so nothing is hidden by it.
    tbb::task_arena one(1);
    one.execute([&] { algorithm.update(boxes, is_static, out); });
    view->set_watch(nullptr);
    return true;
}

template class WatchRecorder<2>;
template class WatchRecorder<3>;
template bool record_update<2>(BroadPhase<2>&, std::span<const Aabb<2>>,
                               std::span<const std::uint8_t>, PairList&, WatchRecorder<2>&);
template bool record_update<3>(BroadPhase<3>&, std::span<const Aabb<3>>,
                               std::span<const std::uint8_t>, PairList&, WatchRecorder<3>&);

}  // namespace collide
