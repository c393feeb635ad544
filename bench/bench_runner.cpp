#include "bench_runner.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <variant>

#include <unistd.h>

#include "collide/broadphase_view.hpp"
#include "collide/registry.hpp"
#include "collide/tunnelling_check.hpp"
#include "churn.hpp"
#include "collide/world.hpp"
#include "subjects.hpp"
#include "tooling/ballistic.hpp"
#include "tooling/pair_check.hpp"
#include "tooling/scenes.hpp"
#include "tooling/trace.hpp"

namespace collide::bench {

struct RecordedTrace {
    std::variant<Trace<2>, Trace<3>> trace;
};

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

// The nearest-rank percentile: the smallest time that at least q of the frames do not
// exceed, one of the measured times (no interpolation); with fewer than 1 / (1 - q) frames
// that is the max.
double nearest_rank(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}

// --check for one frame: the pairs must equal the reference's, or, where the algorithm is
// its own reference, keep the contract. Returns the failure, if any.
template <int D>
std::optional<CheckFailure> check_frame(const PairList& pairs, BroadPhase<D>* ref,
                                        std::span<const Aabb<D>> boxes,
                                        std::span<const std::uint8_t> is_static, PairList& expected,
                                        const std::string& algorithm, int frame) {
    std::optional<std::string> problem;
    if (ref) {
        ref->update(boxes, is_static, expected);
        std::sort(expected.begin(), expected.end());
        problem = pair_set_difference(pairs, expected);
    } else {
        problem = pair_contract_violation<D>(pairs, boxes, is_static);
    }
    if (!problem) return std::nullopt;
    return CheckFailure{"check failed: " + algorithm + " at n=" + std::to_string(boxes.size()) +
                        ", frame " + std::to_string(frame) +
                        (ref ? " differs from the reference: " : ": ") + *problem};
}

// The bookkeeping both modes share: per timed frame its time, candidate tests, peak
// structure memory and pair counts; the budget; the percentiles at the end.
class FrameLog {
public:
    FrameLog(const RunConfig& cfg, RunResult& result)
        : cfg_(cfg), result_(result), start_(Clock::now()) {}

    // Records frame f (warm-up frames only count towards the budget). Returns false, with
    // the run marked timed out, when the budget is spent before the last frame.
    bool record(int f, double ms, std::size_t pairs, const BroadPhaseStats& stats) {
        if (f >= cfg_.warmup) {
            times_.push_back(ms);
            tests_ += static_cast<double>(stats.candidate_tests);
            reinserted_ += static_cast<double>(stats.reinserted);
            if (stats.device_ms >= 0) device_times_.push_back(stats.device_ms);
            result_.structure_bytes = std::max(result_.structure_bytes, stats.structure_bytes);
            if (f == cfg_.warmup) result_.pairs_first = pairs;
            result_.pairs_last = pairs;
        }
        if (f + 1 < cfg_.warmup + cfg_.frames &&
            std::chrono::duration<double>(Clock::now() - start_).count() > cfg_.budget_s) {
            result_.status = "timed out";
            return false;
        }
        return true;
    }

