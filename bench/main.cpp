// collidoscope-bench: measures every broad phase on the same scenes, headless.
// Parses and validates the whole command line before running anything.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <tbb/global_control.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench_runner.hpp"
#include "collide/registry.hpp"
#include "subjects.hpp"
#include "tooling/parse.hpp"
#include "tooling/scenes.hpp"

namespace {

using namespace collide;
using namespace collide::bench;

enum class Action { kRun, kHelp, kList };

struct Options {
    Action action = Action::kRun;
    RunConfig run;
    std::vector<std::size_t> counts{10000};
    std::vector<std::string> algorithms;  // empty = all
    std::string format = "table";
    std::string out;
    bool list = false;
};

template <typename T>
T number(const std::string& flag, std::string_view text, T min, T max) {
    const auto v = parse_number<T>(text);
    if (!v || *v < min || *v > max) {
        std::ostringstream msg;
        msg << flag << ": '" << text << "' must be a number from " << min << " to " << max;
        throw InputError(msg.str());
    }
    return *v;
}

// The command line's grammar and its help text, in one place: each flag with its
// description and what its value sets. CLI11 runs the setters once the whole line is
// read, in the order below; they throw InputError naming the bad value.
void define_flags(CLI::App& app, Options& o) {
    app.set_help_flag();  // ours below: --help wins over mistakes (see parse)
    app.allow_extras();   // reported by parse in our words
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.get_formatter()->column_width(28);
    app.get_formatter()->label("OPTIONS", "options");
    using Setter = std::function<void(const std::string&)>;
    const auto value = [&](const std::string& flag, const char* type, const char* help,
                           Setter set) {
        return app.add_option_function<std::string>(flag, std::move(set), help)->type_name(type);
    };
    const auto bounded = [&]<typename T>(const std::string& flag, T& to, T min, T max,
                                         const char* type, const char* help) {
        value(flag, type, help,
              [&to, flag, min, max](const std::string& v) { to = number<T>(flag, v, min, max); });
    };
    const auto choice = [&](const std::string& flag, std::vector<std::string> choices,
                            const char* help, Setter set) {
        std::string type, names;
        for (std::size_t i = 0; i < choices.size(); ++i) {
            type += (i ? "|" : "") + choices[i];
            names += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
        }
        value(flag, "", help, [=](const std::string& v) {
            if (std::find(choices.begin(), choices.end(), v) == choices.end())
                throw InputError(flag + ": '" + v + "' must be " + names);
            set(v);
        })->type_name(type);
    };
    const auto toggle = [&](const char* flag, bool& to, const char* help) {
        app.add_flag(flag, to, help)->disable_flag_override();
    };
    choice("--dim", {"2", "3"}, "dimension (default 2)",
           [&](const std::string& v) { o.run.dim = v == "3" ? 3 : 2; });
    app.add_option("--scene", o.run.scene, "scene (default uniform); --list shows them")
        ->type_name("NAME|csv:PATH");
    value("--n", "N[,N...]", "body counts (default 10000)", [&](const std::string& v) {
        o.counts.clear();
        for (auto part : split(v, ','))
            o.counts.push_back(number<std::size_t>("--n", part, 0, kMaxBodies));
    });
    value("--broadphase", "all|A[,B]",
          "algorithms (default all; brute force joins 'all' only up to n=10000);\n"
          "also the references: floor (run first; x_floor divides by its\n"
          "median) and the peers this build has (--list)",
          [&](const std::string& v) {
              o.algorithms.clear();
              if (v == "all") return;
              for (auto part : split(v, ',')) o.algorithms.emplace_back(part);
          });
    bounded("--frames", o.run.frames, 1, 1000000, "F", "timed frames (default 30)");
    bounded("--warmup", o.run.warmup, 0, 1000000, "W", "untimed frames first (default 3)");
    bounded("--speed", o.run.speed, 0.0f, 1000.0f, "S",
            "displacement per frame / median radius (default 0.05)");
    choice("--mode", {"broad", "step"}, "time the broad phase alone (default) or whole world steps",
           [&](const std::string& v) { o.run.mode = v == "step" ? Mode::kStep : Mode::kBroad; });
    toggle("--swept", o.run.swept, "step mode: swept boxes and time-of-impact contacts");
    toggle("--tunnelling", o.run.count_tunnelling,
           "step mode: count pairs that pass through each other (always\n"
           "on for the bullets scene; timed apart from the step)");
    bounded("--threads", o.run.threads, 1, 1024, "T", "oneTBB threads (default 1)");
    bounded("--seed", o.run.seed, std::uint64_t{0}, UINT64_MAX, "S", "scene seed (default 1)");
    bounded("--budget", o.run.budget_s, 0.001, 1e6, "SECONDS",
            "time cap per algorithm and n (default 60)");
    app.add_option_function<std::vector<std::string>>(
           "--param",
           [&](const std::vector<std::string>& settings) {
               for (const std::string& v : settings) {
                   const auto eq = v.find('=');
                   if (eq == std::string::npos || eq == 0)
                       throw InputError("--param: '" + v + "' must be NAME=VALUE");
                   const std::string name = v.substr(0, eq);
                   o.run.params.push_back(
                       {name, number<float>("--param " + name, v.substr(eq + 1), -1e9f, 1e9f)});
               }
           },
           "set an algorithm's tunable (repeatable; '-' for spaces in\n"
           "NAME), e.g. --param persistent-cells=0; names in --list")
        ->type_name("NAME=VALUE")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
    bounded("--static", o.run.static_fraction, 0.0f, 1.0f, "F",
            "make this share of the bodies static (default 0)");
    choice("--order", {"scene", "morton"},
           "body ids as the scene gives them (default), or renumbered in\n"
           "the Morton order of the centres (neighbours near in memory)",
           [&](const std::string& v) { o.run.morton_order = v == "morton"; });
    toggle("--check", o.run.check, "compare every frame's pairs with the reference");
    choice("--format", {"table", "csv", "json"}, "output format (default table)",
           [&](const std::string& v) { o.format = v; });
    value("--out", "FILE", "write the results to FILE instead of stdout",
          [&](const std::string& v) {
              o.out = v;
              // Fail now rather than after minutes of measuring.
              std::error_code ec;
              if (o.out.empty() || std::filesystem::is_directory(o.out, ec))
                  throw InputError("--out: '" + o.out + "' is not a file name");
              const auto dir = std::filesystem::absolute(o.out, ec).parent_path();
              if (ec || !std::filesystem::is_directory(dir, ec))
                  throw InputError("--out: folder '" + dir.string() + "' does not exist");
          });
    toggle("--list", o.list, "list algorithms and scenes");
    app.add_flag("-h,--help")->description("show this text")->disable_flag_override();
}

std::string help_text() {
    Options o;
    CLI::App app("", "collidoscope-bench");
    define_flags(app, o);
    return app.help();
}

void list_entry(const BroadPhaseEntry& e) {
    std::cout << "  " << std::left << std::setw(20) << e.name << (e.in_2d ? "2D " : "   ")
              << (e.in_3d ? "3D " : "   ") << e.description << "\n";
    const auto print_params = [](auto bp) {
        for (const Param& p : bp->params()) {
            std::string name = p.name;
            std::replace(name.begin(), name.end(), ' ', '-');
            std::cout << "  " << std::setw(20) << "" << "--param " << name << "=" << p.value
                      << (p.toggle ? "  (0 or 1)" : "") << "\n";
        }
    };
    e.in_2d ? print_params(e.make_2d()) : print_params(e.make_3d());
}

void list() {
    std::cout << "algorithms:\n";
    for (const auto& e : broadphases()) list_entry(e);
    std::cout << "references (bench only; peers are built when their packages are found):\n";
    for (const auto& e : references()) list_entry(e);
    std::cout << "scenes:\n";
    for (const auto& s : scene_list())
        std::cout << "  " << std::left << std::setw(20) << s.name << s.description << "\n";
    std::cout << "  " << std::left << std::setw(20) << "csv:PATH"
              << "bodies from a CSV file\n";
}

// Every --param must name a tunable of at least one algorithm to be run, with a value in
// its range for each algorithm that has it.
template <int D>
void check_params_in(const Options& o) {
    for (const ParamSetting& s : o.run.params) {
        bool known = false;
        for (const auto table : {broadphases(), references()}) {
            for (const BroadPhaseEntry& e : table) {
                if (!o.algorithms.empty() && std::find(o.algorithms.begin(), o.algorithms.end(),
                                                       e.name) == o.algorithms.end())
                    continue;
                auto bp = make_subject<D>(e.name);
                if (!bp) continue;
                for (const Param& p : bp->params()) {
                    if (!param_matches(p.name, s.name)) continue;
                    known = true;
                    if (!(s.value >= p.min && s.value <= p.max)) {
                        std::ostringstream msg;
                        msg << "--param " << s.name << ": " << s.value << " is outside "
                            << e.name << "'s range " << p.min << " to " << p.max;
                        throw InputError(msg.str());
                    }
                }
            }
        }
        if (!known)
            throw InputError("--param: no algorithm to run has a parameter '" + s.name +
                             "' (see --list)");
    }
}

void check_params(const Options& o) {
    if (o.run.dim == 2) {
        check_params_in<2>(o);
    } else {
        check_params_in<3>(o);
    }
}

// Parses and validates the whole command line; throws InputError.
Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        if (argv[i] == std::string_view("--help") || argv[i] == std::string_view("-h")) {
            o.action = Action::kHelp;
            return o;
        }
    }
    CLI::App app("", "collidoscope-bench");
    define_flags(app, o);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ArgumentMismatch& e) {
        // "--frames: 1 required F missing", or "check was given a disallowed flag override".
        const std::string what = e.what();
        if (what.ends_with("flag override"))
            throw InputError("--" + what.substr(0, what.find(' ')) + " takes no value");
        throw InputError(what.substr(0, what.find(':')) + " needs a value");
    } catch (const CLI::ParseError& e) {
        throw InputError(e.what());
    }
    if (const std::vector<std::string> extra = app.remaining(); !extra.empty())
        throw InputError("unknown option '" + extra.front() + "'");
    if (o.list) {
        o.action = Action::kList;
        return o;
    }
    for (const std::string& a : o.algorithms) {
        const BroadPhaseEntry* e = find_subject(a);
        if (e == nullptr && a.starts_with("peer:"))
            throw InputError("--broadphase: '" + a +
                             "' is not a peer this build has (peers are built when CMake finds "
                             "their packages: scripts/install-deps, then reconfigure; see --list)");
        if (e == nullptr)
            throw InputError("--broadphase: unknown algorithm '" + a + "' (see --list)");
        if (!e->supports(o.run.dim))
            throw InputError("--broadphase: '" + a + "' has no " + std::to_string(o.run.dim) +
                             "D version");
        if (a == kFloor && o.run.check)
            throw InputError(
                "--check: floor reports no pairs, so there is nothing to check; run it "
                "without --check (with --broadphase all, --check runs floor unchecked)");
    }
    check_params(o);
    if (o.run.mode != Mode::kStep && (o.run.swept || o.run.count_tunnelling))
        throw InputError(std::string(o.run.swept ? "--swept" : "--tunnelling") +
                         " needs --mode step");
    // Build the scene once (at n <= 2) so a bad name or file fails before any work. A CSV
    // scene has its own size, which replaces --n.
    try {
        const std::size_t probe = std::min<std::size_t>(o.counts.front(), 2);
        const std::size_t bodies =
            o.run.dim == 2 ? make_scene<2>(o.run.scene, probe, o.run.seed).bodies.size()
                           : make_scene<3>(o.run.scene, probe, o.run.seed).bodies.size();
        if (is_csv_scene(o.run.scene)) o.counts = {bodies};
    } catch (const InputError& e) {
        throw InputError(std::string("--scene: ") + e.what());
    }
    return o;
}

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
        {"mode", step ? "step" : "broad"},
        {"status", r.status},
        {"frames", r.frames_run},
        {"median_ms", figure(r.median_ms)},
        {"x_floor", r.x_floor >= 0 ? figure(r.x_floor) : nullptr},
        {"p10_ms", figure(r.p10_ms)},
        {"p90_ms", figure(r.p90_ms)},
        {"pairs_first", r.pairs_first},
        {"pairs_last", r.pairs_last},
        {"total_ms", figure(r.total_ms)},
        {"candidate_tests", std::llround(r.candidate_tests)},
        {"total_tests", std::llround(r.total_tests)},
        {"structure_bytes", r.structure_bytes},
        {"reinserted", figure(r.reinserted)},
    };
    if (step) {
        j["integrate_ms"] = figure(r.integrate_ms);
        j["broad_ms"] = figure(r.broad_ms);
        j["narrow_ms"] = figure(r.narrow_ms);
        j["resolve_ms"] = figure(r.resolve_ms);
        j["swept"] = o.run.swept;
        j["impacts"] = figure(r.impacts);
        if (r.tunnelling_counted) j["tunnelled"] = r.tunnelled;
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
    std::vector<std::string> head = {"algorithm",       "dim",
                                     "scene",           "n",
                                     "threads",         "speed",
                                     "status",          "median_ms",
                                     "x_floor",         "p10_ms",
                                     "p90_ms",          "pairs_first",
                                     "pairs_last",      "candidate_tests",
                                     "structure_bytes", "total_ms",
                                     "total_tests",     "reinserted"};
    if (step) {
        head.insert(head.end(), {"integrate_ms", "broad_ms", "narrow_ms", "resolve_ms", "swept",
                                 "impacts", "tunnelled"});
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
                                        r.status,
                                        fmt(r.median_ms, 3),
                                        r.x_floor >= 0 ? fmt(r.x_floor, 2) : "-",
                                        fmt(r.p10_ms, 3),
                                        fmt(r.p90_ms, 3),
                                        std::to_string(r.pairs_first),
                                        std::to_string(r.pairs_last),
                                        fmt(r.candidate_tests, 0),
                                        std::to_string(r.structure_bytes),
                                        fmt(r.total_ms, 3),
                                        fmt(r.total_tests, 0),
                                        fmt(r.reinserted, 0)};
        if (step) {
            for (double v : {r.integrate_ms, r.broad_ms, r.narrow_ms, r.resolve_ms})
                row.push_back(fmt(v, 3));
            row.push_back(o.run.swept ? "on" : "off");
            row.push_back(fmt(r.impacts, 1));
            row.push_back(r.tunnelling_counted ? std::to_string(r.tunnelled) : "-");
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
            os << (c < 3 || c == 6 ? std::left : std::right)
               << std::setw(static_cast<int>(width[c])) << row[c]
               << (c + 1 < row.size() ? "  " : "\n");
        }
    };
    print_row(head);
    for (const auto& row : rows) print_row(row);
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    try {
        o = parse(argc, argv);
    } catch (const InputError& e) {
        std::cerr << "collidoscope-bench: " << e.what() << "\n(see collidoscope-bench --help)\n";
        return 2;
    }
    if (o.action == Action::kHelp) {
        std::cout << help_text();
        return 0;
    }
    if (o.action == Action::kList) {
        list();
        return 0;
    }
    tbb::global_control threads(tbb::global_control::max_allowed_parallelism,
                                static_cast<std::size_t>(o.run.threads));

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
    std::vector<std::string> timed_out;   // skipped at larger n
    std::vector<std::string> uncompared;  // --check could only check the contract
    bool unchecked_floor = false;         // --check with all: floor ran, not checked
    for (std::size_t n : o.counts) {
        std::vector<std::string> algorithms = o.algorithms;
        if (algorithms.empty()) {
            for (const auto table : {references(), broadphases()}) {
                for (const auto& e : table) {
                    if (e.supports(o.run.dim) &&
                        !(e.name == kReferenceBroadPhase && n > kMaxReferenceBodies)) {
                        algorithms.emplace_back(e.name);
                    }
                }
            }
        }
        // floor first, so that every other result at this n can be divided by it.
        std::stable_partition(algorithms.begin(), algorithms.end(),
                              [](const std::string& a) { return a == kFloor; });
        const std::size_t first_result = results.size();
        double floor_ms = -1;
        for (const std::string& a : algorithms) {
            RunConfig cfg = o.run;
            cfg.n = n;
            RunResult r{.algorithm = result_name(cfg, a), .n_bodies = n};
            double predicted_ms = 0.0;
            if (const auto last = last_run.find(a); last != last_run.end() && last->second.second.n > 0) {
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
                    r = run_one(cfg, a, failure);
                } catch (const InputError& e) {
                    std::cerr << "\ncollidoscope-bench: --scene: " << e.what() << "\n";
                    return 2;
                }
                std::cerr << " " << r.status << ", median " << r.median_ms << " ms\n";
                if (failure) {
                    std::cerr << "collidoscope-bench: " << failure->message << "\n";
                    return 1;
                }
                if (r.status == "timed out") timed_out.push_back(a);
                if (a == kFloor && r.status == "ok" && r.median_ms > 0) floor_ms = r.median_ms;
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
                if (results[i].frames_run > 0) results[i].x_floor = results[i].median_ms / floor_ms;
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
