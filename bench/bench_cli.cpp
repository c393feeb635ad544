#include "bench_cli.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "collide/registry.hpp"
#include "peers/compiled_isa.hpp"
#include "subjects.hpp"
#include "tooling/cli11_setup.hpp"
#include "tooling/cli_support.hpp"
#include "tooling/parse.hpp"
#include "tooling/scenes.hpp"
#include "tooling/trace.hpp"

namespace collide::bench {

namespace {

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
    configure_cli(app, 28);  // --help and stray arguments: see parse
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
          "mean) and the peers this build has (--list)",
          [&](const std::string& v) {
              o.algorithms.clear();
              if (v == "all") return;
              for (auto part : split(v, ',')) o.algorithms.emplace_back(part);
          });
    bounded("--frames", o.run.frames, 1, 1000000, "F",
            "timed frames (default 30); results give the median, mean, p10,\n"
            "p90, p99 (nearest rank: below 100 frames it is the max) and max");
    bounded("--warmup", o.run.warmup, 0, 1000000, "W", "untimed frames first (default 3)");
    bounded("--speed", o.run.speed, 0.0f, 1000.0f, "S",
            "median displacement per frame / median radius (default 0.05)");
    choice("--mode", {"broad", "step", "trace"},
           "broad: the broad phase alone on ballistic bodies (default);\n"
           "step: whole world steps; trace: the broad phase alone on the\n"
           "boxes of world steps, recorded once per n (not timed) and\n"
           "replayed to every algorithm",
           [&](const std::string& v) {
               o.run.mode = v == "step" ? Mode::kStep : v == "trace" ? Mode::kTrace : Mode::kBroad;
           });
    value("--trace-dir", "DIR",
          "--mode trace: load each trace from DIR, or record it and save it\n"
          "there, so several runs replay one recording",
          [&](const std::string& v) {
              std::error_code ec;
              if (!std::filesystem::is_directory(v, ec))
                  throw InputError("--trace-dir: '" + v + "' is not a folder");
              o.run.trace_dir = v;
          });
    choice("--speeds", {"maxwell-boltzmann", "equal"},
           "ballistic speeds: a gas's spread, median --speed (default),\n"
           "or every body at --speed (the old motion: waves of re-insertions)",
           [&](const std::string& v) { o.run.speeds = *speed_distribution(v); });
    bounded("--resting", o.run.resting, 0.0f, 1.0f, "F",
            "ballistic: this share of the moving bodies at rest, not static\n"
            "(sleeping bodies; default 0)");
    toggle("--swept", o.run.swept, "step mode: swept boxes and time-of-impact contacts");
    toggle("--sleep", o.run.sleep,
           "step mode: sleeping by island, as in the app: settled piles stop\n"
           "moving and leave the broad phase's moving set (--warmup lets\n"
           "them settle before timing)");
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
    bounded("--churn", o.run.churn, 0.0f, 1.0f, "F",
            "broad mode: each frame this share of the bodies leaves and as\n"
            "many come back at new places (slots freed one frame are taken\n"
            "the next), told to the broad phase as changes (default 0)");
    choice("--update", {"changes", "whole"},
           "with still bodies (--static, --resting): tell the broad phase\n"
           "only what changed, the moving bodies (default), or hand it the\n"
           "whole array every frame",
           [&](const std::string& v) { o.run.changes = v == "changes"; });
    choice("--order", {"scene", "morton"},
           "body ids as the scene gives them (default), or renumbered in\n"
           "the Morton order of the centres (neighbours near in memory)",
           [&](const std::string& v) { o.run.morton_order = v == "morton"; });
    toggle("--cold", o.run.cold,
           "flush the caches before each frame (untimed), so every frame\n"
           "starts from memory, as frames at large n do; broad and trace modes");
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

// Every --param must name a tunable of at least one algorithm to be run, with a value in
// its range and of its kind (whole, or 0 or 1) for each algorithm that has it.
template <int D>
void check_params_in(const Options& o) {
    for (const ParamSetting& s : o.run.params) {
        bool known = false;
        for (const auto table : {all_broadphases(), references()}) {
            for (const BroadPhaseEntry& e : table) {
                if (!o.algorithms.empty() && std::find(o.algorithms.begin(), o.algorithms.end(),
                                                       e.name) == o.algorithms.end())
                    continue;
                if (gpu_unavailable_reason(e.name)) continue;  // said when it runs
                auto bp = make_subject<D>(e.name);
                if (!bp) continue;
                for (const Param& p : bp->params()) {
                    if (!param_matches(p.name, s.name)) continue;
                    known = true;
                    if (!(s.value >= p.min && s.value <= p.max)) {
                        std::ostringstream msg;
                        msg << "--param " << s.name << ": " << s.value << " is outside " << e.name
                            << "'s range " << p.min << " to " << p.max;
                        throw InputError(msg.str());
                    }
                    if (!param_kind_takes(p, s.value)) {
                        std::ostringstream msg;
                        msg << "--param " << s.name << ": " << s.value << " is not "
                            << param_kind_words(p) << ", which " << e.name << "'s '" << p.name
                            << "' takes";
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

void list_entry(const BroadPhaseEntry& e) {
    std::cout << "  " << std::left << std::setw(24) << e.name << (e.in_2d ? "2D " : "   ")
              << (e.in_3d ? "3D " : "   ") << e.description << "\n";
    if (const auto why = gpu_unavailable_reason(e.name)) {
        std::cout << "  " << std::setw(24) << ""
                  << "(cannot run here: " << *why << ")\n";
        return;
    }
    const auto print_params = [](auto bp) {
        for (const Param& p : bp->params()) {
            std::string name = p.name;
            std::replace(name.begin(), name.end(), ' ', '-');
            const char* kind = param_kind_words(p);
            std::cout << "  " << std::setw(24) << ""
                      << "--param " << name << "=" << p.value
                      << (kind ? std::string("  (") + kind + ")" : "") << "\n";
        }
    };
    e.in_2d ? print_params(e.make_2d()) : print_params(e.make_3d());
}

}  // namespace

std::string help_text() {
    Options o;
    CLI::App app("", "collidoscope-bench");
    define_flags(app, o);
    return app.help();
}

void print_list() {
    std::cout << "algorithms:\n";
    for (const auto& e : all_broadphases()) list_entry(e);
    std::cout << "references (bench only; peers are built when their packages are found):\n";
    // The instruction sets: the peers built from source name theirs in their rows.
    std::cout << "  (algorithms, floor and peer adapters compiled for " COLLIDOSCOPE_COMPILED_ISA
                 "; Debian's peer libraries for the x86-64 baseline; peers built from source "
                 "in [ ])\n";
    for (const auto& e : references()) list_entry(e);
    std::cout << "scenes:\n";
    for (const auto& s : scene_list())
        std::cout << "  " << std::left << std::setw(24) << s.name << s.description << "\n";
    std::cout << "  " << std::left << std::setw(24) << "csv:PATH"
              << "bodies from a CSV file\n";
}

Options parse_command_line(int argc, char** argv) {
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
    // A CSV file's header sets the dimension, as in the app; the algorithms are checked
    // against it below.
    try {
        o.run.dim = scene_dimension(o.run.scene,
                                    app.count("--dim") ? std::optional(o.run.dim) : std::nullopt);
    } catch (const InputError& e) {
        throw InputError(std::string("--scene: ") + e.what());
    }
    if (auto warning = threads_warning(static_cast<std::uint64_t>(o.run.threads)))
        o.warnings.push_back(*warning);
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
    if (o.run.mode != Mode::kStep && (o.run.swept || o.run.count_tunnelling || o.run.sleep))
        throw InputError(std::string(o.run.swept ? "--swept"
                                     : o.run.sleep ? "--sleep"
                                                   : "--tunnelling") +
                         " needs --mode step");
    if (o.run.churn > 0 && o.run.mode != Mode::kBroad)
        throw InputError("--churn needs --mode broad (the ballistic motion)");
    if (o.run.churn > 0 && !o.run.changes)
        throw InputError(
            "--churn with --update whole: a whole array cannot say which bodies left; churn "
            "is told as changes");
    if (o.run.mode != Mode::kBroad && app.count("--update"))
        throw InputError(
            "--update chooses how ballistic frames reach the broad phase, which --mode " +
            std::string(o.run.mode == Mode::kStep ? "step" : "trace") + " does not use");
    if (o.run.mode != Mode::kBroad && (app.count("--speeds") || app.count("--resting")))
        throw InputError(std::string(app.count("--speeds") ? "--speeds" : "--resting") +
                         " sets ballistic motion, which --mode " +
                         (o.run.mode == Mode::kStep ? "step" : "trace") + " does not use");
    if (o.run.cold && o.run.mode == Mode::kStep)
        throw InputError(
            "--cold flushes the caches before each broad phase; --mode step "
            "times whole steps, whose phases share the caches, so it needs "
            "--mode broad or trace");
    if (!o.run.trace_dir.empty() && o.run.mode != Mode::kTrace)
        throw InputError("--trace-dir needs --mode trace");
    if (o.run.mode == Mode::kTrace) {
        const std::uint64_t frames = static_cast<std::uint64_t>(o.run.warmup) + o.run.frames;
        for (std::size_t n : o.counts) {
            const std::uint64_t bytes =
                o.run.dim == 2 ? trace_bytes<2>(n, frames) : trace_bytes<3>(n, frames);
            if (bytes > kMaxTraceBytes) {
                std::ostringstream msg;
                msg << "--mode trace: " << n << " bodies x " << frames
                    << " frames (--warmup + --frames) need " << (bytes >> 20)
                    << " MiB of boxes, more than the " << (kMaxTraceBytes >> 20)
                    << " MiB a trace may hold; use fewer frames or bodies";
                throw InputError(msg.str());
            }
        }
    }
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

}  // namespace collide::bench