    void finish() {
        result_.frames_run = static_cast<int>(times_.size());
        result_.candidate_tests = times_.empty() ? 0 : tests_ / static_cast<double>(times_.size());
        result_.total_tests = tests_;
        result_.reinserted = times_.empty() ? 0 : reinserted_ / static_cast<double>(times_.size());
        for (double t : times_) result_.total_ms += t;
        result_.median_ms = percentile(times_, 0.5);
        result_.p10_ms = percentile(times_, 0.1);
        result_.p90_ms = percentile(times_, 0.9);
        if (!times_.empty()) {
            result_.mean_ms = result_.total_ms / static_cast<double>(times_.size());
            result_.p99_ms = nearest_rank(times_, 0.99);
            result_.max_ms = *std::max_element(times_.begin(), times_.end());
        }
        if (!device_times_.empty()) {
            double sum = 0;
            for (double t : device_times_) sum += t;
            result_.device_mean_ms = sum / static_cast<double>(device_times_.size());
            result_.device_p99_ms = nearest_rank(device_times_, 0.99);
        }
    }

private:
    const RunConfig& cfg_;
    RunResult& result_;
    Clock::time_point start_;
    std::vector<double> times_;
    std::vector<double> device_times_;  // GPU rows: their own clock
    double tests_ = 0;
    double reinserted_ = 0;
};

// The scene, with every body whose id falls in the static share made static (spread
// evenly over the ids, which scenes assign in no spatial order).
template <int D>
Scene<D> bench_scene(const RunConfig& cfg) {
    Scene<D> scene = make_scene<D>(cfg.scene, cfg.n, cfg.seed);
    if (cfg.static_fraction > 0) {
        auto& st = scene.bodies.is_static;
        for (std::size_t i = 0; i < st.size(); ++i) {
            const double before = std::floor(double(i) * cfg.static_fraction);
            if (std::floor(double(i + 1) * cfg.static_fraction) > before) st[i] = 1;
        }
    }
    // After the static share is chosen, so the same bodies are static in either order.
    if (cfg.morton_order) order_by_morton(scene.bodies);
    return scene;
}

// The last-level cache one core fills, in bytes: Linux's sysfs (what lscpu shows), else the
// C library's figure, else 16 MB. A VM's CPUID may report all the package's L3 as one (this
// project's EPYC VM: 256 MB to glibc, 32 MB in sysfs).
std::size_t last_level_bytes() {
    for (int index = 0; index < 8; ++index) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
        int level = 0;
        std::size_t kib = 0;  // the file says "32768K"
        if (std::ifstream(dir + "/level") >> level && level == 3 &&
            std::ifstream(dir + "/size") >> kib && kib > 0)
            return kib << 10;
    }
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return l3 > 0 ? static_cast<std::size_t>(l3) : std::size_t{16} << 20;
}

// --cold: writes a buffer of four times the last-level cache, so that nothing the broad
// phase or the motion left in any cache survives into the next frame. Untimed; the buffer
// lives for the whole run.
void flush_caches() {
    static std::vector<std::uint64_t> buffer(4 * last_level_bytes() / sizeof(std::uint64_t), 1);
    // One word a line, written: dirty lines of the run's own data are written back here, not
    // inside the next timed frame.
    for (std::size_t i = 0; i < buffer.size(); i += 8) buffer[i] += 1;
}

// Builds the algorithm with the --param values it has; its name in the results carries
// them, e.g. "morton-cells [persistent-cells=0]".
template <int D>
std::unique_ptr<BroadPhase<D>> make_configured(const RunConfig& cfg, const std::string& algorithm,
                                               std::string& label) {
    auto bp = make_subject<D>(algorithm);
    label = algorithm;
    std::string applied;
    // One setting the name carries, after those before it, e.g. "static=0.3".
    const auto carry = [&applied](const auto&... parts) {
        std::ostringstream v;
        v << (applied.empty() ? "" : " ");
        (v << ... << parts);
        applied += v.str();
    };
    for (const ParamSetting& s : cfg.params) {
        for (Param& p : bp->params()) {
            if (!param_matches(p.name, s.name)) continue;
            p.value = s.value;
            carry(s.name, "=", s.value);
        }
    }
    if (cfg.static_fraction > 0) carry("static=", cfg.static_fraction);
    if (cfg.resting > 0) carry("resting=", cfg.resting);
    if (cfg.morton_order) carry("order=morton");
    if (!cfg.changes && (cfg.static_fraction > 0 || cfg.resting > 0)) carry("update=whole");
    if (cfg.cold) carry("cold");
    if (cfg.sleep) carry("sleep");
    if (cfg.churn > 0) carry("churn=", cfg.churn);
    if (!applied.empty()) label.append(" [").append(applied).append("]");
    return bp;
}

// What update_changes hears in a ballistic run: the still bodies (static, or at rest) once,
// at the first frame's reset, and the moving ones every frame. Empty: the whole-array path.
struct StillBodies {
    std::vector<std::uint8_t> flags;  // per body: 1 where still
    std::vector<BodyId> still, moving;
};

