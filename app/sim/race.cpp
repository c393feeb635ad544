#include "sim/race.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "collide/gpu/catalog.hpp"
#include "sim/algorithm_policy.hpp"
#include "tooling/pair_check.hpp"

namespace collidoscope {

template <int D>
void Race<D>::make_runners() {
    if (!runners_.empty()) return;
    for (const collide::BroadPhaseEntry& e : collide::all_broadphases()) {
        if (!e.supports(D)) continue;
        if (auto why = collide::gpu_unavailable_reason(e.name)) {
            runners_.push_back({std::string(e.name), nullptr, 0, "cannot run here: " + *why});
            continue;
        }
        runners_.push_back({std::string(e.name), collide::make_any_broadphase<D>(e.name), 0, {}});
    }
}

template <int D>
void Race<D>::time_update(Runner& r, std::span<const collide::Aabb<D>> boxes,
                          std::span<const std::uint8_t> is_static, collide::PairList& pairs,
                          RaceEntry& e) {
    const auto start = std::chrono::steady_clock::now();
    r.algorithm->update(boxes, is_static, pairs);
    e.ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    r.last_ms = e.ms;
    e.ran = true;
    e.pairs = pairs.size();
    const collide::BroadPhaseStats stats = r.algorithm->stats();
    e.tests = stats.candidate_tests;
    e.structure_bytes = stats.structure_bytes;
    e.nodes = stats.nodes;
}

template <int D>
std::optional<std::string> Race<D>::over_budget(const Runner& r, std::size_t n) {
    char text[160];
    if (const double tests = brute_force_tests_past_limit(r.name, n); tests > 0) {
        std::snprintf(text, sizeof text, "%s: %.1e tests at this n, paused", r.name.c_str(), tests);
        return text;
    }
    if (r.last_ms > kRaceLiveCutoffMs) {
        std::snprintf(text, sizeof text, "%s: %.0f ms last frame, over the %.0f ms budget: paused",
                      r.name.c_str(), r.last_ms, kRaceLiveCutoffMs);
        return text;
    }
    return std::nullopt;
}

std::optional<std::string> too_slow_to_run_once(std::string_view name, std::size_t n) {
    const double seconds =
        brute_force_tests_past_limit(name, n) / kBruteForceSlowestTestsPerSecond;
    if (seconds <= kRunOnceMaxSeconds) return std::nullopt;
    char text[200];
    std::snprintf(text, sizeof text,
                  "%.*s at %zu bodies: up to %.0f s for one frame, with the window stopped; too "
                  "slow to run even once",
                  static_cast<int>(name.size()), name.data(), n, seconds);
    return text;
}

template <int D>
std::optional<RaceEntry> Race<D>::run_one(std::string_view name,
                                          std::span<const collide::Aabb<D>> boxes,
                                          std::span<const std::uint8_t> is_static, bool once) {
    make_runners();
    for (Runner& r : runners_) {
        if (r.name != name) continue;
        RaceEntry e;
        e.name = r.name;
        if (!r.algorithm) {
            e.note = r.unavailable;
            return e;
        }
        e.note = (once ? too_slow_to_run_once(r.name, boxes.size())
                       : over_budget(r, boxes.size()))
                     .value_or("");
        if (e.note.empty()) time_update(r, boxes, is_static, pairs_, e);
        return e;
    }
    return std::nullopt;
}

template <int D>
collide::BroadPhase<D>* Race<D>::algorithm(std::string_view name) {
    make_runners();
    for (const Runner& r : runners_) {
        if (r.name == name) return r.algorithm.get();
    }
    return nullptr;
}

template <int D>
void Race<D>::run(std::span<const collide::Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                  std::uint64_t step, bool live, RaceReport& out) {
    make_runners();
    const std::size_t n = boxes.size();
    out.entries.clear();
    out.bodies = n;
    out.step = step;
    out.reference = collide::reference_broadphase(n);

    // The reference first (always run, live or not), so the others can be compared.
    out.entries.resize(runners_.size());
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < runners_.size(); ++i) {
        if (runners_[i].name == out.reference)
            order.insert(order.begin(), i);
        else
            order.push_back(i);
    }
    for (const std::size_t i : order) {
        Runner& r = runners_[i];
        RaceEntry& e = out.entries[i];
        e = RaceEntry{};
        e.name = r.name;
        const bool is_reference = r.name == out.reference;
        if (!r.algorithm) {
            e.note = r.unavailable;
            continue;
        }
        if (r.name == collide::kReferenceBroadPhase && n > collide::kMaxReferenceBodies) {
            e.note = over_budget(r, n).value_or("");
            continue;
        }
        if (live && !is_reference && r.last_ms > kRaceLiveCutoffMs) {
            e.note = "slow last time: run once to time it again";
            continue;
        }
        collide::PairList& pairs = is_reference ? reference_ : pairs_;
        time_update(r, boxes, is_static, pairs, e);
        if (is_reference) {
            std::sort(reference_.begin(), reference_.end());
            e.note = "the reference";
        } else {
            const auto difference = collide::pair_set_difference(pairs_, reference_);
            e.note = difference.value_or("");
            e.differs = difference.has_value();
        }
    }
}

template class Race<2>;
template class Race<3>;

}  // namespace collidoscope
