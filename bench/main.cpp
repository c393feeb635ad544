// collidoscope-bench: measures every broad phase on the same scenes, headless. The whole
// command line is parsed and validated (bench_cli.cpp) before anything runs; here, the runs
// and the output.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <tbb/task_arena.h>
#include <nlohmann/json.hpp>

#include "bench_cli.hpp"
#include "bench_runner.hpp"
#include "collide/gpu/catalog.hpp"
#include "collide/gpu/compute_context.hpp"
#include "subjects.hpp"
#include "tooling/input_error.hpp"

namespace {

using namespace collide;
using namespace collide::bench;

// A measured figure as the JSON shows it: six significant digits, whole values without a
// fraction ("1", not "1.0").
nlohmann::ordered_json figure(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v);
    const double rounded = std::strtod(text, nullptr);
    if (rounded == std::trunc(rounded) && std::abs(rounded) < 1e15)
        return static_cast<std::int64_t>(rounded);
    return rounded;
}

// One result per line, as {"key": value, ...}, which greps and diffs read well.
std::string one_line(const nlohmann::ordered_json& object) {
    std::string line;
    for (const auto& [key, value] : object.items())
        line += (line.empty() ? "{" : ", ") + nlohmann::json(key).dump() + ": " + value.dump();
    return line + "}";
}

nlohmann::ordered_json to_json(const Options& o, const RunResult& r) {
    const bool step = o.run.mode == Mode::kStep;
    nlohmann::ordered_json j = {
        {"algorithm", r.algorithm},
        {"dim", o.run.dim},
        {"scene", o.run.scene},
        {"n", r.n_bodies},
        {"threads", o.run.threads},
        {"speed", figure(o.run.speed)},
        {"mode", step                         ? "step"
                 : o.run.mode == Mode::kTrace ? "trace"
                                              : "broad"},
        {"workload", workload_name(o.run)},
        {"status", r.status},
        {"frames", r.frames_run},
        {"median_ms", figure(r.median_ms)},
        {"mean_ms", figure(r.mean_ms)},
        {"x_floor", r.x_floor >= 0 ? figure(r.x_floor) : nullptr},
        {"p10_ms", figure(r.p10_ms)},
        {"p90_ms", figure(r.p90_ms)},
        {"p99_ms", figure(r.p99_ms)},
        {"max_ms", figure(r.max_ms)},
        {"pairs_first", r.pairs_first},
        {"pairs_last", r.pairs_last},
        {"total_ms", figure(r.total_ms)},
        {"candidate_tests", std::llround(r.candidate_tests)},
        {"total_tests", std::llround(r.total_tests)},
        {"structure_bytes", r.structure_bytes},
        {"reinserted", figure(r.reinserted)},
        {"device_mean_ms", r.device_mean_ms >= 0 ? figure(r.device_mean_ms) : nullptr},
        {"device_p99_ms", r.device_p99_ms >= 0 ? figure(r.device_p99_ms) : nullptr},
        {"device", r.device.empty() ? "cpu" : r.device},
    };
    if (step) {
        j["integrate_ms"] = figure(r.integrate_ms);
        j["broad_ms"] = figure(r.broad_ms);
        j["narrow_ms"] = figure(r.narrow_ms);
        j["resolve_ms"] = figure(r.resolve_ms);
        j["swept"] = o.run.swept;
        j["impacts"] = figure(r.impacts);
        if (r.tunnelling_counted) j["tunnelled"] = r.tunnelled;
        if (r.asleep >= 0) j["asleep"] = figure(r.asleep);
    }
    return j;
}