template <int D>
StillBodies still_bodies(const RunConfig& cfg, const Bodies<D>& bodies) {
    StillBodies s;
    if (!cfg.changes || (cfg.static_fraction == 0 && cfg.resting == 0)) return s;
    for (BodyId id = 0; id < bodies.size(); ++id) {
        const bool still = bodies.is_static[id] != 0 || bodies.vel[id] == Vec<D>(0.0f);
        s.flags.push_back(still);
        (still ? s.still : s.moving).push_back(id);
    }
    return s;
}

// With churn, the check's reference runs on the present bodies alone (compacted), whose
// pairs it maps back to ids.
template <int D>
std::optional<CheckFailure> check_churn_frame(const PairList& pairs, BroadPhase<D>& ref,
                                              std::span<const Aabb<D>> boxes,
                                              const Churn<D>& churn, const std::string& algorithm,
                                              int frame) {
    std::vector<Aabb<D>> present;
    std::vector<std::uint8_t> still;
    std::vector<BodyId> ids;
    for (BodyId id = 0; id < boxes.size(); ++id) {
        if (!churn.present(id)) continue;
        present.push_back(boxes[id]);
        still.push_back(churn.still()[id]);
        ids.push_back(id);
    }
    PairList compact, expected;
    ref.update(present, still, compact);
    for (const Pair& p : compact) expected.push_back(make_pair(ids[p.a], ids[p.b]));
    std::sort(expected.begin(), expected.end());
    PairList got = pairs;
    std::sort(got.begin(), got.end());
    const auto problem = pair_set_difference(got, expected);
    if (!problem) return std::nullopt;
    return CheckFailure{"check failed: " + algorithm + " with churn at n=" +
                        std::to_string(boxes.size()) + ", frame " + std::to_string(frame) +
                        " differs from the reference: " + *problem};
}

// The broad phase alone, on frames from `frame_boxes(f)` (ballistic motion or a trace), fed
// whole arrays or, with `still` bodies or `churn`, what changed.
template <int D, typename Frames>
RunResult run_frames(const RunConfig& cfg, const std::string& algorithm, std::size_t n,
                     std::span<const std::uint8_t> is_static, Frames frame_boxes,
                     std::optional<CheckFailure>& failure, const StillBodies& still = {},
                     const Churn<D>* churn = nullptr) {
    std::string label;
    auto bp = make_configured<D>(cfg, algorithm, label);
    const std::string_view reference = reference_broadphase(n);
    const bool check = cfg.check && algorithm != kFloor;  // floor reports no pairs
    // With churn the reference runs even for the reference itself: it checks the changes
    // path against the whole array.
    auto ref = check && (churn || reference != algorithm) ? make_broadphase<D>(reference) : nullptr;
    const bool changes = !still.flags.empty();
    if (changes) is_static = still.flags;  // the reference's view: still bodies as static

    RunResult r{.algorithm = label, .n_bodies = n, .compared = ref != nullptr};
    FrameLog log(cfg, r);
    PairList pairs, expected;
    const std::vector<BodyId> none;
    for (int f = 0; f < cfg.warmup + cfg.frames; ++f) {
        const std::span<const Aabb<D>> boxes = frame_boxes(f);
        if (cfg.cold) flush_caches();
        const auto t0 = Clock::now();
        if (churn) {
            bp->update_changes(churn->changes(boxes, f == 0), pairs);
        } else if (changes) {
            bp->update_changes({boxes, still.moving, f == 0 ? still.still : none, none, f == 0},
                               pairs);
        } else {
            bp->update(boxes, is_static, pairs);
        }
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        if (check) {
            failure = churn ? check_churn_frame<D>(pairs, *ref, boxes, *churn, algorithm, f)
                            : check_frame<D>(pairs, ref.get(), boxes, is_static, expected, algorithm, f);
            if (failure) return r;
        }
        if (!log.record(f, ms, pairs.size(), bp->stats())) break;
    }
    log.finish();
    r.note = collide::view_of(*bp).status();
    if (runs_on_gpu(algorithm)) r.device = r.note;
    return r;
}

