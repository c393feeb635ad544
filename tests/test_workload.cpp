// The bench's workloads: Maxwell-Boltzmann speeds with the requested median, an exact share
// of resting bodies, the old equal-speed motion, and traces of a real simulation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "collide/registry.hpp"
#include "tooling/ballistic.hpp"
#include "tooling/pair_check.hpp"
#include "tooling/trace.hpp"

namespace collide {
namespace {

template <int D>
float median_of(std::vector<float> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

template <int D>
std::vector<float> speeds_over_radius(const BallisticMotion<D>& m) {
    const float r = median_of<D>(m.bodies().radius);
    std::vector<float> s;
    for (std::size_t i = 0; i < m.size(); ++i) {
        if (!m.is_static()[i]) s.push_back(glm::length(m.bodies().vel[i]) / r);
    }
    return s;
}

template <int D>
void expect_median_speed() {
    // 20,000 speeds: the sample median's standard error is about 1%.
    for (const char* scene : {"uniform", "powerlaw"}) {
        BallisticMotion<D> m(make_scene<D>(scene, 20000, 3), MotionSettings{.speed = 0.4f}, 3);
        const std::vector<float> s = speeds_over_radius<D>(m);
        EXPECT_NEAR(median_of<D>(s), 0.4f, 0.4f * 0.03f) << D << "D " << scene;
        // A spread, not one speed: the quartiles lie well apart.
        std::vector<float> sorted = s;
        std::sort(sorted.begin(), sorted.end());
        EXPECT_GT(sorted[sorted.size() * 3 / 4], 1.3f * sorted[sorted.size() / 4]);
    }
}

TEST(Workload, MaxwellBoltzmannMedianSpeed2D) {
    expect_median_speed<2>();
}
TEST(Workload, MaxwellBoltzmannMedianSpeed3D) {
    expect_median_speed<3>();
}

TEST(Workload, EqualSpeedsAreOneSpeed) {
    BallisticMotion<3> m(make_scene<3>("powerlaw", 3000, 2),
                         MotionSettings{.speed = 0.25f, .speeds = SpeedDistribution::kEqual}, 2);
    for (float s : speeds_over_radius<3>(m)) EXPECT_NEAR(s, 0.25f, 1e-5f);
}

TEST(Workload, RestingShareIsExactAndStaysPut) {
    Scene<2> scene = make_scene<2>("uniform", 1001, 5);
    for (std::size_t i = 0; i < 1001; i += 10) scene.bodies.is_static[i] = 1;  // 101 static
    BallisticMotion<2> m(std::move(scene), MotionSettings{.speed = 0.5f, .resting = 0.25f}, 5);
    const std::vector<Aabb<2>> before = m.boxes();
    m.advance();
    std::size_t resting = 0, moved = 0;
    for (std::size_t i = 0; i < m.size(); ++i) {
        const bool still = m.bodies().vel[i] == Vec<2>(0.0f);
        if (!m.is_static()[i] && still) ++resting;
        if (!(m.boxes()[i].lo == before[i].lo)) ++moved;
        if (m.is_static()[i] || still) {
            EXPECT_TRUE(m.boxes()[i].lo == before[i].lo) << i;
        }
    }
    EXPECT_EQ(resting, 225u);  // round(0.25 x 900)
    EXPECT_EQ(moved, 675u);
}

TEST(Workload, SpeedDistributionNames) {
    EXPECT_EQ(speed_distribution("equal"), SpeedDistribution::kEqual);
    EXPECT_EQ(speed_distribution("maxwell-boltzmann"), SpeedDistribution::kMaxwellBoltzmann);
    EXPECT_FALSE(speed_distribution("gauss"));
}

// A trace of rain piling up, replayed to two algorithms: the same pairs on every frame.
TEST(Workload, TraceReplaysTheSameFramesToEveryAlgorithm) {
    Scene<2> scene = make_scene<2>("rain", 800, 9);
    World<2> world(scene.settings, std::move(scene.bodies), make_broadphase<2>("sort-and-sweep"));
    const Trace<2> trace = Trace<2>::record(world, 12);
    ASSERT_EQ(trace.frames(), 12);
    ASSERT_EQ(trace.size(), 800u);
    EXPECT_FALSE(trace.boxes(0)[0].lo == trace.boxes(11)[0].lo);  // the bodies fell
    auto a = make_broadphase<2>("dynamic-aabb-tree");
    auto b = make_broadphase<2>("sorted-grid");
    PairList pa, pb;
    for (int f = 0; f < trace.frames(); ++f) {
        a->update(trace.boxes(f), trace.is_static(), pa);
        b->update(trace.boxes(f), trace.is_static(), pb);
        std::sort(pa.begin(), pa.end());
        std::sort(pb.begin(), pb.end());
        EXPECT_EQ(pair_set_difference(pa, pb), std::nullopt) << "frame " << f;
    }
}

// A saved trace loads back bit for bit; a cut file is refused with its name.
TEST(Workload, TraceFileRoundTripAndRefusals) {
    Scene<3> scene = make_scene<3>("clusters", 300, 2);
    World<3> world(scene.settings, std::move(scene.bodies), make_broadphase<3>("sort-and-sweep"));
    const Trace<3> trace = Trace<3>::record(world, 4);
    const std::string path = ::testing::TempDir() + "workload_test.trace";
    trace.save(path);
    const Trace<3> back = Trace<3>::load(path);
    ASSERT_EQ(back.size(), trace.size());
    ASSERT_EQ(back.frames(), trace.frames());
    for (int f = 0; f < trace.frames(); ++f) {
        for (std::size_t i = 0; i < trace.size(); ++i) {
            ASSERT_TRUE(back.boxes(f)[i].lo == trace.boxes(f)[i].lo);
            ASSERT_TRUE(back.boxes(f)[i].hi == trace.boxes(f)[i].hi);
        }
    }
    EXPECT_THROW(Trace<2>::load(path), InputError);  // a 3D trace
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 1);
    try {
        Trace<3>::load(path);
        ADD_FAILURE() << "a cut trace loaded";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("do not hold 300 bodies x 4 frames"),
                  std::string::npos)
            << e.what();
    }
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace collide
