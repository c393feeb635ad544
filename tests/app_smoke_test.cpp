// Drives the real app under Xvfb (Mesa llvmpipe): for each dimension and each registered
// algorithm, with every overlay on, it runs 10 frames and writes a screenshot. The test
// fails if the app fails, or the PNG is missing or nearly uniform (nothing was drawn). One
// more run checks that a --query region and the bodies it finds are drawn.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

#include "collide/gpu/catalog.hpp"
#include "common/palette.hpp"

namespace {

struct Case {
    std::string algorithm;
    int dim;
};

void PrintTo(const Case& c, std::ostream* os) {
    *os << c.algorithm << " " << c.dim << "D";
}

std::vector<Case> cases() {
    std::vector<Case> out;
    for (const auto& e : collide::all_broadphases()) {
        for (int dim : {2, 3}) {
            if (e.supports(dim)) out.push_back({std::string(e.name), dim});
        }
    }
    return out;
}

// The middle of a screenshot, where the world is drawn between the panels, as 0xRRGGBB.
std::vector<std::uint32_t> world_region_pixels(const std::string& png) {
    int w = 0, h = 0, channels = 0;
    unsigned char* pixels = stbi_load(png.c_str(), &w, &h, &channels, 3);
    EXPECT_NE(pixels, nullptr) << png << ": " << stbi_failure_reason();
    if (pixels == nullptr) return {};
    EXPECT_EQ(w, 1280);
    EXPECT_EQ(h, 720);
    std::vector<std::uint32_t> out;
    for (int y = h * 15 / 100; y < h * 85 / 100; ++y) {
        for (int x = w * 30 / 100; x < w * 70 / 100; ++x) {
            const unsigned char* p = pixels + 3 * (y * w + x);
            out.push_back((std::uint32_t{p[0]} << 16) | (std::uint32_t{p[1]} << 8) | p[2]);
        }
    }
    stbi_image_free(pixels);
    return out;
}

// Colour variety of the world region.
struct RegionColours {
    std::size_t distinct = 0;
    double most_common_share = 1.0;  // of the region's pixels
};

RegionColours world_region_colours(const std::string& png) {
    const std::vector<std::uint32_t> pixels = world_region_pixels(png);
    std::map<std::uint32_t, int> histogram;
    for (std::uint32_t p : pixels) ++histogram[p];
    int most = 0;
    for (const auto& [color, n] : histogram) most = std::max(most, n);
    const RegionColours c{histogram.size(),
                          static_cast<double>(most) / std::max<double>(pixels.size(), 1.0)};
    std::cout << png << ": world region has " << c.distinct << " colours, the commonest on "
              << c.most_common_share * 100 << "% of it\n";
    return c;
}

// Bodies drawn = many colours (shading, antialiasing, speed ramp) and no single colour
// covering nearly everything.
bool shows_bodies(const RegionColours& c) {
    return c.distinct > 200 && c.most_common_share < 0.9;
}

// Runs the app under Xvfb and returns the screenshot's path.
std::string run_app(const std::string& name, const std::string& args, int frames = 30) {
    std::filesystem::create_directories(SMOKE_OUT_DIR);
    const std::string png = std::string(SMOKE_OUT_DIR) + "/" + name + ".png";
    std::filesystem::remove(png);
    const std::string cmd = "xvfb-run -a -s '-screen 0 1280x720x24' '" COLLIDOSCOPE_APP "' " +
                            args + " --frames " + std::to_string(frames) + " --screenshot '" + png +
                            "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    EXPECT_TRUE(std::filesystem::exists(png)) << png;
    return png;
}

// --race runs every algorithm on each frame's boxes; all must agree with brute force.
TEST(AppSmokeRace, EveryAlgorithmAgrees) {
    for (int dim : {2, 3}) {
        const std::string name = "race_" + std::to_string(dim) + "d";
        const std::string log = std::string(SMOKE_OUT_DIR) + "/" + name + ".txt";
        run_app(name, "--dim " + std::to_string(dim) + " --scene clusters --count 2000 --race > '" +
                          log + "'");
        std::ifstream in(log);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::cout << text;
        EXPECT_NE(text.find("reference brute-force"), std::string::npos) << text;
        EXPECT_NE(text.find("differ: none"), std::string::npos) << text;
        for (const collide::BroadPhaseEntry& e : collide::all_broadphases()) {
            if (!e.supports(dim)) continue;
            std::string name(" ");  // built up, not with +, which trips GCC 12's -Wrestrict
            name.append(e.name).append(" ");
            EXPECT_NE(text.find(name), std::string::npos) << e.name;
        }
    }
}

class AppSmoke : public ::testing::TestWithParam<Case> {};

// 34 launches under software GL: 2,000 bodies without multisampling over 10 frames draw every
// overlay at a tenth of the default's cost (CI time).
constexpr const char* kCheap = " --count 2000 --msaa 0";

TEST_P(AppSmoke, RendersAScreenshot) {
    const Case& c = GetParam();
    const std::string png = run_app(c.algorithm + "_" + std::to_string(c.dim) + "d",
                                    "--dim " + std::to_string(c.dim) + " --broadphase " +
                                        c.algorithm + " --overlay all --select 0" + kCheap,
                                    10);
    const RegionColours colours = world_region_colours(png);
    EXPECT_TRUE(shows_bodies(colours))
        << "the world region looks empty: " << colours.distinct
        << " colours, the commonest covering " << colours.most_common_share;
}

// The check above must be able to fail: an empty world (UI and world outline only) does not
// pass it.
TEST(AppSmokeControl, EmptyWorldIsSeenAsEmpty) {
    for (int dim : {2, 3}) {
        const std::string png =
            run_app("empty_" + std::to_string(dim) + "d",
                    "--dim " + std::to_string(dim) + " --count 0 --overlay all");
        const RegionColours colours = world_region_colours(png);
        EXPECT_FALSE(shows_bodies(colours)) << dim << "D: " << colours.distinct
                                            << " colours, commonest " << colours.most_common_share;
    }
}

// --query draws the region's outline and rings around the bodies found, in their own colours
// (the app's kQueryRegionColor and kQueryHitColor, violets the bodies never reach). Without
// multisampling, lines keep their exact colour.
TEST(AppSmokeQuery, DrawsTheRegionAndWhatItFound) {
    constexpr std::uint32_t kRegion = 0xB040FF;
    constexpr std::uint32_t kHit = 0xC890FF;
    // Regions in the middle of 2,000-body uniform worlds (about 110 wide in 2D, 27 in 3D).
    const std::pair<int, std::string> runs[] = {{2, "40,40,80,80"}, {3, "8,8,8,19,19,19"}};
    for (const auto& [dim, region] : runs) {
        const std::string png =
            run_app("query_" + std::to_string(dim) + "d",
                    "--dim " + std::to_string(dim) + " --count 2000 --msaa 0 --query " + region);
        const std::vector<std::uint32_t> pixels = world_region_pixels(png);
        const auto outline = std::count(pixels.begin(), pixels.end(), kRegion);
        const auto found = std::count(pixels.begin(), pixels.end(), kHit);
        std::cout << dim << "D: " << outline << " outline pixels, " << found
                  << " pixels of rings around found bodies\n";
        EXPECT_GT(outline, 200) << dim << "D: the region's outline is missing";
        EXPECT_GT(found, 200) << dim << "D: no found bodies are highlighted";
        EXPECT_TRUE(shows_bodies(world_region_colours(png))) << dim << "D";
    }
}

// One run for both views of issue 15: --compare splits the world view into two panes and
// --color cost paints the bodies with the heat map's ramp. Each half of the world region
// must show bodies, and bodies must carry exact ramp colours (their flat centres), which
// the speed and id colourings do not produce.
TEST(AppSmokeCompare, PanesAndCostColours) {
    const std::string png = run_app("compare_cost_2d",
                                    "--scene centerline --count 2000 --msaa 0 --overlay structure "
                                    "--compare quadtree,enneatree --color cost");
    const std::vector<std::uint32_t> pixels = world_region_pixels(png);
    ASSERT_FALSE(pixels.empty());
    std::set<std::uint32_t> ramp;
    for (int k = 0; k <= 4000; ++k) ramp.insert(collidoscope::cost_color(k / 4000.0f) & 0xFFFFFFu);
    const auto on_ramp = std::count_if(pixels.begin(), pixels.end(),
                                       [&](std::uint32_t p) { return ramp.contains(p); });
    std::cout << on_ramp << " pixels in the cost ramp's colours\n";
    EXPECT_GT(on_ramp, 500) << "no bodies in the heat map's colours";
    // The region spans 30%..70% of the width: its left and right halves are the two panes.
    const std::size_t width = 1280 * 70 / 100 - 1280 * 30 / 100;
    std::set<std::uint32_t> left, right;
    for (std::size_t i = 0; i < pixels.size(); ++i)
        (i % width < width / 2 ? left : right).insert(pixels[i]);
    EXPECT_GT(left.size(), 100u) << "left pane looks empty";
    EXPECT_GT(right.size(), 100u) << "right pane looks empty";
}

INSTANTIATE_TEST_SUITE_P(Registry, AppSmoke, ::testing::ValuesIn(cases()), [](const auto& info) {
    std::string name = info.param.algorithm + "_" + std::to_string(info.param.dim) + "d";
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
});

}  // namespace

// Bodies under a pixel wide are dots (Renderer::draw_dots: a compute pass marks their pixels),
// in the CPU world and in the GPU world: 150,000 bodies of radius 0.5 to 1 fill a world about
// 950 wide, drawn about 500 pixels wide.
TEST(AppSmokeDots, SubPixelBodiesShowInBothWorlds) {
    for (const char* world : {"cpu", "gpu"}) {
        const std::string png = run_app(std::string("dots_") + world,
                                        std::string("--count 150000 --msaa 0 --overlay none "
                                                    "--world ") +
                                            world,
                                        2);
        const RegionColours colours = world_region_colours(png);
        EXPECT_TRUE(shows_bodies(colours)) << world << ": " << colours.distinct
                                           << " colours, commonest " << colours.most_common_share;
    }
}
