// Implicit bodies in the World: they collide and respond like circles/spheres, the blobs
// scene is the same world under every broad phase and with or without signatures, energy
// stays bounded, and scene files declare them (bad ones are refused with file:line).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include "collide/registry.hpp"
#include "collide/tunnelling_check.hpp"
#include "collide/world.hpp"
#include "tooling/scenes.hpp"

namespace collide {
namespace {

template <int D>
World<D> blobs_world(std::size_t n, std::uint64_t seed, const std::string& algorithm,
                     bool use_signature = true) {
    Scene<D> s = make_scene<D>("blobs", n, seed);
    s.settings.use_signature = use_signature;
    World<D> w(s.settings, std::move(s.bodies), make_broadphase<D>(algorithm));
    return w;
}

template <int D>
void expect_same_state(const World<D>& a, const World<D>& b) {
    ASSERT_EQ(a.bodies().size(), b.bodies().size());
    const std::size_t bytes = a.bodies().size() * sizeof(Vec<D>);
    EXPECT_EQ(std::memcmp(a.bodies().pos.data(), b.bodies().pos.data(), bytes), 0);
    EXPECT_EQ(std::memcmp(a.bodies().vel.data(), b.bodies().vel.data(), bytes), 0);
}

// One-metaball implicit bodies are exact spheres: head on at restitution 1 with equal
// masses, their velocities swap.
template <int D>
void head_on_swap() {
    Bodies<D> b;
    b.models.push_back(ImplicitModel<D>::build({Metaball<D>{Vec<D>(0.0f), 1.0f, 2.0f, 1.0f}}));
    Vec<D> pa(10.0f), pb(10.0f), va(0.0f), vb(0.0f);
    pa[0] = 7.0f;
    pb[0] = 13.0f;
    va[0] = 2.0f;
    vb[0] = -2.0f;
    b.add_implicit(pa, va, 0, Rotation<D>{}, Spin<D>{});
    b.add_implicit(pb, vb, 0, Rotation<D>{}, Spin<D>{});
    WorldSettings<D> s;
    s.bounds = {Vec<D>(0.0f), Vec<D>(20.0f)};
    World<D> w(s, std::move(b), make_broadphase<D>("sort-and-sweep"));
    bool touched = false;
    std::uint64_t tests = 0;
    for (int i = 0; i < 120; ++i) {
        w.step();
        touched = touched || !w.contacts().empty();
        tests += w.implicit_tests();
    }
    ASSERT_TRUE(touched);
    EXPECT_GT(tests, 0u);
    const auto& v = w.bodies().vel;
    EXPECT_NEAR(v[0][0], -2.0f, 0.02f);
    EXPECT_NEAR(v[1][0], 2.0f, 0.02f);
    for (int k = 1; k < D; ++k) {
        EXPECT_NEAR(v[0][k], 0.0f, 0.02f);
        EXPECT_NEAR(v[1][k], 0.0f, 0.02f);
    }
    EXPECT_LT(w.bodies().pos[0][0], w.bodies().pos[1][0]);
}

TEST(Blobs, HeadOnSpheresSwapVelocities2D) {
    head_on_swap<2>();
}
TEST(Blobs, HeadOnSpheresSwapVelocities3D) {
    head_on_swap<3>();
}

// A circle/sphere against an implicit sphere goes through the same test and bounces the same.
TEST(Blobs, PlainCircleAgainstImplicitBounces) {
    Bodies<2> b;
    b.models.push_back(ImplicitModel<2>::build({Metaball<2>{Vec<2>(0.0f), 1.0f, 3.0f, 1.0f}}));
    b.add_implicit({7.0f, 10.0f}, {2.0f, 0.0f}, 0, 0.3f, 0.0f);
    b.add({13.0f, 10.0f}, {-2.0f, 0.0f}, 1.0f);
    WorldSettings<2> s;
    s.bounds = {Vec<2>(0.0f), Vec<2>(20.0f)};
    World<2> w(s, std::move(b), make_broadphase<2>("sort-and-sweep"));
    for (int i = 0; i < 120; ++i) w.step();
    // The implicit body's mass comes from its bounding radius, a little above 1.
    EXPECT_LT(w.bodies().vel[0][0], -1.5f);
    EXPECT_GT(w.bodies().vel[1][0], 1.5f);
}

// A blob dropped on a static blob comes to rest on it and does not pass through.
template <int D>
void blob_rests_on_blob() {
    Bodies<D> b;
    std::vector<Metaball<D>> balls;
    Vec<D> c(0.0f);
    c[0] = 0.7f;
    balls.push_back({c, 1.0f, 2.0f, 1.0f});
    balls.push_back({-c, 1.0f, 2.0f, 1.0f});
    b.models.push_back(ImplicitModel<D>::build(balls));
    Vec<D> ground(10.0f), drop(10.0f);
    ground[1] = 2.0f;
    drop[1] = 8.0f;
    b.add_implicit(ground, Vec<D>(0.0f), 0, Rotation<D>{}, Spin<D>{}, true);
    b.add_implicit(drop, Vec<D>(0.0f), 0, Rotation<D>{}, Spin<D>{});
    WorldSettings<D> s;
    s.bounds = {Vec<D>(0.0f), Vec<D>(20.0f)};
    s.gravity[1] = -9.81f;
    s.restitution = 0.3f;
    World<D> w(s, std::move(b), make_broadphase<D>("sort-and-sweep"));
    for (int i = 0; i < 600; ++i) w.step();
    const auto& p = w.bodies().pos;
    const auto& v = w.bodies().vel;
    EXPECT_LT(glm::length(v[1]), 0.2f);
    // Resting on top: the blended lobes reach about 1.23 above and below the centre.
    EXPECT_GT(p[1][1] - p[0][1], 2.3f);
    EXPECT_LT(p[1][1] - p[0][1], 2.6f);
    ASSERT_FALSE(w.contacts().empty());
    EXPECT_LT(w.contacts().front().depth, 0.1f);
}

TEST(Blobs, BlobRestsOnStaticBlob2D) {
    blob_rests_on_blob<2>();
}
TEST(Blobs, BlobRestsOnStaticBlob3D) {
    blob_rests_on_blob<3>();
}

// The narrow phase's chunks of pairs run in parallel: one and two threads give the same
// world, implicit contacts and work, at a size where the pairs fill several chunks.
template <int D>
void same_on_one_and_two_threads() {
    struct Run {
        std::vector<Vec<D>> pos, vel;
        std::vector<ImplicitContactInfo<D>> contacts;  // every step's, in order
        std::uint64_t tests = 0, density_evals = 0, points_tested = 0;
    };
    const auto run = [](int threads) {
        return tbb::task_arena(threads).execute([] {
            World<D> w = blobs_world<D>(D == 2 ? 3000 : 1000, 7, "sorted-grid");
            Run r;
            for (int i = 0; i < 12; ++i) {
                w.step();
                r.tests += w.implicit_tests();
                r.density_evals += w.implicit_counters().density_evals;
                r.points_tested += w.implicit_counters().points_tested;
                const auto& found = w.implicit_contacts();
                r.contacts.insert(r.contacts.end(), found.begin(), found.end());
            }
            r.pos = w.bodies().pos;
            r.vel = w.bodies().vel;
            return r;
        });
    };
    const Run one = run(1), two = run(2);
    // A chunk holds about four implicit tests (implicit_bodies.cpp): over 16 a step fill
    // several (22 in 2D, 60 in 3D measured).
    EXPECT_GT(one.tests / 12, 16u) << "several chunks of implicit tests";
    EXPECT_FALSE(one.contacts.empty());
    EXPECT_EQ(one.pos, two.pos);
    EXPECT_EQ(one.vel, two.vel);
    EXPECT_EQ(one.tests, two.tests);
    EXPECT_EQ(one.density_evals, two.density_evals);
    EXPECT_EQ(one.points_tested, two.points_tested);
    ASSERT_EQ(one.contacts.size(), two.contacts.size());
    for (std::size_t i = 0; i < one.contacts.size(); ++i) {
        EXPECT_EQ(one.contacts[i].a, two.contacts[i].a);
        EXPECT_EQ(one.contacts[i].b, two.contacts[i].b);
        EXPECT_EQ(one.contacts[i].point, two.contacts[i].point);
        EXPECT_EQ(one.contacts[i].depth, two.contacts[i].depth);
    }
}
TEST(Blobs, SameOnOneAndTwoThreads2D) {
    same_on_one_and_two_threads<2>();
}
TEST(Blobs, SameOnOneAndTwoThreads3D) {
    same_on_one_and_two_threads<3>();
}

template <int D>
void scene_shape() {
    const Scene<D> s = make_scene<D>("blobs", 500, 3);
    std::size_t implicit = 0;
    for (std::size_t i = 0; i < s.bodies.size(); ++i) implicit += s.bodies.shape[i] >= 0;
    EXPECT_EQ(implicit, 40u);
    EXPECT_EQ(make_scene<D>("blobs", 20, 3).bodies.models.size(), 4u);
    const Scene<D> two = make_scene<D>("blobs", 2, 3);
    EXPECT_EQ(two.bodies.shape[0], 0);
    EXPECT_EQ(two.bodies.shape[1], 1);
}
TEST(Blobs, SceneHasAFewDozenImplicitBodies2D) {
    scene_shape<2>();
}
TEST(Blobs, SceneHasAFewDozenImplicitBodies3D) {
    scene_shape<3>();
}

// Every broad phase gives the same world, and the signature changes the work, not the world.
template <int D>
void same_world_everywhere(std::size_t n, int steps) {
    World<D> ref = blobs_world<D>(n, 5, "brute-force");
    World<D> plain = blobs_world<D>(n, 5, "brute-force", false);
    std::uint64_t with = 0, without = 0, tests = 0;
    for (int i = 0; i < steps; ++i) {
        ref.step();
        plain.step();
        with += ref.implicit_counters().density_evals;
        without += plain.implicit_counters().density_evals;
        tests += ref.implicit_tests();
        EXPECT_EQ(ref.implicit_counters().points_tested, plain.implicit_counters().density_evals);
    }
    expect_same_state(ref, plain);
    EXPECT_GT(tests, 0u);
    EXPECT_LT(with, without);
    for (const BroadPhaseEntry& e : broadphases()) {
        if (!e.supports(D)) continue;
        World<D> other = blobs_world<D>(n, 5, std::string(e.name));
        for (int i = 0; i < steps; ++i) other.step();
        SCOPED_TRACE(std::string(e.name));
        expect_same_state(ref, other);
    }
}
TEST(Blobs, SameWorldWithEveryBroadPhaseAndSignature2D) {
    same_world_everywhere<2>(300, 120);
}
TEST(Blobs, SameWorldWithEveryBroadPhaseAndSignature3D) {
    same_world_everywhere<3>(100, 30);
}

template <int D>
void energy_bounded(int steps) {
    World<D> w = blobs_world<D>(300, 7, "sort-and-sweep");
    const double e0 = w.kinetic_energy();
    for (int i = 0; i < steps; ++i) {
        w.step();
        const double e = w.kinetic_energy();
        ASSERT_LE(e, e0 * 1.02) << "step " << i;
        ASSERT_GE(e, e0 * 0.7) << "step " << i;
    }
    const auto& b = w.bodies();
    for (std::size_t i = 0; i < b.size(); ++i)
        for (int k = 0; k < D; ++k) ASSERT_TRUE(std::isfinite(b.pos[i][k]));
}
TEST(Blobs, EnergyStaysBounded2D) {
    energy_bounded<2>(400);
}
TEST(Blobs, EnergyStaysBounded3D) {
    energy_bounded<3>(150);
}

// Swept steps and the tunnelling count run with implicit bodies (bounding spheres for the
// time of impact; implicit pairs are left out of the tunnelling count).
TEST(Blobs, SweptStepRuns) {
    Scene<2> s = make_scene<2>("blobs", 200, 2);
    s.settings.swept = true;
    s.settings.count_tunnelling = true;
    World<2> w(s.settings, std::move(s.bodies), make_broadphase<2>("sort-and-sweep"));
    TunnellingCheck<2> check(make_broadphase<2>("sort-and-sweep"));
    std::uint64_t tests = 0;
    for (int i = 0; i < 120; ++i) {
        step_counting_tunnelling(w, check);
        tests += w.implicit_tests();
    }
    EXPECT_GT(tests, 0u);
    const Aabb<2>& world = w.settings().bounds;
    for (std::size_t i = 0; i < w.bodies().size(); ++i) {
        ASSERT_TRUE(world.contains(w.bodies().pos[i])) << i;
        if (!w.bodies().is_implicit(i)) continue;
        // The box holds the shape at its pose at the end of the step.
        const Aabb<2> exact =
            world_box<2>(w.bodies().model_of(i)->shape.local_box(), w.bodies().pose(i));
        EXPECT_TRUE(exact.size().x > 0 && w.boxes()[i].size().x >= exact.size().x - 1e-4f) << i;
    }
}

std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + name;
    std::ofstream(path) << text;
    return path;
}

TEST(Blobs, CsvDeclaresImplicitBodies) {
    const std::string path2 = write_file("blobs2.csv",
                                         "x,y,r\n"
                                         "5,5,1\n"
                                         "implicit,10,5,0,0,0.5,0.2\n"
                                         "metaball,-0.5,0,1,2\n"
                                         "metaball,0.5,0,1,3,1\n"
                                         "metaball,0,1,0.5,2,-1\n"
                                         "implicit,15,5,0,0,0,0,1\n"
                                         "metaball,0,0,1,2\n");
    const Scene<2> s = load_csv_scene<2>(path2);
    ASSERT_EQ(s.bodies.size(), 3u);
    EXPECT_EQ(s.bodies.shape[0], -1);
    EXPECT_EQ(s.bodies.shape[1], 0);
    EXPECT_EQ(s.bodies.shape[2], 1);
    EXPECT_EQ(s.bodies.is_static[2], 1);
    EXPECT_EQ(s.bodies.models[0]->shape.metaballs().size(), 3u);
    EXPECT_FLOAT_EQ(s.bodies.rotation[1], 0.5f);
    const std::string path3 = write_file("blobs3.csv",
                                         "x,y,z,r\n"
                                         "implicit,1,2,3,0,0,0,2,0,0,0,0,0,1\n"
                                         "metaball,0,0,0,1,2\n");
    const Scene<3> t = load_csv_scene<3>(path3);
    ASSERT_EQ(t.bodies.size(), 1u);
    EXPECT_FLOAT_EQ(t.bodies.rotation[0].w, 1.0f);  // normalized
    EXPECT_FLOAT_EQ(t.bodies.spin[0].z, 1.0f);
}

void expect_refused(const std::string& text, const std::string& expected) {
    const std::string path = write_file("bad_blob.csv", text);
    try {
        (void)load_csv_scene<2>(path);
        ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
}

TEST(Blobs, CsvRefusesBadImplicitBodies) {
    expect_refused("x,y,r\nimplicit,1,1,0,0,0,0\n",
                   "bad_blob.csv:2: implicit body has no metaball");
    expect_refused("x,y,r\nimplicit,1,1,0,0,0,0\nimplicit,5,5,0,0,0,0\nmetaball,0,0,1,2\n",
                   "bad_blob.csv:2: implicit body has no metaball");
    expect_refused("x,y,r\nimplicit,1,1,0,0,0,0\nmetaball,0,0,0,2\n",
                   "bad_blob.csv:3: metaball radius 0 must be > 0");
    expect_refused("x,y,r\nimplicit,1,1,0,0,0,0\nmetaball,0,0,-1,2\n",
                   "bad_blob.csv:3: metaball radius -1 must be > 0");
    expect_refused("x,y,r\nimplicit,1,1,0,0,0,0\nmetaball,0,0,1,0\n",
                   "bad_blob.csv:3: metaball power 0 must be > 0");
    expect_refused("x,y,r\nimplicit,1,1,0,0,0,0\nmetaball,nan,0,1,2\n",
                   "bad_blob.csv:3: 'nan' in column 'cx' is not finite");
    expect_refused("x,y,r\nimplicit,1,inf,0,0,0,0\nmetaball,0,0,1,2\n",
                   "bad_blob.csv:2: 'inf' in column 'y' is not finite");
    expect_refused("x,y,r\nimplicit,1,1,0,0,0,0\nmetaball,0,0,1,2,-1\n",
                   "bad_blob.csv:2: implicit body:");
    expect_refused("x,y,r\nmetaball,0,0,1,2\n", "bad_blob.csv:2: a metaball row with no implicit");
    expect_refused("x,y,r\nimplicit,1,1,0,0\n", "bad_blob.csv:2: an implicit row has 4 values");
}

}  // namespace
}  // namespace collide
