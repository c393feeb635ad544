// Saving a world as a CSV scene and loading it back: every generated scene in 2D and 3D
// (implicit bodies included, and one with static bodies), as built and after some steps,
// must come back bit for bit, with the same settings, and step on to the same pairs and
// the same bodies.
#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "collide/registry.hpp"
#include "collide/world.hpp"
#include "tooling/scenes.hpp"

namespace collide {
namespace {

std::uint32_t bits(float v) {
    return std::bit_cast<std::uint32_t>(v);
}

template <int D>
void expect_same_bits(const Vec<D>& a, const Vec<D>& b, const char* what, std::size_t i) {
    for (int k = 0; k < D; ++k) ASSERT_EQ(bits(a[k]), bits(b[k])) << what << " of body " << i;
}

template <int D>
void expect_same_settings(const WorldSettings<D>& a, const WorldSettings<D>& b) {
    expect_same_bits<D>(a.bounds.lo, b.bounds.lo, "bounds.lo", 0);
    expect_same_bits<D>(a.bounds.hi, b.bounds.hi, "bounds.hi", 0);
    expect_same_bits<D>(a.gravity, b.gravity, "gravity", 0);
    EXPECT_EQ(bits(a.restitution), bits(b.restitution));
    EXPECT_EQ(bits(a.dt), bits(b.dt));
    EXPECT_EQ(a.substeps, b.substeps);
    EXPECT_EQ(a.solver_iterations, b.solver_iterations);
    EXPECT_EQ(a.position_iterations, b.position_iterations);
    EXPECT_EQ(bits(a.position_correction), bits(b.position_correction));
    EXPECT_EQ(a.swept, b.swept);
    EXPECT_EQ(a.count_tunnelling, b.count_tunnelling);
    EXPECT_EQ(a.use_signature, b.use_signature);
}

// Field by field; implicit bodies by their metaballs (a file gives each body its own model,
// where a generator may share one among several bodies).
template <int D>
void expect_same_bodies(const Bodies<D>& a, const Bodies<D>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        expect_same_bits<D>(a.pos[i], b.pos[i], "position", i);
        expect_same_bits<D>(a.vel[i], b.vel[i], "velocity", i);
        ASSERT_EQ(bits(a.radius[i]), bits(b.radius[i])) << "radius of body " << i;
        ASSERT_EQ(a.is_static[i], b.is_static[i]) << "body " << i;
        ASSERT_EQ(a.is_implicit(i), b.is_implicit(i)) << "body " << i;
        if (!a.is_implicit(i)) continue;
        if constexpr (D == 2) {
            ASSERT_EQ(bits(a.rotation[i]), bits(b.rotation[i])) << "angle of body " << i;
            ASSERT_EQ(bits(a.spin[i]), bits(b.spin[i])) << "spin of body " << i;
        } else {
            for (int k = 0; k < 4; ++k) {
                ASSERT_EQ(bits(a.rotation[i][k]), bits(b.rotation[i][k])) << "rotation of " << i;
            }
            expect_same_bits<3>(a.spin[i], b.spin[i], "spin", i);
        }
        const auto balls_a = a.model_of(i)->shape.metaballs();
        const auto balls_b = b.model_of(i)->shape.metaballs();
        ASSERT_EQ(balls_a.size(), balls_b.size()) << "body " << i;
        for (std::size_t m = 0; m < balls_a.size(); ++m) {
            expect_same_bits<D>(balls_a[m].centre, balls_b[m].centre, "metaball centre", i);
            ASSERT_EQ(bits(balls_a[m].radius), bits(balls_b[m].radius)) << "body " << i;
            ASSERT_EQ(bits(balls_a[m].power), bits(balls_b[m].power)) << "body " << i;
            ASSERT_EQ(bits(balls_a[m].weight), bits(balls_b[m].weight)) << "body " << i;
        }
    }
}

template <int D>
World<D> world_of(const Scene<D>& scene) {
    return World<D>(scene.settings, scene.bodies, make_broadphase<D>("sort-and-sweep"));
}

template <int D>
Scene<D> save_and_load(const World<D>& world, const std::string& name) {
    const std::string path =
        (std::filesystem::path(::testing::TempDir()) / ("scene_io_" + name + ".csv")).string();
    save_csv_scene<D>(path, world.settings(), world.bodies());
    Scene<D> loaded = load_csv_scene<D>(path);
    std::filesystem::remove(path);
    return loaded;
}

// Saves `scene` as built and again after some steps; each time the loaded world must equal
// the saved one and step on exactly like it.
template <int D>
void round_trip(const Scene<D>& scene, const std::string& name) {
    World<D> original = world_of<D>(scene);
    for (int round = 0; round < 2; ++round) {
        SCOPED_TRACE(name + (round == 0 ? " as built" : " after 20 steps"));
        const Scene<D> loaded = save_and_load<D>(original, name);
        expect_same_settings<D>(original.settings(), loaded.settings);
        expect_same_bodies<D>(original.bodies(), loaded.bodies);
        if (::testing::Test::HasFatalFailure()) return;

        // Same world, same pairs, step after step.
        World<D> copy = world_of<D>(loaded);
        World<D> reference = world_of<D>(Scene<D>{original.settings(), original.bodies()});
        for (int step = 0; step < 3; ++step) {
            reference.step();
            copy.step();
            ASSERT_EQ(copy.pairs(), reference.pairs()) << "step " << step;
        }
        expect_same_bodies<D>(reference.bodies(), copy.bodies());
        for (int step = 0; step < 20; ++step) original.step();
    }
    bool moving = false;
    for (const Vec<D>& v : original.bodies().vel) moving |= glm::length(v) > 0.0f;
    EXPECT_TRUE(moving || original.bodies().size() == 0) << name;
}

template <int D>
void every_scene_round_trips() {
    for (const SceneEntry& e : scene_list()) {
        round_trip<D>(make_scene<D>(e.name, 400, 7), std::string(e.name) + std::to_string(D));
    }
    // Static bodies (no generator makes them): every fourth body of `clusters`, still.
    const Scene<D> base = make_scene<D>("clusters", 400, 3);
    Scene<D> with_static{base.settings, {}};
    for (std::size_t i = 0; i < base.bodies.size(); ++i) {
        with_static.bodies.add(base.bodies.pos[i], base.bodies.vel[i], base.bodies.radius[i],
                               i % 4 == 0);
    }
    round_trip<D>(with_static, "static" + std::to_string(D));
}

TEST(SceneIo, EveryScene2dRoundTrips) {
    every_scene_round_trips<2>();
}

TEST(SceneIo, EveryScene3dRoundTrips) {
    every_scene_round_trips<3>();
}

// The settings lines a saved world carries are read back, and checked like body rows.
TEST(SceneIo, SettingsLinesAreChecked) {
    const std::string path =
        (std::filesystem::path(::testing::TempDir()) / "scene_io_settings.csv").string();
    const auto load = [&](const std::string& preamble) {
        std::ofstream(path) << preamble << "x,y,r\n1,1,0.5\n";
        return load_csv_scene<2>(path);
    };
    const Scene<2> s = load("gravity,0,-3\nrestitution,0.25\nsubsteps,2\nswept,1\n");
    EXPECT_EQ(s.settings.gravity, Vec<2>(0.0f, -3.0f));
    EXPECT_EQ(s.settings.restitution, 0.25f);
    EXPECT_EQ(s.settings.substeps, 2);
    EXPECT_TRUE(s.settings.swept);
    EXPECT_EQ(s.settings.dt, WorldSettings<2>{}.dt);  // not given: the default
    const auto refused = [&](const std::string& preamble, const std::string& reason) {
        try {
            load(preamble);
            ADD_FAILURE() << "accepted: " << preamble;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
        }
    };
    refused("gravity,0,-3,1\n", ":1: the gravity line needs 2 numbers, not 3");
    refused("dt,0\n", ":1: dt must be > 0");
    refused("restitution,-1\n", "restitution must be >= 0");
    refused("substeps,2.5\n", "substeps must be a whole number from 1 to 1000");
    refused("swept,2\n", "swept must be 0 or 1");
    refused("# comment\ndt,nan\n", ":2: 'nan' in column 'dt' is not finite");
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace collide
