// Settings that persist between sessions (as Box2D's samples keep theirs): the window size,
// which panels are open, the overlays, the colour mode, the UI scale and the last scene
// (dimension, scene and algorithm, or the tour's preset while it was still shown). They live in
// $XDG_CONFIG_HOME/collidoscope/settings.ini (else ~/.config/collidoscope/settings.ini) as
// key=value lines. A plain struct with text in and out, no SDL or ImGui: a bad file gives one
// warning naming the file and line, and the defaults, never an exception.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cli/launch_options.hpp"
#include "common/palette.hpp"

namespace collidoscope {

struct Settings {
    int width = 1280;
    int height = 720;
    PanelState panels;
    OverlayFlags overlays;  // hidden layers are the algorithm's, so not kept
    bool overlays_on_top = true;
    ColorMode color_mode = ColorMode::kSpeed;
    float ui_scale = 0.0f;  // 0: the display's DPI decides
    int dim = 2;
    std::string scene = "uniform";
    std::string broadphase;  // empty: the default algorithm
    std::string preset;      // the preset shown on exit (presets.hpp); empty: none
};

// What reading a settings file gave: the settings (the defaults if anything was wrong) and,
// if so, one line saying what and where.
struct SettingsLoad {
    Settings settings;
    std::optional<std::string> warning;  // what was wrong with the file, if anything
};

// The settings file's path; empty when neither XDG_CONFIG_HOME nor HOME is set.
std::string settings_path();

// Parses the text of a settings file named `name` (for messages). Unknown keys are skipped,
// so an older app reads a newer file; a line without '=' or a value of the wrong type or out
// of range is ignored alone (the warning names the first); binary data rejects the file.
SettingsLoad parse_settings(std::string_view text, const std::string& name);
// The file's text; values the reader would refuse (a 1x1 window) are written clamped.
std::string settings_text(const Settings& settings);

// Reads `path`; a missing file is no warning (the defaults, as on a first run).
SettingsLoad load_settings(const std::string& path);
// Writes `path`, creating its folder; throws collide::InputError naming the path and why not.
void save_settings(const std::string& path, const Settings& settings);

// The stored settings as the app's start options, where the command line did not say
// otherwise (Options::given). A stored scene or algorithm this build or dimension does not
// have is dropped with a warning (returned).
std::optional<std::string> apply_settings(const Settings& settings, Options& options);

}  // namespace collidoscope
