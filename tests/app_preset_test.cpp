// The guided tour's presets (app/presets.*): every preset parses as the command line it is,
// flags beside --preset override it, Demo::show loads one through logged actions, and the
// real app under Xvfb draws each one (--preset-shots): a picture that is not blank, whose
// world region changes when the preset's overlays are switched off in the same frame.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

#include "cli/cli.hpp"
#include "sim/algorithm_policy.hpp"
#include "sim/demo.hpp"
#include "cli/presets.hpp"
#include "main/settings_store.hpp"

namespace {

using collidoscope::Options;

Options parse(std::vector<std::string_view> args) {
    return collidoscope::parse_cli(args).options;
}

TEST(Presets, EveryPresetParsesAndTeaches) {
    std::set<std::string_view> names;
    bool three_d = false;
    for (const collidoscope::Preset& p : collidoscope::presets()) {
        SCOPED_TRACE(std::string(p.name));
        EXPECT_TRUE(names.insert(p.name).second) << "two presets share the name";
        EXPECT_TRUE(std::all_of(p.name.begin(), p.name.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
        })) << "not kebab-case";
        EXPECT_FALSE(p.title.empty());
        const auto sentences = std::count(p.paragraph.begin(), p.paragraph.end(), '.');
        EXPECT_GE(sentences, 3) << p.paragraph;
        EXPECT_LE(p.paragraph.size(), 700u) << "longer than a short paragraph";
        Options o;
        EXPECT_NO_THROW(o = parse({"--preset", p.name}));
        EXPECT_EQ(o.preset, p.name);
        EXPECT_TRUE(o.given.view);
        const auto& f = o.overlays;
        EXPECT_TRUE(f.structure || f.pairs || f.aabbs || f.implicit) << "shows no overlay";
        three_d |= o.dim == 3;
    }
    EXPECT_TRUE(three_d) << "no 3D preset";
    EXPECT_EQ(collidoscope::find_preset("no-such-preset"), nullptr);
}

TEST(Presets, FlagsBesideAPresetOverrideIt) {
    const Options o = parse({"--count", "99", "--preset", "quadtree-centerline"});
    EXPECT_EQ(o.count, 99u);
    EXPECT_EQ(o.select, collide::kNoBody) << "the preset's selection is of its own count";
    EXPECT_EQ(o.scene, "centerline");
    EXPECT_EQ(o.broadphase, "quadtree");
    const Options p = parse({"--preset", "quadtree-centerline", "--param", "capacity=3"});
    ASSERT_EQ(p.params.size(), 1u);
    EXPECT_EQ(p.params[0].value, 3.0f);
    EXPECT_THROW(parse({"--preset", "nope"}), collide::InputError);
}

// Loading a preset goes through logged actions: a world action that reads back as itself,
// and the preset's selection and overlays.
TEST(Presets, DemoShowsAPresetThroughActions) {
    Options start = parse({"--count", "50", "--no-settings"});
    collidoscope::Demo demo(start);
    const Options o = parse({"--preset", "enneatree-centerline"});
    demo.show(o);
    EXPECT_EQ(demo.last_error(), "");
    EXPECT_EQ(demo.scene(), "centerline");
    EXPECT_EQ(demo.count(), o.count);
    EXPECT_EQ(demo.broad_phase(), "enneatree");
    EXPECT_EQ(demo.selected(), o.select);
    EXPECT_TRUE(demo.view().overlays.structure);
    const collidoscope::UserAction world =
        collidoscope::action::SetWorld{o.dim, o.scene, o.count, o.seed, o.broadphase};
    const std::string line = collidoscope::format_action(world);
    EXPECT_EQ(collidoscope::format_action(collidoscope::parse_action(line)), line);
}

