// auto: its rules (tiny n, fast motion) with their dead bands, and the patience before a
// switch; that its pairs are exact is checked with every other registry entry.
#include <gtest/gtest.h>

#include "broadphase/auto_select.hpp"
#include "collide/registry.hpp"
#include "tooling/random.hpp"

namespace collide {
namespace {

using Auto = AutoSelect<2>;

TEST(Auto, RulesHaveDeadBands) {
    EXPECT_EQ(Auto::choose(11, 0.0f, ""), "brute-force");
    EXPECT_EQ(Auto::choose(70, 0.0f, ""), "dynamic-aabb-tree");
    EXPECT_EQ(Auto::choose(70, 0.0f, "brute-force"), "brute-force");  // inside the band
    EXPECT_EQ(Auto::choose(200, 0.0f, "brute-force"), "dynamic-aabb-tree");
    EXPECT_EQ(Auto::choose(5000, 0.15f, "dynamic-aabb-tree"), "dynamic-aabb-tree");
    EXPECT_EQ(Auto::choose(5000, 0.15f, "radix-chunks"), "radix-chunks");
    EXPECT_EQ(Auto::choose(5000, 0.3f, "dynamic-aabb-tree"), "radix-chunks");
    EXPECT_EQ(Auto::choose(5000, 0.05f, "radix-chunks"), "dynamic-aabb-tree");
}

std::vector<Aabb<2>> boxes_at(std::size_t n, float shift) {
    Rng rng(3);
    std::vector<Aabb<2>> boxes;
    for (std::size_t i = 0; i < n; ++i) {
        const Vec<2> c = rng.in_box<2>(Vec<2>(0.0f), Vec<2>(100.0f)) + Vec<2>(shift, 0.0f);
        boxes.push_back(Aabb<2>::around(c, 0.5f));
    }
    return boxes;
}

// Fast bodies (half a size per update) make it switch to radix-chunks, but only after
// kPatience updates that all want it.
TEST(Auto, SwitchesAfterPatience) {
    Auto a(&make_broadphase<2>);
    PairList pairs;
    const std::vector<std::uint8_t> still(2000, 0);
    a.update(boxes_at(2000, 0.0f), still, pairs);
    EXPECT_EQ(a.current(), "dynamic-aabb-tree");
    for (int i = 1; i < Auto::kPatience; ++i) {
        a.update(boxes_at(2000, 0.5f * static_cast<float>(i)), still, pairs);
        EXPECT_EQ(a.current(), "dynamic-aabb-tree") << "update " << i;
    }
    a.update(boxes_at(2000, 0.5f * Auto::kPatience), still, pairs);
    EXPECT_EQ(a.current(), "radix-chunks");
    EXPECT_NE(a.status().find("radix-chunks"), std::string::npos) << a.status();
}

}  // namespace
}  // namespace collide