void write(std::ostream& os, const Options& o, const std::vector<RunResult>& results) {
    const bool step = o.run.mode == Mode::kStep;
    if (o.format == "json") {
        os << "[\n";
        for (std::size_t i = 0; i < results.size(); ++i)
            os << "  " << one_line(to_json(o, results[i])) << (i + 1 < results.size() ? "," : "")
               << "\n";
        os << "]\n";
        return;
    }
    const bool csv = o.format == "csv";
    std::vector<std::string> head = {
        "algorithm",    "dim",         "scene",           "n",
        "threads",      "speed",       "workload",        "status",
        "frames",       "median_ms",   "mean_ms",         "x_floor",
        "p10_ms",       "p90_ms",      "p99_ms",          "max_ms",
        "pairs_first",  "pairs_last",  "candidate_tests", "structure_bytes",
        "total_ms",     "total_tests", "reinserted",      "device_mean_ms",
        "device_p99_ms"};
    if (step) {
        head.insert(head.end(), {"integrate_ms", "broad_ms", "narrow_ms", "resolve_ms", "swept",
                                 "impacts", "tunnelled", "asleep"});
    }
    std::vector<std::vector<std::string>> rows;
    const auto fmt = [](double v, int digits) {
        std::ostringstream s;
        s << std::fixed << std::setprecision(digits) << v;
        return s.str();
    };
    for (std::size_t i = 0; i < results.size(); ++i) {
        const RunResult& r = results[i];
        std::vector<std::string> row = {r.algorithm,
                                        std::to_string(o.run.dim),
                                        o.run.scene,
                                        std::to_string(r.n_bodies),
                                        std::to_string(o.run.threads),
                                        fmt(o.run.speed, 3),
                                        workload_name(o.run),
                                        r.status,
                                        std::to_string(r.frames_run),
                                        fmt(r.median_ms, 3),
                                        fmt(r.mean_ms, 3),
                                        r.x_floor >= 0 ? fmt(r.x_floor, 2) : "-",
                                        fmt(r.p10_ms, 3),
                                        fmt(r.p90_ms, 3),
                                        fmt(r.p99_ms, 3),
                                        fmt(r.max_ms, 3),
                                        std::to_string(r.pairs_first),
                                        std::to_string(r.pairs_last),
                                        fmt(r.candidate_tests, 0),
                                        std::to_string(r.structure_bytes),
                                        fmt(r.total_ms, 3),
                                        fmt(r.total_tests, 0),
                                        fmt(r.reinserted, 0),
                                        r.device_mean_ms >= 0 ? fmt(r.device_mean_ms, 3) : "-",
                                        r.device_p99_ms >= 0 ? fmt(r.device_p99_ms, 3) : "-"};
        if (step) {
            for (double v : {r.integrate_ms, r.broad_ms, r.narrow_ms, r.resolve_ms})
                row.push_back(fmt(v, 3));
            row.push_back(o.run.swept ? "on" : "off");
            row.push_back(fmt(r.impacts, 1));
            row.push_back(r.tunnelling_counted ? std::to_string(r.tunnelled) : "-");
            row.push_back(r.asleep >= 0 ? fmt(r.asleep, 3) : "-");
        }
        rows.push_back(std::move(row));
    }
    if (csv) {
        for (std::size_t c = 0; c < head.size(); ++c)
            os << head[c] << (c + 1 < head.size() ? "," : "\n");
        for (const auto& row : rows) {
            for (std::size_t c = 0; c < row.size(); ++c)
                os << row[c] << (c + 1 < row.size() ? "," : "\n");
        }
        return;
    }
    std::vector<std::size_t> width(head.size());
    for (std::size_t c = 0; c < head.size(); ++c) {
        width[c] = head[c].size();
        for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
    }
    const auto print_row = [&](const std::vector<std::string>& row) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            os << (c < 3 || c == 6 || c == 7 ? std::left : std::right)
               << std::setw(static_cast<int>(width[c])) << row[c]
               << (c + 1 < row.size() ? "  " : "\n");
        }
    };
    print_row(head);
    for (const auto& row : rows) print_row(row);
}

}  // namespace

int run_options(const Options& o);

int run(int argc, char** argv) {
    Options o;
    try {
        o = parse_command_line(argc, argv);
    } catch (const InputError& e) {
        std::cerr << "collidoscope-bench: " << e.what() << "\n(see collidoscope-bench --help)\n";
        return 2;
    }
    if (o.action == Action::kHelp) {
        std::cout << help_text();
        return 0;
    }
    if (o.action == Action::kList) {
        print_list();
        return 0;
    }
    for (const std::string& w : o.warnings)
        std::cerr << "collidoscope-bench: warning: " << w << "\n";
    // The engine runs on the arena it is called from: --threads is handed in as this one.
    tbb::task_arena threads(o.run.threads);
    return threads.execute([&] { return run_options(o); });
}

