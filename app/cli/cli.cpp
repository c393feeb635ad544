#include "cli/cli.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>
#include <CLI/CLI.hpp>

#include "collide/gpu/catalog.hpp"
#include "cli/controls.hpp"
#include "cli/presets.hpp"
#include "sim/algorithm_policy.hpp"
#include "tooling/cli11_setup.hpp"
#include "tooling/cli_support.hpp"
#include "tooling/parse.hpp"
#include "tooling/scene_names.hpp"

namespace collidoscope {

using collide::InputError;

namespace {

// The raw text of every flag, validated only once all of them are known (so that, e.g.,
// --broadphase can be checked against a --dim that comes after it).
struct RawArgs {
    std::optional<std::string> dim, scene, count, seed, broadphase, overlay, frames, screenshot,
        size, select, msaa, query, compare, color, world;
    std::optional<std::string> save_scene;  // persistence (issue 16)
    bool no_settings = false;
    std::optional<std::string> record, replay;  // record and replay
    std::optional<std::string> screenshot_dir, report_state, threads;
    std::optional<std::string> ui_scale;                      // layout (issue 15)
    std::optional<std::string> preset, camera, preset_shots;  // presets (presets.hpp)
    std::vector<std::string> params;                          // --param, in order
    bool paused = false;
    bool swept = false;
    std::optional<std::string> spawn_rate;
    bool watch = false, watch_quiz = false;  // Watch mode
    std::optional<std::string> watch_event;
    bool race = false;
    bool list = false;
};

// The command line's grammar and its help text, in one place: each flag with its
// description, grouped as --help shows them.
void define_flags(CLI::App& app, RawArgs& raw) {
    collide::configure_cli(app, 25);  // --help and stray arguments: see parse_cli
    const auto value = [&](const char* group, const char* flag, std::optional<std::string>& to,
                           const char* type, const char* help) {
        app.add_option(flag, to, help)->type_name(type)->group(group);
    };
    const auto toggle = [&](const char* group, const char* flag, bool& to, const char* help) {
        app.add_flag(flag, to, help)->disable_flag_override()->group(group);
    };
    value("Scene", "--dim", raw.dim, "2|3", "circles (2) or spheres (3); default 2");
    value("Scene", "--scene", raw.scene, "NAME|csv:PATH",
          "a generated scene (see --list) or bodies from a CSV file, whose\n"
          "header sets the dimension; default uniform");
    value("Scene", "--count", raw.count, "N", "number of bodies, 0 to 10000000; default 5000");
    value("Scene", "--seed", raw.seed, "S", "random seed (unsigned 64-bit); default 1");
    // The default's text from the constants that pick it, so the two cannot drift apart.
    const std::string default_algorithm = "algorithm (see --list); default " +
                                          std::string(kDefaultBroadPhase) + ", above " +
                                          std::to_string(kLargeWorldBodies) + " bodies\n" +
                                          std::string(kLargeWorldBroadPhase);
    value("Scene", "--broadphase", raw.broadphase, "NAME", default_algorithm.c_str());
    toggle("Scene", "--paused", raw.paused, "start paused (P pauses, O steps once)");
    toggle("Scene", "--swept", raw.swept,
           "swept boxes and time-of-impact contacts (no tunnelling)");
    value("Scene", "--spawn-rate", raw.spawn_rate, "R",
          "bodies a second falling in from the top of the world (0 to 10000;\n"
          "default: the scene's, 5% of the count for rain, else 0); past the\n"
          "starting count each takes the oldest's place, so a rain recycles\n"
          "its drops");
    value("Scene", "--world", raw.world, "cpu|gpu|auto",
          "where the bodies live: cpu (default); gpu, every step in compute\n"
          "shaders and drawn from the GPU's buffers; auto, gpu on a hardware\n"
          "GPU and cpu under software OpenGL (llvmpipe)");
    toggle("Scene", "--race", raw.race,
           "race every algorithm on each frame's boxes (the Race panel)");
    toggle("Watch", "--watch", raw.watch,
           "open Watch mode (W): the algorithm's update of this frame, recorded\n"
           "and played step by step; pauses the world");
    value("Watch", "--watch-event", raw.watch_event, "K|selected|STEP",
          "with --watch: show the recording at its K-th event (0: before the\n"
          "first; past the end: the end), at the first event of the body\n"
          "--select names, or at the first event of a kind (visit, enter,\n"
          "prune, place, cursor, active-add, active-drop, jump, test, emit)");
    toggle("Watch", "--watch-quiz", raw.watch_quiz,
           "with --watch: ask before each test whether it will hit");
    value("View", "--overlay", raw.overlay, "LIST",
          "comma-separated: aabbs, pairs, structure, implicit, all, none");
    value("View", "--compare", raw.compare, "A,B[,C,D]",
          "compare view: the world view split into 2 to 4 panes, each running\n"
          "one of these algorithms on the same boxes (see --list)");
    value("View", "--color", raw.color, "speed|id|cost",
          "colour bodies by speed, by id, or by the broad phase's work on each\n"
          "(the cost heat map)");
    value("View", "--size", raw.size, "WxH", "window size; default 1280x720");
    value("View", "--select", raw.select, "ID", "start with body ID selected");
    value("View", "--ui-scale", raw.ui_scale, "S",
          "text size in the panels, 0.5 to 2; default the settings file's, else\n"
          "the display's DPI / 96");
    value("View", "--msaa", raw.msaa, "0|2|4|8",
          "multisampling (antialiasing); default 4, or 0 on software GL\n"
          "(llvmpipe), where 4 costs over half the frame rate");
    value("View", "--query", raw.query, "x0,y0,x1,y1",
          "start with this region queried (3D: x0,y0,z0,x1,y1,z1), low corner\n"
          "first; the bodies the broad phase finds in it are highlighted");
    value("Runs and captures", "--frames", raw.frames, "N",
          "run N frames, print a stats summary, then quit");
    value("Runs and captures", "--screenshot", raw.screenshot, "FILE.png",
          "save the last frame (UI included) when the app quits");
    value("Runs and captures", "--save-scene", raw.save_scene, "FILE.csv",
          "save the world as a CSV scene (--scene csv:FILE loads it) when the\n"
          "app quits");
    toggle("View", "--no-settings", raw.no_settings,
           "neither read nor write the settings file\n"
           "($XDG_CONFIG_HOME/collidoscope/settings.ini)");
    value("Record and replay", "--record", raw.record, "FILE",
          "write the session (its world, then every action with its step) to\n"
          "FILE as it goes; the Record button does the same");
    value("Record and replay", "--replay", raw.replay, "FILE",
          "replay a recorded session bit for bit: its world replaces --dim,\n"
          "--scene, --count, --seed, --broadphase, --swept and --paused");
    value("Runs and captures", "--screenshot-dir", raw.screenshot_dir, "DIR",
          "where F12 saves its timestamped PNGs; default the current folder");
    value("Runs and captures", "--report-state", raw.report_state, "FILE",
          "keep FILE up to date with the app's state as JSON (selection,\n"
          "zoom, algorithm, dialogs, panels, how it quit), for tests");
    value("Runs and captures", "--threads", raw.threads, "T",
          "oneTBB threads for the app's work (the Threads field); default all");
    value("Tour", "--preset", raw.preset, "NAME",
          "start on a stop of the guided tour (see --list): its scene, algorithm,\n"
          "overlays, selection and framing; flags beside it override them. With\n"
          "none of the flags that choose the world, the first start opens on the\n"
          "first preset, and later ones on the last preset or scene shown");
    app.add_option_function<std::vector<std::string>>(
           "--param",
           [&raw](const std::vector<std::string>& v) {
               raw.params.insert(raw.params.end(), v.begin(), v.end());
           },
           "set one of the algorithm's tunables (repeatable; '-' for spaces in\n"
           "NAME), e.g. --param capacity=4; the panel lists them")
        ->type_name("NAME=VALUE")
        ->group("Scene")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
    value("View", "--camera", raw.camera, "x0,y0,x1,y1",
          "frame this part of the world (3D: x0,y0,z0,x1,y1,z1) rather than\n"
          "all of it; C frames all of it again");
    value("Runs and captures", "--preset-shots", raw.preset_shots, "DIR",
          "load every preset in turn, run it a few frames, and write\n"
          "DIR/NAME.png and, of the same frame with the overlays off,\n"
          "DIR/NAME-plain.png; then quit (for tests)");
    toggle("Information", "--list", raw.list, "list the algorithms, scenes and presets, then exit");
    app.add_flag("-h,--help")
        ->description("show this text")
        ->disable_flag_override()
        ->group("Information");
    app.footer(
        "Both --flag value and --flag=value work. Exit codes: 0 ok, 1 runtime failure, 2 "
        "bad usage.\n\nMouse and keys (F1 in the app shows them too)\n" +
        controls_text());
}

constexpr const char* kDescription =
    "collidoscope: watch broad-phase collision detection algorithms at work.\n";

// A value as messages quote it: short, and escaped where it is not printable text.
std::string quote(std::string_view s) {
    return "'" + collide::excerpt(s, 200) + "'";
}

// Splits the arguments into flags, over what `raw` already holds (a flag given again
// replaces it); every mistake CLI11 finds is reported in our words.
void split_args(std::span<const std::string_view> args, RawArgs& raw) {
    CLI::App app(kDescription, "collidoscope");
    define_flags(app, raw);
    try {
        // CLI11 takes the arguments in reverse order.
        app.parse(std::vector<std::string>(args.rbegin(), args.rend()));
    } catch (const CLI::ArgumentMismatch& e) {
        // "--frames: 1 required N missing" or "paused was given a disallowed flag override".
        const std::string what = e.what();
        const std::string flag = what.substr(0, what.find_first_of(": "));
        if (what.ends_with("flag override")) {
            const std::string given = "--" + flag + "=";
            const auto arg = std::find_if(args.begin(), args.end(),
                                          [&](std::string_view a) { return a.starts_with(given); });
            // CLI11 also names a flag given as "-flag=VALUE" (one dash) or by another name.
            if (arg == args.end()) throw InputError("--" + flag + " takes no value");
            throw InputError("--" + flag + " takes no value (got " +
                             quote(arg->substr(given.size())) + ")");
        }
        throw InputError(flag + " needs a value");
    } catch (const CLI::ParseError& e) {
        throw InputError(e.what());
    }
    // CLI11 takes the next argument as the value whatever it is; a flag there is a
    // forgotten value, not the value itself.
    for (const CLI::Option* o : app.get_options()) {
        if (o->get_expected_max() > 0 && o->count() > 0 && o->results().back().starts_with("--")) {
            throw InputError(o->get_name() + " needs a value");
        }
    }
    if (const std::vector<std::string> extra = app.remaining(); !extra.empty()) {
        const std::string& arg = extra.front();
        if (!arg.starts_with("--")) throw InputError("unexpected argument " + quote(arg));
        throw InputError("unknown option " + quote(arg.substr(0, arg.find('='))));
    }
}

// As the bench says it: the value and the allowed range, whatever is wrong with it.
std::uint64_t parse_count(std::string_view flag, std::string_view text, std::uint64_t max) {
    auto n = collide::parse_number<std::uint64_t>(text);
    if (!n || *n > max) {
        throw InputError(std::string(flag) + ": " + quote(text) +
                         " must be a whole number from 0 to " + std::to_string(max));
    }
    return *n;
}

int parse_dim(std::string_view text) {
    if (text == "2") return 2;
    if (text == "3") return 3;
    throw InputError("--dim: " + quote(text) + " is not a dimension (use 2 or 3)");
}

// Resolves the scene and, for CSV files, the dimension the file's header declares.
void validate_scene(const RawArgs& raw, Options& opt) {
    if (raw.scene) opt.scene = std::string(*raw.scene);
    if (collide::is_csv_scene(opt.scene)) {
        try {
            opt.dim = collide::scene_dimension(opt.scene,
                                               raw.dim ? std::optional(opt.dim) : std::nullopt);
        } catch (const InputError& e) {
            throw InputError(std::string("--scene: ") + e.what());
        }
        // The rows themselves are checked when the demo loads the file, still before any
        // window opens.
        return;
    }
    auto scenes = collide::scene_list();
    bool known = std::any_of(scenes.begin(), scenes.end(),
                             [&](const collide::SceneEntry& s) { return s.name == opt.scene; });
    if (!known) {
        throw InputError("--scene: unknown scene " + quote(opt.scene) +
                         " (see --list, or use csv:PATH)");
    }
}

// Throws unless `name` is a registry algorithm supporting `dim`.
void check_algorithm(const char* flag, std::string_view name, int dim) {
    const collide::BroadPhaseEntry* entry = collide::find_any_broadphase(name);
    if (!entry) {
        throw InputError(std::string(flag) + ": unknown algorithm " + quote(name) +
                         " (see --list)");
    }
    if (!entry->supports(dim)) {
        throw InputError(std::string(flag) + ": " + quote(name) + " does not support " +
                         std::to_string(dim) + "D");
    }
}

void validate_broadphase(const RawArgs& raw, Options& opt) {
    if (!raw.broadphase) {
        opt.broadphase = std::string(default_broadphase(opt.count));
        return;
    }
    check_algorithm("--broadphase", *raw.broadphase, opt.dim);
    opt.broadphase = std::string(*raw.broadphase);
}

void parse_compare(std::string_view text, Options& opt) {
    for (const std::string_view name : collide::split(text, ',')) {
        check_algorithm("--compare", name, opt.dim);
        opt.compare.emplace_back(name);
    }
    if (opt.compare.size() < 2 || opt.compare.size() > 4) {
        throw InputError("--compare: " + quote(text) +
                         " must name 2 to 4 algorithms, comma separated");
    }
}

WorldChoice parse_world(std::string_view text) {
    if (text == "cpu") return WorldChoice::kCpu;
    if (text == "gpu") return WorldChoice::kGpu;
    if (text == "auto") return WorldChoice::kAuto;
    throw InputError("--world: unknown world " + quote(text) + " (use cpu, gpu or auto)");
}

ColorMode parse_color(std::string_view text) {
    if (text == "speed") return ColorMode::kSpeed;
    if (text == "id") return ColorMode::kId;
    if (text == "cost") return ColorMode::kCost;
    throw InputError("--color: unknown colour mode " + quote(text) + " (use speed, id or cost)");
}

OverlayFlags parse_overlays(std::string_view text) {
    OverlayFlags flags;
    for (const std::string_view item : collide::split(text, ',')) {
        if (item == "aabbs") {
            flags.aabbs = true;
        } else if (item == "pairs") {
            flags.pairs = true;
        } else if (item == "structure") {
            flags.structure = true;
        } else if (item == "implicit") {
            flags.implicit = true;
        } else if (item == "all") {
            flags = {true, true, true};
            flags.implicit = true;
        } else if (item == "none") {
            flags = {};
        } else {
            throw InputError(
                "--overlay: unknown overlay " + quote(item) +
                " (use aabbs, pairs, structure, implicit, all or none, comma separated)");
        }
    }
    return flags;
}

void parse_size(std::string_view text, Options& opt) {
    auto x = text.find('x');
    auto w = x == std::string_view::npos ? std::nullopt
                                         : collide::parse_number<std::uint64_t>(text.substr(0, x));
    auto h = x == std::string_view::npos ? std::nullopt
                                         : collide::parse_number<std::uint64_t>(text.substr(x + 1));
    if (!w || !h)
        throw InputError("--size: " + quote(text) + " is not WIDTHxHEIGHT, as in 1280x720");
    constexpr std::uint64_t kMin = 64;
    constexpr std::uint64_t kMax = 16384;
    if (*w < kMin || *h < kMin || *w > kMax || *h > kMax) {
        throw InputError("--size: " + quote(text) + " is out of range (each side " +
                         std::to_string(kMin) + " to " + std::to_string(kMax) + ")");
    }
    opt.width = static_cast<int>(*w);
    opt.height = static_cast<int>(*h);
}

// The folder a file written on exit goes to must exist and be writable: checked now so a
// long run does not end in a failed write.
void check_folder(const char* flag, const std::filesystem::path& path) {
    std::filesystem::path dir = path.parent_path();
    std::error_code ec;
    if (!dir.empty() && !std::filesystem::is_directory(dir, ec)) {
        throw InputError(std::string(flag) + ": folder " + quote(dir.string()) + " does not exist");
    }
    if (::access(dir.empty() ? "." : dir.c_str(), W_OK) != 0) {
        throw InputError(std::string(flag) + ": folder " + quote(dir.empty() ? "." : dir.string()) +
                         " is not writable");
    }
}

void validate_screenshot(std::string_view text, Options& opt) {
    std::filesystem::path path(text);
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (text.empty() || ext != ".png") {
        throw InputError("--screenshot: " + quote(text) + " must name a .png file");
    }
    check_folder("--screenshot", path);
    opt.screenshot = std::string(text);
}

// "x0,y0,x1,y1" (2D) or "x0,y0,z0,x1,y1,z1" (3D): the lo corner, then the hi corner, for
// --query and --camera.
collide::Aabb<3> parse_box(const std::string& flag, std::string_view text, int dim) {
    const std::vector<std::string_view> fields = collide::split(text, ',');
    const std::size_t want = 2 * static_cast<std::size_t>(dim);
    if (fields.size() != want) {
        throw InputError(flag + ": " + quote(text) + " has " + std::to_string(fields.size()) +
                         (fields.size() == 1 ? " number" : " numbers") + "; " +
                         std::to_string(dim) + "D needs " + std::to_string(want) +
                         (dim == 2 ? " (x0,y0,x1,y1)" : " (x0,y0,z0,x1,y1,z1)"));
    }
    float v[6] = {};
    for (std::size_t i = 0; i < want; ++i) {
        auto n = collide::parse_number<float>(fields[i]);
        if (!n) {
            throw InputError(flag + ": " + quote(fields[i]) + " " +
                             collide::number_problem(fields[i]) + " (in " + quote(text) + ")");
        }
        v[i] = *n;
    }
    collide::Aabb<3> box;  // z stays 0 in 2D
    constexpr char kAxis[] = "xyz";
    for (int k = 0; k < dim; ++k) {
        const float lo = v[k];
        const float hi = v[k + dim];
        if (lo > hi) {
            throw InputError(flag + ": " + std::string(1, kAxis[k]) +
                             "0 = " + quote(fields[static_cast<std::size_t>(k)]) +
                             " is greater than " + std::string(1, kAxis[k]) +
                             "1 = " + quote(fields[static_cast<std::size_t>(k + dim)]) +
                             " (give the low corner first)");
        }
        box.lo[k] = lo;
        box.hi[k] = hi;
    }
    return box;
}

// A folder files will be written to: it must exist and be writable.
std::string writable_folder(const char* flag, const std::string& dir) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec) || ::access(dir.c_str(), W_OK) != 0)
        throw InputError(std::string(flag) + ": " + quote(dir) + " is not a writable folder");
    return dir;
}

