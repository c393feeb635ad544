// The simulation: energy conservation, walls, determinism, independence from the broad
// phase, and piles that settle.
#include <cstring>

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include "collide/registry.hpp"
#include "collide/world.hpp"
#include "tooling/scenes.hpp"

namespace collide {
namespace {

template <int D>
World<D> make_world(const std::string& scene, std::size_t n, std::uint64_t seed,
                    const std::string& algorithm = "sort-and-sweep") {
    Scene<D> s = make_scene<D>(scene, n, seed);
    World<D> w(s.settings, std::move(s.bodies), make_broadphase<D>(algorithm));
    return w;
}

template <int D>
void expect_inside(const World<D>& w) {
    const auto& b = w.bodies();
    const Aabb<D>& box = w.settings().bounds;
    for (std::size_t i = 0; i < b.size(); ++i) {
        for (int k = 0; k < D; ++k) {
            ASSERT_GE(b.pos[i][k], box.lo[k]) << "body " << i << " left the world";
            ASSERT_LE(b.pos[i][k], box.hi[k]) << "body " << i << " left the world";
        }
    }
}

template <int D>
void energy_is_conserved() {
    // Any exact broad phase gives this world (SameStateWithEveryBroadPhase). In 3D one axis's
    // sweep meets a seventh of the bodies, so the sorted grid halves the test under ASan.
    World<D> w = make_world<D>("uniform", 1000, 5, D == 2 ? "sort-and-sweep" : "sorted-grid");
    w.settings().restitution = 1.0f;
    w.settings().gravity = Vec<D>(0.0f);
    const double e0 = w.kinetic_energy();
    ASSERT_GT(e0, 0.0);
    std::size_t contacts = 0;
    for (int i = 0; i < 10000; ++i) {
        w.step();
        contacts += w.contacts().size();
    }
    EXPECT_GT(contacts, 10000u) << "the test needs collisions to mean anything";
    EXPECT_NEAR(w.kinetic_energy() / e0, 1.0, 0.01);
    expect_inside(w);
}

TEST(World, EnergyConservedWithRestitutionOne2D) {
    energy_is_conserved<2>();
}
TEST(World, EnergyConservedWithRestitutionOne3D) {
    energy_is_conserved<3>();
}

template <int D>
void same_state(const World<D>& a, const World<D>& b) {
    ASSERT_EQ(a.bodies().size(), b.bodies().size());
    const std::size_t bytes = a.bodies().size() * sizeof(Vec<D>);
    EXPECT_EQ(std::memcmp(a.bodies().pos.data(), b.bodies().pos.data(), bytes), 0);
    EXPECT_EQ(std::memcmp(a.bodies().vel.data(), b.bodies().vel.data(), bytes), 0);
}

template <int D>
void deterministic() {
    for (const SceneEntry& s : scene_list()) {
        World<D> a = make_world<D>(std::string(s.name), 400, 9);
        World<D> b = make_world<D>(std::string(s.name), 400, 9);
        // 150 steps: long enough for contacts on every scene, short enough under ASan (CI time).
        for (int i = 0; i < 150; ++i) {
            a.step();
            b.step();
        }
        SCOPED_TRACE(std::string(s.name));
        same_state(a, b);
    }
}

TEST(World, BitIdenticalForSameSeed2D) {
    deterministic<2>();
}
TEST(World, BitIdenticalForSameSeed3D) {
    deterministic<3>();
}

// The step's parallel parts (integrate, boxes, narrow phase, the wall contacts, the broad
// phase's own) give the same world on 1 and on 2 threads, bit for bit, at a size where each
// of them is split; with gravity the walls' resting contacts warm-start from the last step's.
template <int D>
void same_on_one_and_two_threads() {
    for (const auto& [scene, gravity] :
         {std::pair{"uniform", 0.0f}, std::pair{"clusters", 0.0f}, std::pair{"uniform", 9.81f}}) {
        // Captured by name: clang 14 (the sanitized build's) cannot capture a binding.
        const auto run = [&, scene = scene, gravity = gravity](int threads) {
            return tbb::task_arena(threads).execute([&] {
                World<D> w = make_world<D>(scene, 40000, 3, "sorted-grid");
                w.settings().gravity[1] = -gravity;
                // Ten steps: contacts, warm starts and wall contacts from the first ones on.
                for (int i = 0; i < 10; ++i) w.step();
                return w;
            });
        };
        const World<D> one = run(1);
        const World<D> two = run(2);
        SCOPED_TRACE(std::string(scene) + (gravity > 0 ? " with gravity" : ""));
        EXPECT_GT(one.pairs().size(), 2 * kContactPairsPerTask) << "the narrow phase is split";
        if (gravity > 0.0f) {
            const auto walls = one.snapshot().warm_start.walls;
            ASSERT_FALSE(walls.empty());
            EXPECT_GT(walls.back().body, 2 * 16384u) << "wall contacts from several chunks";
        }
        same_state(one, two);
    }
}

TEST(World, SameOnOneAndTwoThreads2D) {
    same_on_one_and_two_threads<2>();
}
TEST(World, SameOnOneAndTwoThreads3D) {
    same_on_one_and_two_threads<3>();
}

// Contacts are resolved in (a, b) order, so every correct broad phase gives the same world.
template <int D>
void independent_of_broad_phase() {
    for (const BroadPhaseEntry& e : broadphases()) {
        if (!e.supports(D)) continue;
        World<D> ref = make_world<D>("clusters", 300, 4, "brute-force");
        World<D> other = make_world<D>("clusters", 300, 4, std::string(e.name));
        for (int i = 0; i < 200; ++i) {
            ref.step();
            other.step();
            ASSERT_EQ(ref.pairs().size(), other.pairs().size()) << e.name << " step " << i;
        }
        SCOPED_TRACE(std::string(e.name));
        same_state(ref, other);
    }
}

TEST(World, SameStateWithEveryBroadPhase2D) {
    independent_of_broad_phase<2>();
}
TEST(World, SameStateWithEveryBroadPhase3D) {
    independent_of_broad_phase<3>();
}

// Switching live keeps the bodies, and the world goes on exactly as if it never switched.
TEST(World, SwitchingBroadPhaseMidRunChangesNothing) {
    World<2> switched = make_world<2>("clusters", 300, 1, "sort-and-sweep");
    World<2> kept = make_world<2>("clusters", 300, 1, "sort-and-sweep");
    for (int i = 0; i < 50; ++i) {
        switched.step();
        kept.step();
    }
    switched.set_broad_phase(make_broadphase<2>("brute-force"));
    same_state(switched, kept);
    for (int i = 0; i < 100; ++i) {
        switched.step();
        kept.step();
    }
    same_state(switched, kept);
}

// A pile of rain must come to rest: small overlaps (no sinking), nothing bouncing (no
// jitter), nobody through the floor. Bodies are frictionless, so one on the floor may still
// glide slowly sideways; that is far below the 10% of a radius per second allowed here.
template <int D>
void rain_settles() {
    World<D> w = make_world<D>("rain", 400, 3);
    for (int i = 0; i < 1800; ++i) w.step();
    const auto before = w.bodies().pos;
    float max_speed = 0;
    for (int i = 0; i < 60; ++i) {
        w.step();
        for (const auto& v : w.bodies().vel) max_speed = std::max(max_speed, glm::length(v));
    }
    const auto& b = w.bodies();
    float max_move = 0, max_overlap = 0;
    for (std::size_t i = 0; i < b.size(); ++i)
        max_move = std::max(max_move, glm::length(b.pos[i] - before[i]) / b.radius[i]);
    for (const Contact<D>& c : w.contacts()) {
        max_overlap = std::max(max_overlap, c.depth / std::min(b.radius[c.a], b.radius[c.b]));
    }
    EXPECT_LT(max_move, 0.1f) << "bodies still moving after 30 s";
    EXPECT_LT(max_speed, 0.2f) << "some body is bouncing (jitter)";
    EXPECT_LT(max_overlap, 0.05f) << "bodies sinking into each other";
    EXPECT_GT(w.contacts().size(), b.size() / 2) << "a settled pile has contacts";
    expect_inside(w);
}

TEST(World, RainSettles2D) {
    rain_settles<2>();
}
TEST(World, RainSettles3D) {
    rain_settles<3>();
}

TEST(World, StaticBodiesNeverMove) {
    Bodies<2> bodies;
    bodies.add({5, 5}, {0, 0}, 1.0f, true);
    bodies.add({5, 8}, {0, -3}, 1.0f);
    WorldSettings<2> s;
    s.bounds = {{0, 0}, {10, 10}};
    World<2> w(s, bodies, make_broadphase<2>("sort-and-sweep"));
    bool touched = false;
    for (int i = 0; i < 120; ++i) {
        w.step();
        touched |= !w.contacts().empty();
    }
    EXPECT_TRUE(touched);
    EXPECT_EQ(w.bodies().pos[0], Vec<2>(5, 5));
    EXPECT_GT(w.bodies().vel[1].y, 0.0f) << "the moving body bounced off";
}

TEST(World, HeadOnElasticCollisionSwapsVelocities) {
    Bodies<2> bodies;
    bodies.add({4, 5}, {1, 0}, 0.5f);
    bodies.add({6, 5}, {-1, 0}, 0.5f);
    WorldSettings<2> s;
    s.bounds = {{0, 0}, {10, 10}};
    s.dt = 0.01f;
    World<2> w(s, bodies, make_broadphase<2>("sort-and-sweep"));
    for (int i = 0; i < 60; ++i) w.step();
    EXPECT_NEAR(w.bodies().vel[0].x, -1.0f, 1e-5f);
    EXPECT_NEAR(w.bodies().vel[1].x, 1.0f, 1e-5f);
}

}  // namespace
}  // namespace collide
