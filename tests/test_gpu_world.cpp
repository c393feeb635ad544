// The GPU world (issue 24) under llvmpipe at small n: its pairs at step 0 are brute force's on
// every scene in both dimensions and on degenerate ones; its energy at restitution 1 drifts
// no more than the CPU world's (plus 1%); the rain scene settles without sinking, NaN or
// escape; two runs give the same bits; and bodies cross between the worlds to the float.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "collide/gpu/gpu_world.hpp"
#include "collide/registry.hpp"
#include "collide/world.hpp"
#include "test_support.hpp"
#include "tooling/scene_names.hpp"
#include "tooling/scenes.hpp"

namespace collide {
namespace {

using gpu::GpuWorld;
using testing::reference_pairs;

// The GPU world needs the same GL 4.3 context as the GPU broad phases.
#define SKIP_WITHOUT_GPU_WORLD() SKIP_WITHOUT_GPU("gpu-grid")

template <int D>
PairList pairs_of(const Bodies<D>& b) {
    std::vector<Aabb<D>> boxes(b.size());
    for (std::size_t i = 0; i < b.size(); ++i) boxes[i] = Aabb<D>::around(b.pos[i], b.radius[i]);
    return reference_pairs<D>(boxes, b.is_static);
}

template <int D>
double kinetic_energy(const Bodies<D>& b, const std::vector<Vec<D>>& vel) {
    double e = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (b.is_static[i]) continue;
        const float r = std::max(b.radius[i], 1e-3f);
        e += 0.5 * std::pow(double(r), D) * double(glm::dot(vel[i], vel[i]));
    }
    return e;
}

template <int D>
void expect_pairs_at_step_zero(const Scene<D>& scene, const std::string& what) {
    GpuWorld<D> world(scene.settings, scene.bodies);
    EXPECT_EQ(world.pairs(), pairs_of<D>(scene.bodies)) << what;
}

TEST(GpuWorld, PairsAtStepZeroAreBruteForcesOnEveryScene) {
    SKIP_WITHOUT_GPU_WORLD();
    for (const SceneEntry& e : scene_list()) {
        for (const std::size_t n : {std::size_t{1}, std::size_t{700}}) {
            const std::string what = std::string(e.name) + " n=" + std::to_string(n);
            const Scene<2> s2 = make_scene<2>(e.name, n, 5);
            const Scene<3> s3 = make_scene<3>(e.name, n, 5);
            if (GpuWorld<2>::unsupported(s2.settings, s2.bodies)) {
                EXPECT_EQ(e.name, "blobs") << "only implicit bodies stay on the CPU";
                EXPECT_TRUE(GpuWorld<3>::unsupported(s3.settings, s3.bodies));
                continue;
            }
            expect_pairs_at_step_zero<2>(s2, what + " 2D");
            expect_pairs_at_step_zero<3>(s3, what + " 3D");
        }
    }
}

template <int D>
void expect_degenerate_pairs() {
    Scene<D> scene;
    scene.settings.bounds = {Vec<D>(0.0f), Vec<D>(10.0f)};
    // Every body at one point, zero radii among them, a static pair (never reported) and a
    // body larger than the world.
    for (int i = 0; i < 300; ++i)
        scene.bodies.add(Vec<D>(5.0f), Vec<D>(0.0f), i % 3 == 0 ? 0.0f : 0.5f);
    scene.bodies.add(Vec<D>(1.0f), Vec<D>(0.0f), 1.0f, true);
    scene.bodies.add(Vec<D>(1.5f), Vec<D>(0.0f), 1.0f, true);
    scene.bodies.add(Vec<D>(5.0f), Vec<D>(0.0f), 40.0f);
    expect_pairs_at_step_zero<D>(scene, std::to_string(D) + "D degenerate");
    Scene<D> empty;
    GpuWorld<D> none(empty.settings, empty.bodies);
    EXPECT_TRUE(none.pairs().empty());
    none.step();
    EXPECT_EQ(none.steps(), 1u);
}

TEST(GpuWorld, PairsOnDegenerateScenes2D) {
    SKIP_WITHOUT_GPU_WORLD();
    expect_degenerate_pairs<2>();
}
TEST(GpuWorld, PairsOnDegenerateScenes3D) {
    SKIP_WITHOUT_GPU_WORLD();
    expect_degenerate_pairs<3>();
}

template <int D>
void expect_energy_drift_within_cpu() {
    Scene<D> scene = make_scene<D>("uniform", 600, 11);
    scene.settings.restitution = 1.0f;
    scene.settings.gravity = Vec<D>(0.0f);
    GpuWorld<D> gpu_world(scene.settings, scene.bodies);
    World<D> cpu_world(scene.settings, scene.bodies, make_broadphase<D>("sorted-grid"));
    const double e0 = kinetic_energy<D>(scene.bodies, scene.bodies.vel);
    for (int s = 0; s < 300; ++s) {
        gpu_world.step();
        cpu_world.step();
    }
    std::vector<Vec<D>> pos, vel;
    gpu_world.download(pos, vel);
    const double gpu_drift = std::abs(kinetic_energy<D>(scene.bodies, vel) / e0 - 1.0);
    const double cpu_drift = std::abs(cpu_world.kinetic_energy() / e0 - 1.0);
    EXPECT_LE(gpu_drift, cpu_drift + 0.01) << D << "D: the CPU world drifted " << cpu_drift;
    std::printf("%dD, 600 bodies, 300 steps at restitution 1: energy drift CPU %.2e, GPU %.2e\n", D,
                cpu_drift, gpu_drift);
    EXPECT_EQ(gpu_world.overflowed_steps(), 0u);
}

TEST(GpuWorld, EnergyAtRestitutionOneDriftsNoMoreThanTheCpuWorlds2D) {
    SKIP_WITHOUT_GPU_WORLD();
    expect_energy_drift_within_cpu<2>();
}
TEST(GpuWorld, EnergyAtRestitutionOneDriftsNoMoreThanTheCpuWorlds3D) {
    SKIP_WITHOUT_GPU_WORLD();
    expect_energy_drift_within_cpu<3>();
}

template <int D>
void expect_rain_settles(int steps) {
    const Scene<D> scene = make_scene<D>("rain", 400, 3);
    GpuWorld<D> world(scene.settings, scene.bodies);
    for (int s = 0; s < steps; ++s) world.step();
    std::vector<Vec<D>> pos, vel;
    world.download(pos, vel);
    const Bodies<D>& b = scene.bodies;
    float worst = 0.0f;  // deepest penetration, as a share of the smaller radius
    for (std::size_t i = 0; i < b.size(); ++i) {
        for (int k = 0; k < D; ++k) {
            ASSERT_TRUE(std::isfinite(pos[i][k]) && std::isfinite(vel[i][k])) << "body " << i;
            // As the walls keep them: the centre at least a radius inside.
            EXPECT_GE(pos[i][k], scene.settings.bounds.lo[k] + b.radius[i]) << i;
            EXPECT_LE(pos[i][k], scene.settings.bounds.hi[k] - b.radius[i]) << i;
        }
        for (std::size_t j = i + 1; j < b.size(); ++j) {
            const float depth = b.radius[i] + b.radius[j] - glm::length(pos[j] - pos[i]);
            worst = std::max(worst, depth / std::min(b.radius[i], b.radius[j]));
        }
    }
    EXPECT_LT(worst, 0.05f) << D << "D after " << steps << " steps";
    // Settled: at rest on the whole, nothing still falling.
    float fastest = 0.0f;
    double mean = 0.0;
    for (const Vec<D>& v : vel) {
        fastest = std::max(fastest, glm::length(v));
        mean += glm::length(v) / static_cast<double>(vel.size());
    }
    // The CPU world's pile stands stiller (its sequential solve converges further): the
    // GPU's rests under a hundredth of the speed it fell at (about 25 units a second).
    EXPECT_LT(fastest, 1.0f) << D << "D";
    EXPECT_LT(mean, 0.25) << D << "D";
    EXPECT_EQ(world.overflowed_steps(), 0u) << "the pair slots grew ahead of the pile";
}

TEST(GpuWorld, RainSettlesWithoutSinkingNanOrEscape2D) {
    SKIP_WITHOUT_GPU_WORLD();
    expect_rain_settles<2>(600);
}
TEST(GpuWorld, RainSettlesWithoutSinkingNanOrEscape3D) {
    SKIP_WITHOUT_GPU_WORLD();
    expect_rain_settles<3>(600);
}

template <int D>
void expect_repeatable(const char* scene_name) {
    const Scene<D> scene = make_scene<D>(scene_name, 800, 17);
    GpuWorld<D> one(scene.settings, scene.bodies);
    GpuWorld<D> two(scene.settings, scene.bodies);
    for (int s = 0; s < 100; ++s) {
        one.step();
        two.step();
    }
    std::vector<Vec<D>> p1, v1, p2, v2;
    one.download(p1, v1);
    two.download(p2, v2);
    EXPECT_EQ(std::memcmp(p1.data(), p2.data(), p1.size() * sizeof(Vec<D>)), 0) << scene_name;
    EXPECT_EQ(std::memcmp(v1.data(), v2.data(), v1.size() * sizeof(Vec<D>)), 0) << scene_name;
    EXPECT_NE(std::memcmp(p1.data(), scene.bodies.pos.data(), p1.size() * sizeof(Vec<D>)), 0)
        << "the bodies moved";
}

TEST(GpuWorld, TwoRunsGiveTheSameBodyBuffers) {
    SKIP_WITHOUT_GPU_WORLD();
    expect_repeatable<2>("rain");      // gravity: split impulses, warm starting
    expect_repeatable<3>("powerlaw");  // none: pairwise collisions
}

TEST(GpuWorld, RefusesWhatOnlyTheCpuWorldDoes) {
    const Scene<2> blobs = make_scene<2>("blobs", 100, 1);
    EXPECT_NE(GpuWorld<2>::unsupported(blobs.settings, blobs.bodies)->find("implicit"),
              std::string::npos);
    Scene<3> swept = make_scene<3>("uniform", 10, 1);
    swept.settings.swept = true;
    EXPECT_NE(GpuWorld<3>::unsupported(swept.settings, swept.bodies)->find("swept"),
              std::string::npos);
    EXPECT_THROW(GpuWorld<3>(swept.settings, swept.bodies), std::invalid_argument);
}

// Up, a step or a drag, and down again: every position and velocity to the float.
TEST(GpuWorld, BodiesCrossToTheGpuAndBackExactly) {
    SKIP_WITHOUT_GPU_WORLD();
    const Scene<2> scene = make_scene<2>("clusters", 500, 4);
    World<2> cpu(scene.settings, scene.bodies, make_broadphase<2>("sorted-grid"));
    for (int s = 0; s < 20; ++s) cpu.step();
    GpuWorld<2> gpu_world(cpu.settings(), cpu.bodies(), cpu.steps());
    std::vector<Vec<2>> pos, vel;
    gpu_world.download(pos, vel);
    EXPECT_EQ(pos, cpu.bodies().pos);
    EXPECT_EQ(vel, cpu.bodies().vel);
    EXPECT_EQ(gpu_world.steps(), 20u);
    gpu_world.move_body(7, Vec<2>(3.25f, 4.5f), Vec<2>(-1.0f, 0.125f));
    gpu_world.download(pos, vel);
    EXPECT_EQ(pos[7], Vec<2>(3.25f, 4.5f));
    EXPECT_EQ(vel[7], Vec<2>(-1.0f, 0.125f));
}

// The panels' figures arrive without a wait: after a few steps, a recent step's.
TEST(GpuWorld, ReadbackBringsCountsAndTheWatchedBody) {
    SKIP_WITHOUT_GPU_WORLD();
    const Scene<3> scene = make_scene<3>("uniform", 2000, 8);
    GpuWorld<3> world(scene.settings, scene.bodies);
    for (int s = 0; s < 6; ++s) world.step(42);
    world.readback();
    std::vector<Vec<3>> pos, vel;
    world.download(pos, vel);  // waits for the GPU: every copy has landed now
    const gpu::GpuWorldReadback<3>& r = world.readback();
    EXPECT_EQ(r.step, 6u);
    EXPECT_EQ(r.watched, 42u);
    EXPECT_EQ(r.pos, pos[42]);
    EXPECT_EQ(r.pairs, world.pairs().size());
    EXPECT_GE(r.tests, r.pairs);
    EXPECT_LE(r.contacts, r.pairs);
    EXPECT_GT(r.times.total_ms(), 0.0);
    ASSERT_EQ(r.speeds.size(), 2000u) << "fewer bodies than samples: every one";
    EXPECT_NEAR(r.speeds[7], glm::length(vel[7]), 1e-5f * glm::length(vel[7]));
}

}  // namespace
}  // namespace collide
