// The settings file (app/main/settings_store.hpp): it round-trips, and anything wrong with it
// (binary garbage, a folder in its place, wrong types, absurd values) gives one warning line
// naming the file and line, and the defaults; never an exception.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "main/settings_store.hpp"
#include "tooling/input_error.hpp"

namespace collidoscope {
namespace {

std::filesystem::path temp_dir(const std::string& name) {
    const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

void expect_defaults(const Settings& s) {
    const Settings d;
    EXPECT_EQ(s.width, d.width);
    EXPECT_EQ(s.height, d.height);
    EXPECT_EQ(s.ui_scale, d.ui_scale);
    EXPECT_EQ(s.scene, d.scene);
    EXPECT_EQ(s.dim, d.dim);
    EXPECT_EQ(s.panels.keys, d.panels.keys);
    EXPECT_EQ(s.overlays.aabbs, d.overlays.aabbs);
}

// One line, naming the file (and line), ending in "using the defaults".
void expect_warning(const SettingsLoad& got, const std::string& where, const std::string& why) {
    ASSERT_TRUE(got.warning.has_value());
    const std::string& warning = *got.warning;
    EXPECT_EQ(warning.find('\n'), std::string::npos) << warning;
    EXPECT_NE(warning.find(where), std::string::npos) << warning;
    EXPECT_NE(warning.find(why), std::string::npos) << warning;
    EXPECT_TRUE(warning.ends_with("; using the defaults")) << warning;
    expect_defaults(got.settings);
}

TEST(SettingsStore, RoundTrips) {
    Settings s;
    s.width = 1600;
    s.height = 900;
    s.panels.keys = true;
    s.panels.query = false;
    s.panels.race = true;
    s.overlays.aabbs = true;
    s.overlays.structure = true;
    s.overlays_on_top = false;
    s.color_mode = ColorMode::kId;
    s.ui_scale = 1.25f;
    s.dim = 3;
    s.scene = "blobs";
    s.broadphase = "dynamic-aabb-tree";
    const std::string path = (temp_dir("settings_rt") / "sub" / "settings.ini").string();
    save_settings(path, s);  // creates the folder
    const SettingsLoad back = load_settings(path);
    EXPECT_EQ(back.warning, std::nullopt);
    EXPECT_EQ(settings_text(back.settings), settings_text(s));
    EXPECT_EQ(back.settings.width, 1600);
    EXPECT_EQ(back.settings.color_mode, ColorMode::kId);
    EXPECT_EQ(back.settings.broadphase, "dynamic-aabb-tree");
}

TEST(SettingsStore, MissingFileIsAFirstRun) {
    const SettingsLoad got = load_settings((temp_dir("settings_none") / "settings.ini").string());
    EXPECT_EQ(got.warning, std::nullopt);
    expect_defaults(got.settings);
}

TEST(SettingsStore, CommentsBlanksAndUnknownKeysAreFine) {
    const SettingsLoad got =
        parse_settings("# mine\n\n  window_width = 800 \r\nfuture_key=whatever\n", "f.ini");
    EXPECT_EQ(got.warning, std::nullopt);
    EXPECT_EQ(got.settings.width, 800);
}

TEST(SettingsStore, BinaryFilesGiveOneWarningAndTheDefaults) {
    expect_warning(parse_settings(std::string("PK\x03\x04\0\xff\xfe garbage", 15), "f.ini"),
                   "settings file f.ini", "is not a text file");
}

// A bad line drops that line, not the file (it dropped every setting before issue 27).
void expect_line_dropped(const std::string& text, const std::string& where,
                         const std::string& why) {
    const SettingsLoad got = parse_settings(text + "\ndim=3\nwindow_height=500\n", "f.ini");
    ASSERT_TRUE(got.warning.has_value()) << text;
    const std::string& warning = *got.warning;
    EXPECT_EQ(warning.find('\n'), std::string::npos) << warning;
    EXPECT_NE(warning.find(where), std::string::npos) << warning;
    EXPECT_NE(warning.find(why), std::string::npos) << warning;
    EXPECT_TRUE(warning.ends_with("; that line is ignored")) << warning;
    EXPECT_EQ(got.settings.dim, 3) << text;  // the good lines around it still count
    EXPECT_EQ(got.settings.height, 500) << text;
}

TEST(SettingsStore, BadLinesAreDroppedOneByOne) {
    expect_line_dropped("window_width=800\nwindow_height=1e9", "f.ini:2",
                        "window_height must be a whole number from 64 to 16384, not '1e9'");
    expect_line_dropped("window_width=99999999999999999999", "f.ini:1",
                        "window_width must be a whole number");
    expect_line_dropped("ui_scale=nan", "f.ini:1", "ui_scale");
    expect_line_dropped("ui_scale=1000", "f.ini:1", "ui_scale");
    expect_line_dropped("panel_keys=yes", "f.ini:1", "panel_keys must be 0 or 1, not 'yes'");
    expect_line_dropped("color_mode=3", "f.ini:1", "color_mode");
    expect_line_dropped("dim=4", "f.ini:1", "dim must be 2 or 3");
    expect_line_dropped("scene=", "f.ini:1", "scene is empty");
    expect_line_dropped("# ok\njust some words", "f.ini:2", "'just some words' is not key=value");
    expect_line_dropped(std::string(5000, 'x'), "f.ini:1",
                        "...' is not key=value");  // the quote is cut short
    // The good value before a bad one survives; a second bad line is counted.
    const SettingsLoad two = parse_settings("window_width=800\ndim=9\nui_scale=0\n", "f.ini");
    EXPECT_EQ(two.settings.width, 800);
    const std::string warning = two.warning.value_or("");
    EXPECT_NE(warning.find("f.ini:2: dim must be 2 or 3"), std::string::npos) << warning;
    EXPECT_NE(warning.find("(and 1 more bad line)"), std::string::npos) << warning;
}

// Bug: a 1x1 window stored window_width=1, which the next start refused, dropping the file.
TEST(SettingsStore, NeverWritesAValueItRefuses) {
    Settings s;
    s.width = 1;
    s.height = 100000;
    s.ui_scale = 7.0f;
    const SettingsLoad back = parse_settings(settings_text(s), "f.ini");
    EXPECT_EQ(back.warning, std::nullopt);
    EXPECT_EQ(back.settings.width, 64);
    EXPECT_EQ(back.settings.height, 16384);
    EXPECT_EQ(back.settings.ui_scale, 2.0f);
}

TEST(SettingsStore, UnreadableFilesGiveOneWarningAndTheDefaults) {
    const std::filesystem::path dir = temp_dir("settings_bad");
    const std::string folder = (dir / "settings.ini").string();
    std::filesystem::create_directories(folder);
    expect_warning(load_settings(folder), folder, "is a directory");

    const std::string big = (dir / "big.ini").string();
    std::ofstream(big) << std::string((1 << 20) + 10, '#');
    expect_warning(load_settings(big), big, "larger than 1 MiB");
}

TEST(SettingsStore, PathFollowsXdgThenHome) {
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    const std::string saved = xdg ? xdg : "";
    ::setenv("XDG_CONFIG_HOME", "/tmp/xdg", 1);
    EXPECT_EQ(settings_path(), "/tmp/xdg/collidoscope/settings.ini");
    ::setenv("XDG_CONFIG_HOME", "", 1);
    const char* home = std::getenv("HOME");
    if (home != nullptr && *home != '\0') {
        EXPECT_EQ(settings_path(), std::string(home) + "/.config/collidoscope/settings.ini");
    }
    if (xdg) {
        ::setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
    } else {
        ::unsetenv("XDG_CONFIG_HOME");
    }
}

TEST(SettingsStore, CommandLineWinsAndBadSceneIsDropped) {
    Settings s;
    s.width = 800;
    s.overlays.pairs = true;
    s.dim = 3;
    s.scene = "rain";
    s.broadphase = "no-such-algorithm";
    Options given;
    given.given.size = true;
    given.width = 1000;
    EXPECT_NE(apply_settings(s, given).value_or("").find("no-such-algorithm"), std::string::npos);
    EXPECT_EQ(given.width, 1000);  // --size wins
    EXPECT_TRUE(given.overlays.pairs);
    EXPECT_EQ(given.dim, 3);
    EXPECT_EQ(given.scene, "rain");
    EXPECT_EQ(given.broadphase, "sort-and-sweep");  // the default, not the bad one

    s.scene = "csv:/nonexistent.csv";
    Options fresh;
    EXPECT_NE(apply_settings(s, fresh).value_or("").find("stored scene"), std::string::npos);
    EXPECT_EQ(fresh.scene, "uniform");

    Options scene_given;
    scene_given.given.scene = true;
    scene_given.dim = 2;
    EXPECT_EQ(apply_settings(s, scene_given), std::nullopt);
    EXPECT_EQ(scene_given.dim, 2);  // --dim and the like win over the stored scene
    EXPECT_EQ(scene_given.width, 800);
}

// One error style in the app: a save that fails throws, naming the file (it returned the
// message as a string, empty on success, which a caller could ignore).
TEST(SettingsStore, SaveThatFailsThrowsNamingTheFile) {
    const std::filesystem::path blocker = temp_dir("settings_blocked") / "a-file";
    std::ofstream(blocker) << "not a folder";
    const std::string path = (blocker / "settings.ini").string();
    try {
        save_settings(path, Settings{});
        FAIL() << "saving under a file did not throw";
    } catch (const collide::InputError& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace collidoscope