// Bug: paused after a rebuild (a count change, a 2D/3D switch, a tour stop), the stats read
// zero pairs until the first step, and the selected body's partner list was empty at most
// stops. The broad phase now runs on the new world at once.
TEST(Presets, APausedRebuildShowsItsPairsAndPartners) {
    collidoscope::Demo demo(parse({"--count", "300", "--paused", "--no-settings"}));
    EXPECT_GT(demo.world().counts().pairs, 0u) << "at the start";
    demo.set_count(900);
    EXPECT_GT(demo.world().counts().pairs, 0u) << "after a count change";
    demo.set_dim(3);
    EXPECT_GT(demo.world().counts().pairs, 0u) << "after a switch to 3D";
    EXPECT_EQ(demo.world().steps(), 0u);  // no step ran: the broad phase alone
    // Every tour stop whose paragraph promises the selected body's partners has some.
    for (const collidoscope::Preset& p : collidoscope::presets()) {
        if (p.paragraph.find("partners") == std::string_view::npos) continue;
        demo.show(parse({"--preset", std::string(p.name)}));
        ASSERT_NE(demo.selected(), collide::kNoBody) << p.name;
        EXPECT_GT(demo.world().body_info(demo.selected(), 8).partner_total, 0u) << p.name;
    }
}

// Bug (found by the monkey on the ASan app): a digit key made brute force the world's
// algorithm at 135,151 bodies, and one frame took 229 s. Over the reference limit the world
// keeps (or falls back to) a fast algorithm, and the panel says why.
TEST(Presets, BruteForceNeverRunsAWorldOverTheReferenceLimit) {
    collidoscope::Demo demo(parse({"--count", "20000", "--paused", "--no-settings"}));
    const std::string before = demo.broad_phase();
    demo.set_broad_phase("brute-force");
    EXPECT_EQ(demo.broad_phase(), before);
    EXPECT_NE(demo.notice().find("brute force at 20000 bodies"), std::string::npos)
        << demo.notice();
    collidoscope::Demo started(
        parse({"--count", "20000", "--broadphase", "brute-force", "--no-settings"}));
    EXPECT_EQ(started.broad_phase(), collidoscope::default_broadphase(20000));
    EXPECT_FALSE(started.notice().empty());
    // Under the limit it runs as asked.
    collidoscope::Demo small(parse({"--count", "500", "--no-settings"}));
    small.set_broad_phase("brute-force");
    EXPECT_EQ(small.broad_phase(), "brute-force");
    EXPECT_EQ(small.notice(), "");
    small.set_count(20000);  // growing past the limit falls back too
    EXPECT_EQ(small.broad_phase(), collidoscope::default_broadphase(20000));
}

// At 1M bodies the app started on sort-and-sweep (0.68 fps on 2 cores): without
// --broadphase a world over kLargeWorldBodies starts on the sorted grid; one asked for stays.
TEST(Presets, LargeWorldsStartOnTheSortedGrid) {
    EXPECT_EQ(parse({"--count", "20000", "--no-settings"}).broadphase, "sort-and-sweep");
    EXPECT_EQ(parse({"--count", "20001", "--no-settings"}).broadphase, "sorted-grid");
    EXPECT_EQ(
        parse({"--count", "1000000", "--broadphase", "zorder-sweep", "--no-settings"}).broadphase,
        "zorder-sweep");
    collidoscope::Demo large(parse({"--count", "30000", "--paused", "--no-settings"}));
    EXPECT_EQ(large.broad_phase(), "sorted-grid");
    // Past the reference limit brute force falls back to the default for the count.
    large.set_broad_phase("brute-force");
    EXPECT_EQ(large.broad_phase(), "sorted-grid");
}

// The Bodies slider keeps the algorithm; a small world's default grown large gets the large
// default offered, and nothing else does.
TEST(Presets, GrownWorldOnTheSmallDefaultIsOfferedTheSortedGrid) {
    collidoscope::Demo demo(parse({"--count", "20000", "--paused", "--no-settings"}));
    EXPECT_EQ(demo.broad_phase(), "sort-and-sweep");
    EXPECT_FALSE(demo.large_world_suggestion());
    demo.set_count(20001);
    EXPECT_EQ(demo.broad_phase(), "sort-and-sweep");
    EXPECT_EQ(demo.large_world_suggestion(), "sorted-grid");
    demo.set_broad_phase("zorder-sweep");
    EXPECT_FALSE(demo.large_world_suggestion());
    demo.set_broad_phase("sort-and-sweep");
    EXPECT_EQ(demo.large_world_suggestion(), "sorted-grid");
    demo.set_broad_phase(std::string(*demo.large_world_suggestion()));
    EXPECT_EQ(demo.broad_phase(), "sorted-grid");
    EXPECT_FALSE(demo.large_world_suggestion());
}