template <int D>
RunResult run_broad(const RunConfig& cfg, const std::string& algorithm,
                    std::optional<CheckFailure>& failure) {
    BallisticMotion<D> motion(bench_scene<D>(cfg),
                              {.speed = cfg.speed, .speeds = cfg.speeds, .resting = cfg.resting},
                              cfg.seed);
    const StillBodies still = still_bodies<D>(cfg, motion.bodies());
    std::optional<Churn<D>> churn;
    if (cfg.churn > 0) {
        std::vector<std::uint8_t> flags(motion.size());
        for (BodyId id = 0; id < flags.size(); ++id)
            flags[id] = motion.bodies().is_static[id] != 0 || motion.bodies().vel[id] == Vec<D>(0.0f);
        churn.emplace(cfg.churn, std::move(flags), cfg.seed);
    }
    return run_frames<D>(
        cfg, algorithm, motion.size(), motion.is_static(),
        [&](int f) {
            if (f > 0) motion.advance();
            if (churn) churn->frame(f, motion);
            return std::span<const Aabb<D>>(motion.boxes());
        },
        failure, still, churn ? &*churn : nullptr);
}

template <int D>
RunResult run_trace(const RunConfig& cfg, const std::string& algorithm, const Trace<D>& trace,
                    std::optional<CheckFailure>& failure) {
    return run_frames<D>(
        cfg, algorithm, trace.size(), trace.is_static(), [&](int f) { return trace.boxes(f); },
        failure);
}

template <int D>
RunResult run_step(const RunConfig& cfg, const std::string& algorithm,
                   std::optional<CheckFailure>& failure) {
    Scene<D> scene = bench_scene<D>(cfg);
    scene.settings.swept = cfg.swept;
    scene.settings.sleep = cfg.sleep;
    scene.settings.count_tunnelling |= cfg.count_tunnelling;  // bullets asks for it itself
    std::string label;
    World<D> world(scene.settings, std::move(scene.bodies),
                   make_configured<D>(cfg, algorithm, label));
    TunnellingCheck<D> tunnelling(make_broadphase<D>("sort-and-sweep"));
    const std::string_view reference = reference_broadphase(world.bodies().size());
    const bool check = cfg.check && algorithm != kFloor;  // floor reports no pairs
    auto ref = check && reference != algorithm ? make_broadphase<D>(reference) : nullptr;

    RunResult r{.algorithm = label, .n_bodies = world.bodies().size(), .compared = ref != nullptr};
    FrameLog log(cfg, r);
    std::vector<double> integrate, broad, narrow, resolve;  // per phase, timed frames only
    double asleep = 0;  // bodies asleep, summed over the timed steps
    PairList expected;
    // What the step's broad phase held still: static bodies, and those asleep as it began.
    std::vector<std::uint8_t> still;
    for (int f = 0; f < cfg.warmup + cfg.frames; ++f) {
        if (check) {
            still.resize(world.bodies().size());
            for (BodyId i = 0; i < still.size(); ++i)
                still[i] = world.bodies().is_static[i] || world.asleep(i);
        }
        step_counting_tunnelling(world, tunnelling);
        if (world.pairs_over_budget() > 0) {
            // The row is marked, not timed on: the rest of the step did not run.
            r.status =
                "over the pair budget (" + std::to_string(world.pairs_over_budget()) + " pairs)";
            break;
        }
        if (check) {
            failure = check_frame<D>(world.pairs(), ref.get(), world.boxes(), still, expected,
                                     algorithm, f);
            if (failure) return r;
        }
        const StepTimings& t = world.timings();
        if (f >= cfg.warmup) {
            integrate.push_back(t.integrate_ms);
            broad.push_back(t.broad_ms);
            narrow.push_back(t.narrow_ms);
            resolve.push_back(t.resolve_ms);
            r.impacts += static_cast<double>(world.impacts());
            r.tunnelled += tunnelling.count().last_step;
            asleep += static_cast<double>(world.sleeping());
        }
        if (!log.record(f, t.total_ms(), world.pairs().size(), world.broad_phase()->stats())) break;
    }
    log.finish();
    r.integrate_ms = percentile(integrate, 0.5);
    r.broad_ms = percentile(broad, 0.5);
    r.narrow_ms = percentile(narrow, 0.5);
    r.resolve_ms = percentile(resolve, 0.5);
    r.impacts = resolve.empty() ? 0 : r.impacts / static_cast<double>(resolve.size());
    r.tunnelling_counted = world.settings().count_tunnelling;
    if (cfg.sleep && !resolve.empty())
        r.asleep = asleep / static_cast<double>(resolve.size() * world.bodies().size());
    return r;
}

}  // namespace