int run_options(const Options& o) {
    std::vector<RunResult> results;
    // Per algorithm, the last two n it finished with their medians: an algorithm whose single
    // frame at the next n would exceed the budget is skipped rather than started. The growth
    // is extrapolated with the exponent measured between those two runs (held to [1, 2]; 2
    // after a single run), so an n log n algorithm is not skipped as if it were quadratic.
    struct Measured {
        std::size_t n = 0;
        double ms = 0;
    };
    std::map<std::string, std::pair<Measured, Measured>> last_run;  // (earlier, latest)
    std::vector<std::string> timed_out;                             // skipped at larger n
    std::vector<std::string> uncompared;  // --check could only check the contract
    bool unchecked_floor = false;         // --check with all: floor ran, not checked
    for (std::size_t n : o.counts) {
        std::vector<std::string> algorithms = o.algorithms;
        if (algorithms.empty()) {
            for (const auto table : {references(), all_broadphases()}) {
                for (const auto& e : table) {
                    if (!e.supports(o.run.dim) ||
                        (e.name == kReferenceBroadPhase && n > kMaxReferenceBodies)) {
                        continue;
                    }
                    // Every row runs, the GPU's too where a GL 4.3 context can be had.
                    if (const auto why = gpu_unavailable_reason(e.name)) {
                        if (n == o.counts.front())
                            std::cerr << "bench: " << e.name << " left out: " << *why << "\n";
                        continue;
                    }
                    algorithms.emplace_back(e.name);
                }
            }
        }
        // floor first, so that every other result at this n can be divided by it.
        std::stable_partition(algorithms.begin(), algorithms.end(),
                              [](const std::string& a) { return a == kFloor; });
        const std::size_t first_result = results.size();
        double floor_ms = -1;
        std::shared_ptr<const RecordedTrace> trace;  // --mode trace: recorded at first use
        for (const std::string& a : algorithms) {
            RunConfig cfg = o.run;
            cfg.n = n;
            RunResult r{.algorithm = result_name(cfg, a), .n_bodies = n};
            double predicted_ms = 0.0;
            if (const auto last = last_run.find(a);
                last != last_run.end() && last->second.second.n > 0) {
                const auto& [earlier, latest] = last->second;
                double exponent = 2.0;
                if (earlier.n > 0 && earlier.n < latest.n && earlier.ms > 0 && latest.ms > 0) {
                    exponent = std::clamp(std::log(latest.ms / earlier.ms) /
                                              std::log(double(latest.n) / double(earlier.n)),
                                          1.0, 2.0);
                }
                predicted_ms = latest.ms * std::pow(double(n) / double(latest.n), exponent);
            }
            if (std::find(timed_out.begin(), timed_out.end(), a) != timed_out.end()) {
                r.status = "skipped";
            } else if (predicted_ms > 1000.0 * o.run.budget_s) {
                r.status = "skipped (predicted over budget)";
            } else {
                std::cerr << "bench: " << a << " n=" << n << " ..." << std::flush;
                std::optional<CheckFailure> failure;
                try {
                    if (cfg.mode == Mode::kTrace && !trace) {
                        std::cerr << "a trace of " << cfg.warmup + cfg.frames
                                  << " world steps (recorded or loaded, not timed) ..."
                                  << std::flush;
                        trace = record_trace(cfg);
                        std::cerr << " done; " << a << " ..." << std::flush;
                    }
                } catch (const InputError& e) {
                    std::cerr << "\ncollidoscope-bench: --trace-dir: " << e.what() << "\n";
                    return 2;
                }
                try {
                    r = run_one(cfg, a, failure, trace.get());
                } catch (const InputError& e) {
                    std::cerr << "\ncollidoscope-bench: --scene: " << e.what() << "\n";
                    return 2;
                }
                std::cerr << " " << r.status << ", median " << r.median_ms << " ms, mean "
                          << r.mean_ms << " ms\n";
                if (!r.note.empty()) std::cerr << "  " << r.note << "\n";
                if (r.device_mean_ms >= 0) {
                    std::cerr << "  device-only (GL timer queries): mean " << r.device_mean_ms
                              << " ms, p99 " << r.device_p99_ms << " ms\n";
                }
                if (failure) {
                    std::cerr << "collidoscope-bench: " << failure->message << "\n";
                    return 1;
                }
                if (r.status == "timed out") timed_out.push_back(a);
                if (a == kFloor && r.status == "ok" && r.mean_ms > 0) floor_ms = r.mean_ms;
                if (o.run.check && a == kFloor) unchecked_floor = true;
                auto& runs = last_run[a];
                runs = {runs.second, {n, r.median_ms}};
                if (o.run.check && !r.compared && a != kFloor)
                    uncompared.push_back(a + " at n=" + std::to_string(r.n_bodies));
            }
            results.push_back(r);
        }
        if (floor_ms > 0) {
            for (std::size_t i = first_result; i < results.size(); ++i) {
                if (results[i].frames_run > 0) results[i].x_floor = results[i].mean_ms / floor_ms;
            }
        }
    }
    if (o.out.empty()) {
        write(std::cout, o, results);
    } else {
        std::ofstream file(o.out);
        if (!file) {
            std::cerr << "collidoscope-bench: cannot write '" << o.out << "'\n";
            return 2;
        }
        write(file, o, results);
    }
    if (o.run.check) {
        std::cerr << "bench: --check passed: every frame of every run matched its reference";
        if (!uncompared.empty()) {
            std::cerr << ", except where the algorithm is its own reference (";
            for (std::size_t i = 0; i < uncompared.size(); ++i)
                std::cerr << (i ? ", " : "") << uncompared[i];
            std::cerr << "): there only the contract was checked (a < b, each pair once, boxes "
                         "overlap, no two static bodies)";
        }
        if (unchecked_floor) std::cerr << "; floor ran unchecked (it reports no pairs)";
        std::cerr << "\n";
    }
    return 0;
}

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const collide::gpu::GpuError& e) {
        // A GPU row named, or checked, where no GL 4.3 context can be had.
        std::cerr << "collidoscope-bench: " << e.what() << "\n";
        return 2;
    }
}
