#include "main/settings_store.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "collide/gpu/catalog.hpp"
#include "sim/algorithm_policy.hpp"
#include "tooling/input_error.hpp"
#include "tooling/parse.hpp"
#include "tooling/scene_names.hpp"

namespace collidoscope {
namespace {

constexpr std::size_t kMaxFileBytes = 1 << 20;  // a settings file is a few hundred bytes
constexpr int kMinWindow = 64;                  // the bounds --size takes
constexpr int kMaxWindow = 16384;
constexpr float kMinUiScale = 0.5f;
constexpr float kMaxUiScale = 2.0f;

// The on/off keys, each with the field it sets.
std::vector<std::pair<std::string_view, bool*>> flags_of(Settings& s) {
    return {{"panel_scene", &s.panels.scene},
            {"panel_broad_phase", &s.panels.broad_phase},
            {"panel_query", &s.panels.query},
            {"panel_overlays", &s.panels.overlays},
            {"panel_keys", &s.panels.keys},
            {"panel_race", &s.panels.race},
            {"overlay_aabbs", &s.overlays.aabbs},
            {"overlay_pairs", &s.overlays.pairs},
            {"overlay_structure", &s.overlays.structure},
            {"overlay_implicit", &s.overlays.implicit},
            {"overlays_on_top", &s.overlays_on_top}};
}

std::string_view trim(std::string_view s) {
    const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

// At most 40 characters of `s`, quoted, for a message.
std::string quoted(std::string_view s) {
    std::string out = "'";
    out.append(s.substr(0, 40));
    out.append(s.size() > 40 ? "...'" : "'");
    return out;
}

// Sets the key from its value; returns why not, if it cannot.
std::optional<std::string> set_value(Settings& s, std::string_view key, std::string_view value) {
    for (auto& [name, field] : flags_of(s)) {
        if (name != key) continue;
        if (value == "1" || value == "true") {
            *field = true;
        } else if (value == "0" || value == "false") {
            *field = false;
        } else {
            return std::string(key) + " must be 0 or 1, not " + quoted(value);
        }
        return std::nullopt;
    }
    if (key == "window_width" || key == "window_height") {
        const auto n = collide::parse_number<int>(value);
        if (!n || *n < kMinWindow || *n > kMaxWindow) {
            return std::string(key) + " must be a whole number from " + std::to_string(kMinWindow) +
                   " to " + std::to_string(kMaxWindow) + ", not " + quoted(value);
        }
        (key == "window_width" ? s.width : s.height) = *n;
    } else if (key == "ui_scale") {
        const auto v = collide::parse_number<float>(value);
        if (!v || *v < kMinUiScale || *v > kMaxUiScale)
            return "ui_scale must be a number from 0.5 to 2, not " + quoted(value);
        s.ui_scale = *v;
    } else if (key == "color_mode") {
        if (value != "speed" && value != "id")
            return "color_mode must be speed or id, not " + quoted(value);
        s.color_mode = value == "id" ? ColorMode::kId : ColorMode::kSpeed;
    } else if (key == "dim") {
        if (value != "2" && value != "3") return "dim must be 2 or 3, not " + quoted(value);
        s.dim = value == "2" ? 2 : 3;
    } else if (key == "scene") {
        if (value.empty()) return "scene is empty";
        s.scene = std::string(value);
    } else if (key == "broadphase") {
        s.broadphase = std::string(value);
    } else if (key == "preset") {
        s.preset = std::string(value);  // main checks it against the presets
    }
    // Other keys are a newer app's: skipped.
    return std::nullopt;
}

}  // namespace

std::string settings_path() {
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    std::filesystem::path base;
    if (xdg != nullptr && *xdg != '\0') {
        base = xdg;
    } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
        base = std::filesystem::path(home) / ".config";
    } else {
        return {};
    }
    return (base / "collidoscope" / "settings.ini").string();
}

SettingsLoad parse_settings(std::string_view text, const std::string& name) {
    SettingsLoad out;
    const auto reject = [&](std::size_t line, const std::string& reason) {
        out.settings = Settings{};
        const std::string where = line > 0 ? name + ":" + std::to_string(line) : name;
        out.warning = "settings file " + where + ": " + reason + "; using the defaults";
        return out;
    };
    // A bad line costs that line only: the rest of the file still counts. The first one is
    // named, with how many more there were.
    std::size_t bad_lines = 0;
    const auto drop = [&](std::size_t line, const std::string& reason) {
        if (bad_lines++ == 0) {
            out.warning = "settings file " + name + ":" + std::to_string(line) + ": " + reason +
                          "; that line is ignored";
        }
    };
    const bool binary = std::any_of(text.begin(), text.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 && c != '\n' && c != '\r' && c != '\t';
    });
    if (binary) return reject(0, "is not a text file");
    std::size_t number = 0;
    for (const std::string_view raw : collide::split(text, '\n')) {
        ++number;
        const std::string_view line = trim(raw);
        if (line.empty() || line.front() == '#') continue;
        const std::size_t eq = line.find('=');
        if (eq == std::string_view::npos) {
            drop(number, quoted(line) + " is not key=value");
            continue;
        }
        if (const auto why =
                set_value(out.settings, trim(line.substr(0, eq)), trim(line.substr(eq + 1))))
            drop(number, *why);
    }
    if (bad_lines > 1) {
        *out.warning += " (and " + std::to_string(bad_lines - 1) + " more bad line" +
                        (bad_lines > 2 ? "s" : "") + ")";
    }
    return out;
}

