// The GPU rows' own promises beyond the equivalence suites (which run them on every scene):
// a pair buffer that overflows is redone at the counted size, the list comes back in one
// order, the device time is measured, and the status names the GL renderer. Under llvmpipe
// in CI; they skip (saying why) only where no GL 4.3 context can be made, and never in CI.
#include <gtest/gtest.h>

#include "collide/gpu/catalog.hpp"
#include "test_support.hpp"
#include "tooling/ballistic.hpp"
#include "tooling/scenes.hpp"

namespace collide {
namespace {

using testing::reference_pairs;

std::vector<std::string> gpu_rows() {
    std::vector<std::string> out;
    for (const BroadPhaseEntry& e : gpu_broadphases()) out.emplace_back(e.name);
    return out;
}

class GpuRow : public ::testing::TestWithParam<std::string> {};

// A sparse frame first (the buffer stays small), then every body at one point: 1,999,000
// pairs, far past the buffer, all of them reported, in order.
TEST_P(GpuRow, OverflowingPairBufferIsRedoneNotTruncated) {
    SKIP_WITHOUT_GPU(GetParam());
    auto bp = make_any_broadphase<2>(GetParam());
    std::vector<Aabb<2>> boxes;
    for (int i = 0; i < 2000; ++i) boxes.push_back(Aabb<2>::around(Vec<2>(3.0f * i, 0.0f), 1.0f));
    const std::vector<std::uint8_t> is_static(boxes.size(), 0);
    PairList got;
    bp->update(boxes, is_static, got);
    EXPECT_EQ(got, reference_pairs<2>(boxes, is_static));
    for (auto& b : boxes) b = Aabb<2>::around(Vec<2>(5.0f), 1.0f);
    bp->update(boxes, is_static, got);
    ASSERT_EQ(got.size(), 2000u * 1999u / 2u);
    EXPECT_EQ(got, reference_pairs<2>(boxes, is_static));
}

// Two instances, the same frames: the same lists, element for element, sorted by (a, b).
TEST_P(GpuRow, OutputIsSortedAndRepeatable) {
    SKIP_WITHOUT_GPU(GetParam());
    BallisticMotion<3> motion(make_scene<3>("clusters", 5000, 9), 0.5f, 9);
    auto one = make_any_broadphase<3>(GetParam());
    auto two = make_any_broadphase<3>(GetParam());
    PairList a, b;
    for (int frame = 0; frame < 3; ++frame) {
        one->update(motion.boxes(), motion.is_static(), a);
        two->update(motion.boxes(), motion.is_static(), b);
        ASSERT_FALSE(a.empty());
        EXPECT_TRUE(std::is_sorted(a.begin(), a.end())) << "frame " << frame;
        EXPECT_EQ(a, b) << "frame " << frame;
        motion.advance();
    }
}

TEST_P(GpuRow, ReportsDeviceTimeAndRenderer) {
    SKIP_WITHOUT_GPU(GetParam());
    auto bp = make_any_broadphase<2>(GetParam());
    BallisticMotion<2> motion(make_scene<2>("uniform", 3000, 1), 0.2f, 1);
    PairList got;
    bp->update(motion.boxes(), motion.is_static(), got);
    EXPECT_GT(bp->stats().device_ms, 0.0);
    EXPECT_GT(bp->stats().structure_bytes, 0u);
    EXPECT_EQ(bp->status().rfind("GPU: ", 0), 0u) << bp->status();
    // CPU rows have no device time.
    auto cpu = make_any_broadphase<2>("sorted-grid");
    cpu->update(motion.boxes(), motion.is_static(), got);
    EXPECT_LT(cpu->stats().device_ms, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Catalog, GpuRow, ::testing::ValuesIn(gpu_rows()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string name = info.param;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

}  // namespace
}  // namespace collide
