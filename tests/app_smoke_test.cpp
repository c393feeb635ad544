// Drives the real app under Xvfb (Mesa llvmpipe): for each dimension and each registered
// algorithm, with every overlay on, it runs 30 frames and writes a screenshot. The test
// fails if the app fails, or the PNG is missing or nearly uniform (nothing was drawn).
#include <cstdlib>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

#include "collide/registry.hpp"

namespace {

struct Case {
    std::string algorithm;
    int dim;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.algorithm << " " << c.dim << "D"; }

std::vector<Case> cases() {
    std::vector<Case> out;
    for (const auto& e : collide::broadphases()) {
        for (int dim : {2, 3}) {
            if (e.supports(dim)) out.push_back({std::string(e.name), dim});
        }
    }
    return out;
}

class AppSmoke : public ::testing::TestWithParam<Case> {};

TEST_P(AppSmoke, RendersAScreenshot) {
    const Case& c = GetParam();
    std::filesystem::create_directories(SMOKE_OUT_DIR);
    const std::string png = std::string(SMOKE_OUT_DIR) + "/" + c.algorithm + "_" + std::to_string(c.dim) + "d.png";
    std::filesystem::remove(png);
    const std::string cmd = "xvfb-run -a -s '-screen 0 1280x720x24' '" COLLIDOSCOPE_APP "' --dim " +
                            std::to_string(c.dim) + " --broadphase " + c.algorithm +
                            " --overlay all --select 0 --frames 30 --screenshot '" + png + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    ASSERT_TRUE(std::filesystem::exists(png)) << png;

    int w = 0, h = 0, channels = 0;
    unsigned char* pixels = stbi_load(png.c_str(), &w, &h, &channels, 3);
    ASSERT_NE(pixels, nullptr) << stbi_failure_reason();
    EXPECT_EQ(w, 1280);
    EXPECT_EQ(h, 720);
    // Nearly uniform = the most common colour covers almost every pixel.
    std::map<std::uint32_t, int> histogram;
    const int count = w * h;
    for (int i = 0; i < count; ++i) {
        const unsigned char* p = pixels + 3 * i;
        ++histogram[(std::uint32_t{p[0]} << 16) | (std::uint32_t{p[1]} << 8) | p[2]];
    }
    stbi_image_free(pixels);
    int most = 0;
    for (const auto& [color, n] : histogram) most = std::max(most, n);
    EXPECT_LT(most, count * 95 / 100) << "the screenshot is nearly one colour";
    EXPECT_GT(histogram.size(), 200u) << "too few distinct colours for circles, overlays and UI";
}

INSTANTIATE_TEST_SUITE_P(Registry, AppSmoke, ::testing::ValuesIn(cases()), [](const auto& info) {
    std::string name = info.param.algorithm + "_" + std::to_string(info.param.dim) + "d";
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
});

}  // namespace