// Bug (issue 26): --ui-scale was overwritten by the stored setting, because the command line
// forgot it had been given.
TEST(Presets, UiScaleOnTheCommandLineBeatsTheSettingsFile) {
    Options o = parse({"--ui-scale", "1.5"});
    EXPECT_TRUE(o.given.ui_scale);
    collidoscope::Settings stored;
    stored.ui_scale = 1.0f;
    collidoscope::apply_settings(stored, o);
    EXPECT_EQ(o.ui_scale, 1.5f);
    Options plain = parse({"--count", "10"});
    collidoscope::apply_settings(stored, plain);
    EXPECT_EQ(plain.ui_scale, 1.0f);  // without the flag, the stored one
}

// The settings file keeps the preset shown on exit, and reads it back.
TEST(Presets, SettingsFileKeepsThePreset) {
    collidoscope::Settings s;
    s.preset = "morton-cells";
    const std::string text = collidoscope::settings_text(s);
    EXPECT_NE(text.find("preset=morton-cells\n"), std::string::npos) << text;
    EXPECT_EQ(collidoscope::parse_settings(text, "test").settings.preset, "morton-cells");
    EXPECT_EQ(collidoscope::settings_text({}).find("preset="), std::string::npos);
}

// The world between the panels, as 0xRRGGBB, or empty if the file cannot be read.
std::vector<std::uint32_t> world_region(const std::string& png) {
    int w = 0, h = 0, channels = 0;
    unsigned char* pixels = stbi_load(png.c_str(), &w, &h, &channels, 3);
    if (pixels == nullptr) return {};
    std::vector<std::uint32_t> out;
    for (int y = h * 5 / 100; y < h * 80 / 100; ++y) {
        for (int x = w * 28 / 100; x < w * 74 / 100; ++x) {
            const unsigned char* p = pixels + 3 * (y * w + x);
            out.push_back((std::uint32_t{p[0]} << 16) | (std::uint32_t{p[1]} << 8) | p[2]);
        }
    }
    stbi_image_free(pixels);
    return out;
}

TEST(Presets, EveryPresetDrawsItsOverlays) {
    const std::string dir = PRESET_OUT_DIR;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string cmd = "xvfb-run -a -s '-screen 0 1280x720x24' '" COLLIDOSCOPE_APP
                            "' --no-settings --msaa 0 --preset-shots '" +
                            dir + "' > /dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    for (const collidoscope::Preset& p : collidoscope::presets()) {
        SCOPED_TRACE(std::string(p.name));
        const std::vector<std::uint32_t> on =
            world_region(dir + "/" + std::string(p.name) + ".png");
        const std::vector<std::uint32_t> off =
            world_region(dir + "/" + std::string(p.name) + "-plain.png");
        ASSERT_FALSE(on.empty()) << "no picture";
        ASSERT_EQ(on.size(), off.size());
        const std::set<std::uint32_t> colours(on.begin(), on.end());
        std::size_t differ = 0;
        for (std::size_t i = 0; i < on.size(); ++i) differ += on[i] != off[i];
        const double share = static_cast<double>(differ) / static_cast<double>(on.size());
        std::cout << p.name << ": " << colours.size() << " colours; overlays change "
                  << share * 100.0 << "% of the world region\n";
        EXPECT_GT(colours.size(), 50u) << "the world region is nearly blank";
        EXPECT_GT(share, 0.005) << "switching the overlays off changes (almost) nothing";
    }
}

}  // namespace