template <int D>
std::vector<collide::Param> params_of(std::string_view algorithm) {
    // The GPU rows have no tunables; making one here would make a GL context before the window.
    if (collide::runs_on_gpu(algorithm)) return {};
    // The tunables live in the algorithm: copy them while it is alive.
    const auto broadphase = collide::make_broadphase<D>(algorithm);
    const std::span<collide::Param> params = broadphase->params();
    return {params.begin(), params.end()};
}

// A flag's number, refused unless it is one from `lo` to `hi` (`range` says so in words).
float number_in(const char* flag, const std::string& text, float lo, float hi, const char* range) {
    const auto value = collide::parse_number<float>(text);
    if (!value || !(*value >= lo && *value <= hi))
        throw InputError(std::string(flag) + ": " + quote(text) + " is not a number from " + range);
    return *value;
}

// "NAME=VALUE" checked against the algorithm's tunables: the name one of them, the value in
// its range and of its kind (whole, or 0 or 1).
ParamSetting parse_param(std::string_view text, const Options& opt) {
    const std::size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0)
        throw InputError("--param: " + quote(text) + " must be NAME=VALUE");
    const std::string_view name = text.substr(0, eq);
    const std::string_view value_text = text.substr(eq + 1);
    const std::optional<float> value = collide::parse_number<float>(value_text);
    if (!value) {
        throw InputError("--param " + std::string(name) + ": " + quote(value_text) + " " +
                         collide::number_problem(value_text));
    }
    const std::vector<collide::Param> params =
        opt.dim == 2 ? params_of<2>(opt.broadphase) : params_of<3>(opt.broadphase);
    std::string names;
    for (const collide::Param& p : params) {
        if (!collide::param_matches(p.name, name)) {
            names += std::string(names.empty() ? "" : ", ") + p.name;
            continue;
        }
        if (*value < p.min || *value > p.max) {
            std::ostringstream range;
            range << "[" << p.min << ", " << p.max << "]";
            throw InputError("--param " + std::string(name) + ": " + quote(value_text) +
                             " is outside " + opt.broadphase + "'s range " + range.str());
        }
        if (!collide::param_kind_takes(p, *value)) {
            throw InputError("--param " + std::string(name) + ": " + quote(value_text) +
                             " is not " + collide::param_kind_words(p) + ", which " +
                             opt.broadphase + "'s '" + p.name + "' takes");
        }
        return {p.name, *value};
    }
    throw InputError("--param: " + opt.broadphase + " has no parameter " + quote(name) +
                     (names.empty() ? " (it has none)" : " (it has: " + names + ")"));
}