std::string settings_text(const Settings& settings) {
    // Never a value the reader refuses: a window dragged to 1x1 is stored at the smallest
    // size --size takes.
    Settings s = settings;
    s.width = std::clamp(s.width, kMinWindow, kMaxWindow);
    s.height = std::clamp(s.height, kMinWindow, kMaxWindow);
    if (s.ui_scale > 0.0f) s.ui_scale = std::clamp(s.ui_scale, kMinUiScale, kMaxUiScale);
    std::ostringstream out;
    out << "# collidoscope settings: key=value, one per line (see docs/app.md, Settings)\n";
    out << "window_width=" << s.width << "\nwindow_height=" << s.height << "\n";
    for (const auto& [name, field] : flags_of(s)) out << name << "=" << (*field ? 1 : 0) << "\n";
    out << "color_mode=" << (s.color_mode == ColorMode::kId ? "id" : "speed") << "\n";
    if (s.ui_scale > 0.0f) out << "ui_scale=" << s.ui_scale << "\n";
    out << "dim=" << s.dim << "\nscene=" << s.scene << "\nbroadphase=" << s.broadphase << "\n";
    if (!s.preset.empty()) out << "preset=" << s.preset << "\n";
    return out.str();
}

SettingsLoad load_settings(const std::string& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (status.type() == std::filesystem::file_type::not_found) return {};
    const auto fail = [&](const std::string& reason) {
        return SettingsLoad{{}, "settings file " + path + ": " + reason + "; using the defaults"};
    };
    if (ec) return fail(ec.message());
    if (std::filesystem::is_directory(status)) return fail("is a directory, not a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail("cannot be read");
    std::string text(kMaxFileBytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    if (in.bad()) return fail("cannot be read");
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxFileBytes) return fail("is larger than 1 MiB");
    return parse_settings(text, path);
}

void save_settings(const std::string& path, const Settings& settings) {
    std::error_code ec;
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    if (!folder.empty()) std::filesystem::create_directories(folder, ec);
    if (ec) throw collide::InputError(path + ": cannot create the folder (" + ec.message() + ")");
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << settings_text(settings);
    out.close();
    if (!out) throw collide::InputError(path + ": cannot write the file");
}

std::optional<std::string> apply_settings(const Settings& s, Options& options) {
    if (!options.given.size) {
        options.width = s.width;
        options.height = s.height;
    }
    if (!options.given.overlay) options.overlays = s.overlays;
    options.panels = s.panels;
    options.panels.race = s.panels.race || options.race;
    if (!options.given.color) options.color_mode = s.color_mode;
    options.overlays_on_top = s.overlays_on_top;
    if (!options.given.ui_scale) options.ui_scale = s.ui_scale;
    if (options.given.scene) return std::nullopt;

    // The last scene: its name checked as the command line checks it, each part dropped
    // alone when this build or dimension does not have it.
    std::string warning;
    std::string scene = s.scene;
    if (collide::is_csv_scene(scene)) {
        try {
            if (collide::csv_scene_dimension(scene.substr(collide::kCsvPrefix.size())) != s.dim)
                warning = "the stored scene " + scene + " is not " + std::to_string(s.dim) + "D";
        } catch (const collide::InputError& e) {
            warning = std::string("the stored scene: ") + e.what();
        }
    } else {
        const auto list = collide::scene_list();
        if (std::none_of(list.begin(), list.end(),
                         [&](const collide::SceneEntry& e) { return e.name == scene; })) {
            warning = "the stored scene '" + scene + "' does not exist";
        }
    }
    options.dim = s.dim;
    if (warning.empty()) {
        options.scene = scene;
        options.scene_from_settings = true;
    }
    options.broadphase = std::string(default_broadphase(options.count));
    if (!s.broadphase.empty()) {
        const collide::BroadPhaseEntry* entry = collide::find_any_broadphase(s.broadphase);
        if (entry != nullptr && entry->supports(s.dim)) {
            options.broadphase = s.broadphase;
        } else if (warning.empty()) {
            warning = "the stored algorithm '" + s.broadphase + "' is not available in " +
                      std::to_string(s.dim) + "D";
        }
    }
    if (warning.empty()) return std::nullopt;
    return "settings: " + warning + "; using the default";
}

}  // namespace collidoscope
