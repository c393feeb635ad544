// The bench's measurement loop, separate from its command line: runs one broad phase on
// one scene at one n for a number of frames and returns the figures the tables report.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collide/core.hpp"
#include "tooling/ballistic.hpp"

namespace collide::bench {

// kBroad: the broad phase alone on ballistic bodies; kStep: whole world steps; kTrace: the
// broad phase alone on boxes recorded from world steps, the same for every subject.
enum class Mode { kBroad, kStep, kTrace };

// --param: a value for an algorithm's tunable, matched by name ('-' or '_' for spaces).
struct ParamSetting {
    std::string name;
    float value = 0;
};

struct RunConfig {
    int dim = 2;
    std::string scene = "uniform";
    std::size_t n = 10000;
    std::uint64_t seed = 1;
    int frames = 30;
    int warmup = 3;
    float speed = 0.05f;  // median displacement per frame as a fraction of the median radius
    SpeedDistribution speeds = SpeedDistribution::kMaxwellBoltzmann;
    float resting = 0;  // this share of the moving bodies at rest (not static)
    int threads = 1;
    Mode mode = Mode::kBroad;
    double budget_s = 60.0;
    bool check = false;
    std::vector<ParamSetting> params;  // applied to every algorithm that has them
    float static_fraction = 0;         // this share of the bodies made static
    // --update: with still bodies (static or resting) in broad mode, each frame tells the
    // broad phase what changed (update_changes); false: the whole array every frame.
    bool changes = true;
    bool morton_order = false;         // --order morton: bodies renumbered in Morton order
    // --cold: the caches are flushed before each frame, untimed, so a small n starts each
    // frame from memory as a large one does (the cost of cache residency, measured apart).
    bool cold = false;
    std::string trace_dir;  // --mode trace: traces are loaded from here, or recorded and saved
    bool swept = false;     // step mode: WorldSettings::swept
    bool sleep = false;     // step mode: WorldSettings::sleep
    float churn = 0;        // broad mode: this share of the bodies leaves and comes back a frame
    bool count_tunnelling = false;  // step mode: on by itself for the bullets scene
};

struct RunResult {
    std::string algorithm;
    // ok, timed out, skipped (predicted over budget), over the pair budget (N pairs)
    std::string status = "ok";
    std::size_t n_bodies = 0;  // the scene's real count (a csv scene ignores --n)
    double median_ms = 0, p10_ms = 0, p90_ms = 0;
    // Over the timed frames: the mean (what a second of frames costs), p99 by nearest rank
    // (the max when there are fewer than 100 frames) and the slowest frame.
    double mean_ms = 0, p99_ms = 0, max_ms = 0;
    double total_ms = 0;  // over the timed frames: for tiny n, where a frame is sub-microsecond
    // --mode step only: median ms per phase.
    double integrate_ms = 0, broad_ms = 0, narrow_ms = 0, resolve_ms = 0;
    double impacts = 0;  // mean per timed step: pairs met at a time of impact
    bool tunnelling_counted = false;
    std::uint64_t tunnelled = 0;  // over the timed steps
    double asleep = -1;  // --sleep: the mean share of the bodies asleep over the timed steps
    std::size_t pairs_first = 0, pairs_last = 0;
    double candidate_tests = 0;       // mean per frame
    double total_tests = 0;           // over the timed frames
    double reinserted = 0;            // mean per frame: bodies re-bucketed / re-inserted
    std::size_t structure_bytes = 0;  // peak over the frames
    int frames_run = 0;
    // mean_ms over floor's mean at the same n in the same invocation; < 0 if floor did not
    // run there.
    double x_floor = -1;
    // --check: compared with another algorithm every frame, or (when it is the reference
    // itself) only checked against the contract.
    bool compared = false;
    // What the algorithm says of itself after the last frame (auto: what it measured and
    // chose; a GPU row: its GL renderer); printed to stderr.
    std::string note{};
    // GPU rows: the GPU's own time per timed frame (GL timer queries, without the uploads
    // and downloads that mean_ms includes), and the GL renderer that ran them; -1 and
    // empty for the CPU.
    double device_mean_ms = -1, device_p99_ms = -1;
    std::string device{};
};

// A pair-set mismatch found by --check.
struct CheckFailure {
    std::string message;
};

// The workload in the results: "ballistic" (Maxwell-Boltzmann speeds), "ballistic-equal",
// "trace" or "step".
std::string workload_name(const RunConfig& config);

// The algorithm's name in the results: with the --param values it took and the static share.
std::string result_name(const RunConfig& config, const std::string& algorithm);

// --mode trace: the boxes of warmup + frames world steps of the scene, recorded once per n
// and replayed to every subject; with a trace_dir, loaded from the file a run with the same
// scene, n, seed, frames, static share and order saved there (or recorded and saved).
struct RecordedTrace;
std::shared_ptr<const RecordedTrace> record_trace(const RunConfig& config);

// Runs `algorithm` (on `trace` in trace mode); throws InputError for a bad scene. A --check
// mismatch is returned.
RunResult run_one(const RunConfig& config, const std::string& algorithm,
                  std::optional<CheckFailure>& failure, const RecordedTrace* trace = nullptr);

}  // namespace collide::bench