std::string workload_name(const RunConfig& config) {
    switch (config.mode) {
        case Mode::kStep: return "step";
        case Mode::kTrace: return "trace";
        case Mode::kBroad: break;
    }
    return config.speeds == SpeedDistribution::kEqual ? "ballistic-equal" : "ballistic";
}

std::string result_name(const RunConfig& config, const std::string& algorithm) {
    std::string label;
    if (config.dim == 2) {
        make_configured<2>(config, algorithm, label);
    } else {
        make_configured<3>(config, algorithm, label);
    }
    return label;
}

template <int D>
Trace<D> record(const RunConfig& cfg) {
    Scene<D> scene = bench_scene<D>(cfg);
    World<D> world(scene.settings, std::move(scene.bodies),
                   make_broadphase<D>("dynamic-aabb-tree"));
    return Trace<D>::record(world, cfg.warmup + cfg.frames);
}

// The trace's file under --trace-dir: named by everything that decides the recording.
std::string trace_path(const RunConfig& cfg) {
    std::ostringstream name;
    name << cfg.scene << "-" << cfg.dim << "d-n" << cfg.n << "-seed" << cfg.seed << "-f"
         << cfg.warmup + cfg.frames << "-static" << cfg.static_fraction
         << (cfg.morton_order ? "-morton" : "");
    std::string file = name.str();
    for (char& c : file) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '_';
    }
    return (std::filesystem::path(cfg.trace_dir) / (file + ".trace")).string();
}

template <int D>
std::shared_ptr<const RecordedTrace> recorded(const RunConfig& cfg) {
    if (cfg.trace_dir.empty())
        return std::make_shared<RecordedTrace>(RecordedTrace{record<D>(cfg)});
    const std::string path = trace_path(cfg);
    if (std::filesystem::exists(path)) {
        Trace<D> t = Trace<D>::load(path);
        if (t.size() != cfg.n || t.frames() != cfg.warmup + cfg.frames)
            throw InputError(path + ": holds " + std::to_string(t.size()) + " bodies x " +
                             std::to_string(t.frames()) + " frames, not " + std::to_string(cfg.n) +
                             " x " + std::to_string(cfg.warmup + cfg.frames));
        return std::make_shared<RecordedTrace>(RecordedTrace{std::move(t)});
    }
    auto t = std::make_shared<RecordedTrace>(RecordedTrace{record<D>(cfg)});
    std::get<Trace<D>>(t->trace).save(path);
    return t;
}

std::shared_ptr<const RecordedTrace> record_trace(const RunConfig& config) {
    return config.dim == 2 ? recorded<2>(config) : recorded<3>(config);
}

RunResult run_one(const RunConfig& config, const std::string& algorithm,
                  std::optional<CheckFailure>& failure, const RecordedTrace* trace) {
    failure.reset();
    if (config.mode == Mode::kTrace) {
        if (const auto* t = std::get_if<Trace<2>>(&trace->trace))
            return run_trace<2>(config, algorithm, *t, failure);
        return run_trace<3>(config, algorithm, std::get<Trace<3>>(trace->trace), failure);
    }
    if (config.mode == Mode::kStep) {
        return config.dim == 2 ? run_step<2>(config, algorithm, failure)
                               : run_step<3>(config, algorithm, failure);
    }
    return config.dim == 2 ? run_broad<2>(config, algorithm, failure)
                           : run_broad<3>(config, algorithm, failure);
}

}  // namespace collide::bench
