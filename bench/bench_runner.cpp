#include "bench_runner.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "collide/ballistic.hpp"
#include "collide/registry.hpp"
#include "collide/scenes.hpp"
#include "collide/world.hpp"

namespace collide::bench {

namespace {

using Clock = std::chrono::steady_clock;

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double at = q * static_cast<double>(v.size() - 1);
    const auto i = static_cast<std::size_t>(at);
    const double f = at - static_cast<double>(i);
    return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

std::optional<CheckFailure> compare(PairList got, PairList want, const std::string& algorithm,
                                    const std::string& reference, std::size_t n, int frame) {
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    if (got == want) return std::nullopt;
    const auto [g, w] = std::mismatch(got.begin(), got.end(), want.begin(), want.end());
    std::ostringstream msg;
    msg << "check failed: " << algorithm << " differs from " << reference << " at n=" << n << ", frame " << frame
        << " (" << got.size() << " pairs vs " << want.size() << "): ";
    if (w != want.end() && (g == got.end() || *w < *g)) {
        msg << "pair (" << w->a << "," << w->b << ") missing";
    } else if (g != got.end() && g + 1 != got.end() && *g == *(g + 1)) {
        msg << "pair (" << g->a << "," << g->b << ") reported twice";
    } else {
        msg << "pair (" << g->a << "," << g->b << ") is not in " << reference << "'s set";
    }
    return CheckFailure{msg.str()};
}

template <int D>
RunResult run_broad(const RunConfig& cfg, const std::string& algorithm, std::optional<CheckFailure>& failure) {
    BallisticMotion<D> motion(make_scene<D>(cfg.scene, cfg.n, cfg.seed), cfg.speed, cfg.seed);
    auto bp = make_broadphase<D>(algorithm);
    const std::string reference = reference_for(motion.size());
    auto ref = cfg.check && reference != algorithm ? make_broadphase<D>(reference) : nullptr;

    RunResult r{.algorithm = algorithm, .n_bodies = motion.size()};
    std::vector<double> times;
    PairList pairs, expected;
    double tests = 0;
    const auto start = Clock::now();
    for (int f = 0; f < cfg.warmup + cfg.frames; ++f) {
        const auto t0 = Clock::now();
        bp->update(motion.boxes(), motion.is_static(), pairs);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        if (ref) {
            ref->update(motion.boxes(), motion.is_static(), expected);
            failure = compare(pairs, expected, algorithm, reference, motion.size(), f);
            if (failure) return r;
        }
        if (f >= cfg.warmup) {
            times.push_back(ms);
            const BroadPhaseStats s = bp->stats();
            tests += static_cast<double>(s.candidate_tests);
            r.structure_bytes = std::max(r.structure_bytes, s.structure_bytes);
            if (f == cfg.warmup) r.pairs_first = pairs.size();
            r.pairs_last = pairs.size();
        }
        motion.advance();
        if (std::chrono::duration<double>(Clock::now() - start).count() > cfg.budget_s) {
            r.status = "timed out";
            break;
        }
    }
    r.frames_run = static_cast<int>(times.size());
    r.candidate_tests = times.empty() ? 0 : tests / static_cast<double>(times.size());
    r.median_ms = percentile(times, 0.5);
    r.p10_ms = percentile(times, 0.1);
    r.p90_ms = percentile(times, 0.9);
    return r;
}

template <int D>
RunResult run_step(const RunConfig& cfg, const std::string& algorithm, std::optional<CheckFailure>& failure) {
    Scene<D> scene = make_scene<D>(cfg.scene, cfg.n, cfg.seed);
    World<D> world(scene.settings, std::move(scene.bodies));
    world.set_broad_phase(make_broadphase<D>(algorithm));
    const std::string reference = reference_for(world.bodies().size());
    auto ref = cfg.check && reference != algorithm ? make_broadphase<D>(reference) : nullptr;

    RunResult r{.algorithm = algorithm, .n_bodies = world.bodies().size()};
    std::vector<double> total, integrate, broad, narrow, resolve;
    double tests = 0;
    PairList expected;
    const auto start = Clock::now();
    for (int f = 0; f < cfg.warmup + cfg.frames; ++f) {
        world.step();
        if (ref) {
            ref->update(world.boxes(), world.bodies().is_static, expected);
            failure = compare(world.pairs(), expected, algorithm, reference, world.bodies().size(), f);
            if (failure) return r;
        }
        if (f >= cfg.warmup) {
            const StepTimings& t = world.timings();
            total.push_back(t.total_ms());
            integrate.push_back(t.integrate_ms);
            broad.push_back(t.broad_ms);
            narrow.push_back(t.narrow_ms);
            resolve.push_back(t.resolve_ms);
            const BroadPhaseStats s = world.broad_phase()->stats();
            tests += static_cast<double>(s.candidate_tests);
            r.structure_bytes = std::max(r.structure_bytes, s.structure_bytes);
            if (f == cfg.warmup) r.pairs_first = world.pairs().size();
            r.pairs_last = world.pairs().size();
        }
        if (std::chrono::duration<double>(Clock::now() - start).count() > cfg.budget_s) {
            r.status = "timed out";
            break;
        }
    }
    r.frames_run = static_cast<int>(total.size());
    r.candidate_tests = total.empty() ? 0 : tests / static_cast<double>(total.size());
    r.median_ms = percentile(total, 0.5);
    r.p10_ms = percentile(total, 0.1);
    r.p90_ms = percentile(total, 0.9);
    r.integrate_ms = percentile(integrate, 0.5);
    r.broad_ms = percentile(broad, 0.5);
    r.narrow_ms = percentile(narrow, 0.5);
    r.resolve_ms = percentile(resolve, 0.5);
    return r;
}

}  // namespace

std::string reference_for(std::size_t n) { return n <= 20000 ? "brute-force" : "sort-and-sweep"; }

RunResult run_one(const RunConfig& config, const std::string& algorithm, std::optional<CheckFailure>& failure) {
    failure.reset();
    if (config.mode == Mode::kStep) {
        return config.dim == 2 ? run_step<2>(config, algorithm, failure) : run_step<3>(config, algorithm, failure);
    }
    return config.dim == 2 ? run_broad<2>(config, algorithm, failure) : run_broad<3>(config, algorithm, failure);
}

}  // namespace collide::bench