// The preset's flags, then the command line's over them.
RawArgs with_preset(std::span<const std::string_view> args, RawArgs raw) {
    const Preset* preset = find_preset(*raw.preset);
    if (preset == nullptr)
        throw InputError("--preset: unknown preset " + quote(*raw.preset) + " (see --list)");
    std::vector<std::string_view> words;
    for (const std::string_view w : collide::split(preset->args, ' ')) {
        if (!w.empty()) words.push_back(w);
    }
    RawArgs out;
    split_args(words, out);
    // The preset's selection is a body of its own count: another count drops it.
    if (raw.count && !raw.select) out.select.reset();
    split_args(args, out);
    return out;
}

}  // namespace

CliResult parse_cli(std::span<const std::string_view> args) {
    // --help wins over everything else on the line, even over mistakes.
    for (std::string_view a : args) {
        if (a == "--help" || a == "-h") {
            CliResult help;
            help.action = CliAction::kHelp;
            return help;
        }
    }
    RawArgs raw;
    split_args(args, raw);
    CliResult result;
    if (raw.list) {
        result.action = CliAction::kList;
        return result;
    }
    Options& opt = result.options;
    if (raw.preset) {
        raw = with_preset(args, std::move(raw));
        opt.preset = *raw.preset;
    }
    if (raw.dim) opt.dim = parse_dim(*raw.dim);
    if (raw.count) opt.count = parse_count("--count", *raw.count, kMaxAppBodies);
    if (raw.seed) {
        auto seed = collide::parse_number<std::uint64_t>(*raw.seed);
        if (!seed) {
            throw InputError("--seed: " + quote(*raw.seed) +
                             " is not a whole number from 0 to 18446744073709551615");
        }
        opt.seed = *seed;
    }
    validate_scene(raw, opt);
    validate_broadphase(raw, opt);
    if (raw.overlay) opt.overlays = parse_overlays(*raw.overlay);
    if (raw.compare) parse_compare(*raw.compare, opt);
    if (raw.color) opt.color_mode = parse_color(*raw.color);
    if (raw.world) opt.world = parse_world(*raw.world);
    if (raw.frames) {
        auto frames = collide::parse_number<std::int64_t>(*raw.frames);
        if (!frames || *frames < 1) {
            throw InputError("--frames: " + quote(*raw.frames) + " is not a positive whole number");
        }
        opt.frames = *frames;
    }
    if (raw.screenshot) validate_screenshot(*raw.screenshot, opt);
    if (raw.size) parse_size(*raw.size, opt);
    if (raw.select) {
        auto id = collide::parse_number<std::uint64_t>(*raw.select);
        if (!id) throw InputError("--select: " + quote(*raw.select) + " is not a body id");
        if (*id >= opt.count) {
            throw InputError("--select: body " + std::string(*raw.select) +
                             " does not exist (the scene has " + std::to_string(opt.count) +
                             " bodies)");
        }
        opt.select = static_cast<collide::BodyId>(*id);
    }
    if (raw.msaa) {
        auto samples = collide::parse_number<std::uint64_t>(*raw.msaa);
        if (!samples || (*samples != 0 && *samples != 2 && *samples != 4 && *samples != 8)) {
            throw InputError("--msaa: " + quote(*raw.msaa) + " is not 0, 2, 4 or 8");
        }
        opt.msaa = static_cast<int>(*samples);
    }
    // After the scene: a CSV file may have set the dimension, which decides the count.
    if (raw.query) opt.query = parse_box("--query", *raw.query, opt.dim);
    if (raw.camera) opt.camera = parse_box("--camera", *raw.camera, opt.dim);
    for (const std::string& p : raw.params) opt.params.push_back(parse_param(p, opt));
    if (raw.preset_shots) opt.preset_shots = writable_folder("--preset-shots", *raw.preset_shots);
    if (raw.record) opt.record = *raw.record;
    if (raw.replay) opt.replay = *raw.replay;
    if (raw.screenshot_dir)
        opt.screenshot_dir = writable_folder("--screenshot-dir", *raw.screenshot_dir);
    if (raw.report_state) opt.report_state = *raw.report_state;
    if (raw.threads) {
        auto threads = collide::parse_number<std::uint64_t>(*raw.threads);
        if (!threads || *threads < 1 || *threads > 1024) {
            throw InputError("--threads: " + quote(*raw.threads) +
                             " is not a whole number from 1 to 1024");
        }
        opt.threads = static_cast<int>(*threads);
        if (auto warning = collide::threads_warning(*threads)) result.warnings.push_back(*warning);
    }
    if (raw.ui_scale) opt.ui_scale = number_in("--ui-scale", *raw.ui_scale, 0.5f, 2.0f, "0.5 to 2");
    if (raw.spawn_rate)
        opt.spawn_rate = number_in("--spawn-rate", *raw.spawn_rate, 0.0f, 10000.0f, "0 to 10000");
    opt.paused = raw.paused;
    opt.swept = raw.swept;
    if ((raw.watch_event || raw.watch_quiz) && !raw.watch)
        throw InputError(std::string(raw.watch_event ? "--watch-event" : "--watch-quiz") +
                         " needs --watch");
    opt.watch = raw.watch;
    opt.watch_quiz = raw.watch_quiz;
    if (raw.watch_event && *raw.watch_event == "selected") {
        if (!raw.select) throw InputError("--watch-event selected needs --select");
        opt.watch_at_selection = true;
    } else if (raw.watch_event && collide::step_named(*raw.watch_event)) {
        opt.watch_at_step = collide::step_named(*raw.watch_event);
    } else if (raw.watch_event) {
        auto k = collide::parse_number<std::uint64_t>(*raw.watch_event);
        if (!k) {
            throw InputError("--watch-event: " + quote(*raw.watch_event) +
                             " is not an event number, \"selected\" or a kind of event");
        }
        opt.watch_event = *k;
    }
    opt.race = raw.race;
    // Persistence: the scene saved on exit; what the stored settings may not override.
    if (raw.save_scene) {
        if (raw.save_scene->empty()) throw InputError("--save-scene needs a file name");
        check_folder("--save-scene", *raw.save_scene);
        opt.save_scene = *raw.save_scene;
    }
    opt.given = {raw.size.has_value(), raw.overlay.has_value(),
                 raw.dim || raw.scene || raw.broadphase || raw.query || raw.select, raw.no_settings,
                 raw.ui_scale.has_value()};
    opt.given.view = raw.dim || raw.scene || raw.count || raw.seed || raw.broadphase ||
                     raw.overlay || raw.select || raw.query || raw.replay || raw.preset ||
                     raw.camera || raw.world || !raw.params.empty();
    opt.given.color = raw.color.has_value();
    return result;
}

std::string help_text() {
    RawArgs raw;
    CLI::App app(kDescription, "collidoscope");
    define_flags(app, raw);
    return app.help();
}

std::string list_text() {
    std::ostringstream out;
    out << "Broad phases (--broadphase):\n";
    for (const collide::BroadPhaseEntry& e : collide::all_broadphases()) {
        std::string name(e.name);
        name.resize(std::max<std::size_t>(name.size(), 22), ' ');
        out << "  " << name << (e.in_2d ? "2D " : "   ") << (e.in_3d ? "3D " : "   ") << " "
            << e.description << "\n";
    }
    out << "\nScenes (--scene):\n";
    for (const collide::SceneEntry& s : collide::scene_list()) {
        std::string name(s.name);
        name.resize(std::max<std::size_t>(name.size(), 22), ' ');
        out << "  " << name << s.description << "\n";
    }
    out << "  csv:PATH              bodies from a CSV file; its header sets the dimension\n";
    out << "\nPresets, the guided tour (--preset):\n";
    for (const Preset& p : presets()) {
        std::string name(p.name);
        name.resize(std::max<std::size_t>(name.size(), 28), ' ');
        out << "  " << name << p.title << "\n";
    }
    return out.str();
}

}  // namespace collidoscope
