#include "cli.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "collide/registry.hpp"
#include "tooling/parse.hpp"
#include "tooling/scene_names.hpp"

namespace collidoscope {

using collide::InputError;

namespace {

// The raw text of every flag, validated only once all of them are known (so that, e.g.,
// --broadphase can be checked against a --dim that comes after it).
struct RawArgs {
    std::optional<std::string_view> dim, scene, count, seed, broadphase, overlay, frames,
        screenshot, size, select, msaa, query;
    bool paused = false;
    bool swept = false;
    bool race = false;
    bool list = false;
    bool help = false;
};

// A flag stores either its value or the fact that it was given.
struct FlagSpec {
    std::string_view name;
    std::optional<std::string_view> RawArgs::*value = nullptr;
    bool RawArgs::*toggle = nullptr;
};

constexpr FlagSpec kFlags[] = {
    {"--dim", &RawArgs::dim},
    {"--scene", &RawArgs::scene},
    {"--count", &RawArgs::count},
    {"--seed", &RawArgs::seed},
    {"--broadphase", &RawArgs::broadphase},
    {"--overlay", &RawArgs::overlay},
    {"--frames", &RawArgs::frames},
    {"--screenshot", &RawArgs::screenshot},
    {"--size", &RawArgs::size},
    {"--select", &RawArgs::select},
    {"--msaa", &RawArgs::msaa},
    {"--query", &RawArgs::query},
    {"--paused", nullptr, &RawArgs::paused},
    {"--swept", nullptr, &RawArgs::swept},
    {"--race", nullptr, &RawArgs::race},
    {"--list", nullptr, &RawArgs::list},
    {"--help", nullptr, &RawArgs::help},
};

std::string quote(std::string_view s) {
    return "'" + std::string(s) + "'";
}

const FlagSpec* find_flag(std::string_view name) {
    for (const FlagSpec& f : kFlags) {
        if (f.name == name) return &f;
    }
    return nullptr;
}

bool scene_is_csv(std::string_view scene) {
    return collide::is_csv_scene(scene);
}

RawArgs split_args(std::span<const std::string_view> args) {
    RawArgs raw;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string_view arg = args[i];
        if (arg == "-h") arg = "--help";
        if (!arg.starts_with("--")) throw InputError("unexpected argument " + quote(arg));
        std::string_view name = arg;
        std::optional<std::string_view> value;
        if (auto eq = arg.find('='); eq != std::string_view::npos) {
            name = arg.substr(0, eq);
            value = arg.substr(eq + 1);
        }
        const FlagSpec* flag = find_flag(name);
        if (!flag) throw InputError("unknown option " + quote(name));
        if (flag->toggle) {
            if (value) {
                throw InputError(std::string(name) + " takes no value (got " + quote(*value) + ")");
            }
            raw.*(flag->toggle) = true;
            continue;
        }
        if (!value) {
            // A following flag is a forgotten value, not the value itself.
            if (i + 1 >= args.size() || args[i + 1].starts_with("--")) {
                throw InputError(std::string(name) + " needs a value");
            }
            value = args[++i];
        }
        raw.*(flag->value) = *value;
    }
    return raw;
}

std::uint64_t parse_count(std::string_view flag, std::string_view text, std::uint64_t max) {
    auto n = collide::parse_number<std::uint64_t>(text);
    if (!n) throw InputError(std::string(flag) + ": " + quote(text) + " is not a whole number");
    if (*n > max) {
        throw InputError(std::string(flag) + ": " + quote(text) + " is too large (at most " +
                         std::to_string(max) + ")");
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
    if (scene_is_csv(opt.scene)) {
        std::string path = opt.scene.substr(4);
        if (path.empty()) throw InputError("--scene: 'csv:' needs a path, as in csv:bodies.csv");
        int file_dim = 0;
        try {
            file_dim = collide::csv_scene_dimension(path);
        } catch (const InputError& e) {
            throw InputError(std::string("--scene: ") + e.what());
        }
        if (raw.dim && file_dim != opt.dim) {
            throw InputError("--scene: " + quote(path) + " is a " + std::to_string(file_dim) +
                             "D scene but --dim is " + std::to_string(opt.dim));
        }
        opt.dim = file_dim;
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

void validate_broadphase(const RawArgs& raw, Options& opt) {
    if (!raw.broadphase) {
        opt.broadphase = default_broadphase(opt.dim);
        if (opt.broadphase.empty()) {
            throw InputError("no broad phase in the registry supports " + std::to_string(opt.dim) +
                             "D");
        }
        return;
    }
    const collide::BroadPhaseEntry* entry = collide::find_broadphase(*raw.broadphase);
    if (!entry) {
        throw InputError("--broadphase: unknown algorithm " + quote(*raw.broadphase) +
                         " (see --list)");
    }
    if (!entry->supports(opt.dim)) {
        throw InputError("--broadphase: " + quote(*raw.broadphase) + " does not support " +
                         std::to_string(opt.dim) + "D");
    }
    opt.broadphase = std::string(*raw.broadphase);
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

void validate_screenshot(std::string_view text, Options& opt) {
    std::filesystem::path path(text);
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (text.empty() || ext != ".png") {
        throw InputError("--screenshot: " + quote(text) + " must name a .png file");
    }
    std::filesystem::path dir = path.parent_path();
    std::error_code ec;
    if (!dir.empty() && !std::filesystem::is_directory(dir, ec)) {
        throw InputError("--screenshot: folder " + quote(dir.string()) + " does not exist");
    }
    // Checked now so a long run does not end in a failed write.
    if (::access(dir.empty() ? "." : dir.c_str(), W_OK) != 0) {
        throw InputError("--screenshot: folder " + quote(dir.empty() ? "." : dir.string()) +
                         " is not writable");
    }
    opt.screenshot = std::string(text);
}

// "x0,y0,x1,y1" (2D) or "x0,y0,z0,x1,y1,z1" (3D): the lo corner, then the hi corner.
collide::Aabb<3> parse_query(std::string_view text, int dim) {
    const std::vector<std::string_view> fields = collide::split(text, ',');
    const std::size_t want = 2 * static_cast<std::size_t>(dim);
    if (fields.size() != want) {
        throw InputError("--query: " + quote(text) + " has " + std::to_string(fields.size()) +
                         (fields.size() == 1 ? " number" : " numbers") + "; " +
                         std::to_string(dim) + "D needs " + std::to_string(want) +
                         (dim == 2 ? " (x0,y0,x1,y1)" : " (x0,y0,z0,x1,y1,z1)"));
    }
    float v[6] = {};
    for (std::size_t i = 0; i < want; ++i) {
        auto n = collide::parse_number<float>(fields[i]);
        if (!n) {
            throw InputError("--query: " + quote(fields[i]) + " " +
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
            throw InputError("--query: " + std::string(1, kAxis[k]) +
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

}  // namespace

std::string default_broadphase(int dim) {
    std::string fallback;
    for (const collide::BroadPhaseEntry& e : collide::broadphases()) {
        if (!e.supports(dim)) continue;
        if (e.name != collide::kReferenceBroadPhase) return std::string(e.name);
        if (fallback.empty()) fallback = std::string(e.name);
    }
    return fallback;
}

CliResult parse_cli(std::span<const std::string_view> args) {
    // --help wins over everything else on the line, even over mistakes.
    for (std::string_view a : args) {
        if (a == "--help" || a == "-h") return {CliAction::kHelp, {}};
    }
    RawArgs raw = split_args(args);
    CliResult result;
    if (raw.list) {
        result.action = CliAction::kList;
        return result;
    }
    Options& opt = result.options;
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
    if (raw.query) opt.query = parse_query(*raw.query, opt.dim);
    opt.paused = raw.paused;
    opt.swept = raw.swept;
    opt.race = raw.race;
    return result;
}

std::string help_text() {
    return R"(collidoscope: watch broad-phase collision detection algorithms at work.

Usage: collidoscope [options]

Scene
  --dim 2|3              circles (2) or spheres (3); default 2
  --scene NAME|csv:PATH  a generated scene (see --list) or bodies from a CSV file, whose
                         header sets the dimension; default uniform
  --count N              number of bodies, 0 to 1000000; default 5000
  --seed S               random seed (unsigned 64-bit); default 1
  --broadphase NAME      algorithm (see --list); default the first fast one for the dimension
  --paused               start paused (P pauses, O steps once)
  --swept                swept boxes and time-of-impact contacts (no tunnelling)
  --race                 race every algorithm on each frame's boxes (the Race panel)

View
  --overlay LIST         comma-separated: aabbs, pairs, structure, implicit, all, none
  --size WxH             window size; default 1280x720
  --select ID            start with body ID selected
  --msaa 0|2|4|8         multisampling (antialiasing); default 4. Software GL is faster with 0
  --query x0,y0,x1,y1    start with this region queried (3D: x0,y0,z0,x1,y1,z1), low corner
                         first; the bodies the broad phase finds in it are highlighted

Runs and captures
  --frames N             run N frames, print a stats summary, then quit
  --screenshot FILE.png  save the last frame (UI included) when the app quits

  --list                 list the algorithms and scenes, then exit
  --help                 show this text

Both --flag value and --flag=value work. Exit codes: 0 ok, 1 runtime failure, 2 bad usage.

Mouse and keys
  left click / drag      select a body / drag it (it keeps the drag's velocity)
  shift + left drag      query a region (3D: a box at the orbit target's depth);
                         shift + click or Esc clears it
  right drag             2D: pan   3D: orbit (shift: pan)
  middle drag            pan
  wheel                  2D: zoom about the cursor   3D: dolly
  P pause   O step   R reset scene   C or Home: fit camera   1-9 choose algorithm
  Esc                    clear the query region, or quit when there is none
)";
}

std::string list_text() {
    std::ostringstream out;
    out << "Broad phases (--broadphase):\n";
    for (const collide::BroadPhaseEntry& e : collide::broadphases()) {
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
    return out.str();
}

}  // namespace collidoscope
