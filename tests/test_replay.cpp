// Rewind and record/replay, without a window: restoring a world snapshot and stepping on
// reproduces the original run bit for bit (with persistent broad phases, whose structure
// after a restore has seen other frames, and with gravity, where warm starting matters),
// and a recorded session replays to the same state hash at every 100th step; the GPU world
// takes the bodies and gives them back to the float; a large generated world is numbered
// along the Morton curve, except in a replay of a version 1 session.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "collide/gpu/catalog.hpp"
#include "collide/gpu/compute_context.hpp"
#include "collide/registry.hpp"
#include "sim/algorithm_policy.hpp"
#include "sim/demo.hpp"
#include "sim/gpu_handover.hpp"
#include "sim/race.hpp"
#include "sim/session_file.hpp"
#include "sim/session_history.hpp"
#include "sim/sim_world.hpp"
#include "tooling/input_error.hpp"
#include "tooling/scenes.hpp"

namespace collidoscope {
namespace {

struct RewindCase {
    int dim;
    const char* scene;
    const char* algorithm;
    bool swept = false;
};

class Rewind : public ::testing::TestWithParam<RewindCase> {};

TEST_P(Rewind, RestoreThenStepReproducesTheRun) {
    const RewindCase c = GetParam();
    auto world = make_sim_world(c.dim, c.scene, 1500, 7, c.algorithm);
    if (c.swept) {
        Physics p = world->physics();
        p.swept = true;
        p.count_tunnelling = true;
        world->set_physics(p);
    }
    constexpr int kAt = 40;
    constexpr int kEnd = 120;
    for (int i = 0; i < kAt; ++i) world->step();
    const std::unique_ptr<WorldSnapshot> snapshot = world->snapshot();
    const std::uint64_t hash_at = world->state_hash();
    const std::size_t pairs_at = world->counts().pairs;
    for (int i = kAt; i < kEnd; ++i) world->step();
    const std::uint64_t hash_end = world->state_hash();
    ASSERT_NE(hash_end, hash_at);

    world->restore(*snapshot);
    EXPECT_EQ(world->steps(), static_cast<std::uint64_t>(kAt));
    EXPECT_EQ(world->state_hash(), hash_at);
    EXPECT_EQ(world->counts().pairs, pairs_at);  // the broad phase re-ran on the restored frame
    for (int i = kAt; i < kEnd; ++i) world->step();
    EXPECT_EQ(world->state_hash(), hash_end);
}

// The rewind buffer, capped at four snapshots, takes each new one into the buffers of the
// one it drops: every kept step still restores to the state the run had there.
TEST(RewindBuffer, SnapshotsTakenIntoDroppedOnesRestoreExactly) {
    auto world = make_sim_world(2, "rain", 1500, 7, "dynamic-aabb-tree");
    SessionHistory history(std::size_t{1} << 30, 4);
    std::vector<std::uint64_t> hashes;
    for (int i = 0; i < 30; ++i) {
        world->step();
        history.record(*world);
        hashes.push_back(world->state_hash());
    }
    ASSERT_EQ(history.size(), 4u);
    ASSERT_EQ(history.first_step(), 27u);
    for (std::uint64_t step = 27; step <= 30; ++step) {
        world->restore(*history.find(step));
        EXPECT_EQ(world->state_hash(), hashes[step - 1]) << "step " << step;
    }
}

INSTANTIATE_TEST_SUITE_P(Worlds, Rewind,
                         ::testing::Values(RewindCase{2, "uniform", "sort-and-sweep"},
                                           RewindCase{2, "uniform", "dynamic-aabb-tree"},
                                           RewindCase{2, "uniform", "morton-cells"},
                                           RewindCase{2, "rain", "sort-and-sweep"},
                                           RewindCase{2, "rain", "dynamic-aabb-tree"},
                                           RewindCase{2, "rain", "morton-cells"},
                                           RewindCase{3, "rain", "dynamic-aabb-tree"},
                                           RewindCase{2, "bullets", "dynamic-aabb-tree", true},
                                           RewindCase{2, "blobs", "dynamic-aabb-tree"}),
                         [](const auto& info) {
                             std::string name = std::to_string(info.param.dim) + "d_" +
                                                info.param.scene + "_" + info.param.algorithm +
                                                (info.param.swept ? "_swept" : "");
                             for (char& ch : name) {
                                 if (ch == '-') ch = '_';
                             }
                             return name;
                         });

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / name).string();
}

// The lines of the file at `path` that hold `word`.
std::size_t lines_with(const std::string& path, const std::string& word) {
    std::ifstream in(path);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) n += line.find(word) != std::string::npos;
    return n;
}

// Updates `demo` `frames` times, keeping the state hash after every 100th step.
void run(Demo& demo, int frames, std::vector<std::uint64_t>& hashes) {
    for (int i = 0; i < frames; ++i) {
        if (demo.update() && demo.ticks() % kCheckEvery == 0) {
            hashes.push_back(demo.world().state_hash());
        }
    }
}

TEST(Replay, RecordedSessionReplaysBitForBit) {
    const std::string path = temp_path("collidoscope_test_session.txt");
    Options options;
    options.scene = "rain";
    options.count = 800;
    options.seed = 3;
    options.broadphase = "sort-and-sweep";
    options.spawn_rate = 0.0f;  // the rain keeps its drops: bodies 5 and 9 stay
    options.record = path;
    std::vector<std::uint64_t> recorded;
    std::uint64_t recorded_end = 0;
    {
        Demo demo(options);
        run(demo, 60, recorded);
        demo.set_broad_phase("dynamic-aabb-tree");
        run(demo, 40, recorded);
        demo.set_param("margin (box size)", 0.3f);
        run(demo, 30, recorded);
        demo.select(5);
        for (int i = 0; i < 10; ++i) {  // a drag
            demo.move_body(5, glm::vec3(30.0f + float(i), 60.0f, 0.0f), glm::vec3(60.0f, 0, 0));
            run(demo, 1, recorded);
        }
        demo.set_query(Box3{glm::vec3(10, 10, 0), glm::vec3(40, 30, 0)});
        run(demo, 50, recorded);
        Physics p = demo.physics();
        p.restitution = 0.3f;
        demo.set_physics(p);
        demo.set_broad_phase("morton-cells");
        run(demo, 60, recorded);
        demo.set_paused(true);
        run(demo, 5, recorded);  // paused: no steps
        demo.step_once();
        run(demo, 1, recorded);
        for (int i = 0; i < 20; ++i) demo.step_back();  // a rewind
        demo.step_forward();
        EXPECT_EQ(demo.world().steps() + 19, demo.ticks());
        demo.move_body(9, glm::vec3(50, 50, 0), glm::vec3(0, 40, 0));  // a new future
        demo.set_paused(false);
        run(demo, 150, recorded);
        recorded_end = demo.world().state_hash();
    }  // closes the file with its end line
    ASSERT_GE(recorded.size(), 3u);

    Options replay_options;
    replay_options.replay = path;
    Demo replay(replay_options);
    std::vector<std::uint64_t> replayed;
    for (int i = 0; i < 2000 && !replay.replay()->finished; ++i) run(replay, 1, replayed);
    run(replay, 30, replayed);  // the replay stops where the recording did
    EXPECT_TRUE(replay.replay()->finished);
    EXPECT_EQ(replayed, recorded);
    EXPECT_EQ(replay.world().state_hash(), recorded_end);
    EXPECT_EQ(replay.replay()->applied, replay.replay()->total);
    EXPECT_EQ(replay.replay()->failed, 0u);
    EXPECT_EQ(replay.replay()->checks, recorded.size());
    EXPECT_EQ(replay.broad_phase(), "morton-cells");
    EXPECT_EQ(replay.selected(), 5u);
    EXPECT_TRUE(replay.query().has_value());
    std::filesystem::remove(path);
}

// Sleeping in a session: islands fall asleep, a drag wakes one, sleeping is switched off and
// on again; the replay matches at every check, and the file says so in its physics lines. A
// version 2 session (recorded before worlds slept) replays without sleeping.
TEST(Replay, SleepingSessionReplaysBitForBit) {
    const std::string path = temp_path("collidoscope_test_sleep_session.txt");
    Options options;
    options.scene = "level";
    options.count = 600;
    options.seed = 2;
    options.broadphase = "dynamic-aabb-tree";
    options.record = path;
    std::vector<std::uint64_t> recorded;
    std::size_t most_asleep = 0;
    const auto watch = [&](Demo& demo, int frames) {
        for (int i = 0; i < frames; ++i) {
            run(demo, 1, recorded);
            most_asleep = std::max(most_asleep, demo.world().counts().sleeping);
        }
    };
    {
        Demo demo(options);
        ASSERT_TRUE(demo.physics().sleep) << "on by default";
        watch(demo, 500);
        ASSERT_GT(most_asleep, 0u);
        const std::size_t asleep = demo.world().counts().sleeping;
        const collide::BodyId last = static_cast<collide::BodyId>(demo.world().body_count() - 1);
        demo.move_body(last, demo.world().position(last) + glm::vec3(0, 4, 0), glm::vec3(0));
        EXPECT_LE(demo.world().counts().sleeping, asleep);
        watch(demo, 100);
        Physics p = demo.physics();
        p.sleep = false;
        demo.set_physics(p);
        watch(demo, 1);
        EXPECT_EQ(demo.world().counts().sleeping, 0u);
        p.sleep = true;
        p.sleep_time = 0.25f;
        demo.set_physics(p);
        watch(demo, 200);
    }
    Options replay_options;
    replay_options.replay = path;
    Demo replay(replay_options);
    std::vector<std::uint64_t> replayed;
    for (int i = 0; i < 2000 && !replay.replay()->finished; ++i) run(replay, 1, replayed);
    EXPECT_EQ(replayed, recorded);
    EXPECT_EQ(replay.replay()->failed, 0u);
    EXPECT_TRUE(replay.physics().sleep);
    EXPECT_EQ(replay.physics().sleep_time, 0.25f);

    {
        SessionRecorder recorder(path, {2, "rain", 300, 1, "sorted-grid", 2});
        recorder.finish(0);
    }
    Demo old(replay_options);
    EXPECT_FALSE(old.physics().sleep) << "a version 2 session was recorded without sleeping";
    std::filesystem::remove(path);
}

// Bodies coming and going in a session: the spawner's rain (recycling the oldest bodies),
// bodies added by hand, one removed, a region emptied, a rewind across them; the replay,
// which spawns nothing itself, repeats the logged additions and removals bit for bit.
TEST(Replay, ComingAndGoingReplaysBitForBit) {
    const std::string path = temp_path("collidoscope_test_churn_session.txt");
    Options options;
    options.scene = "rain";
    options.count = 400;
    options.seed = 4;
    options.broadphase = "sorted-grid";
    options.spawn_rate = 120.0f;
    options.record = path;
    std::vector<std::uint64_t> recorded;
    std::uint64_t recorded_end = 0;
    {
        Demo demo(options);
        run(demo, 150, recorded);
        const WorldCounts counts = demo.world().counts();
        EXPECT_EQ(counts.moving + counts.sleeping + counts.fixed, 400u) << "recycled, not grown";
        EXPECT_EQ(demo.world().body_count(), 400u) << "each arrival took the slot it freed";
        demo.add_body(glm::vec3(20, 40, 0), glm::vec3(3, 0, 0), 0.8f);
        demo.remove_body(3);
        EXPECT_FALSE(demo.world().present(3));
        demo.remove_in(Box3{glm::vec3(0, 0, -1), glm::vec3(15, 15, 1)});
        run(demo, 60, recorded);
        for (int i = 0; i < 30; ++i) demo.step_back();  // across the removals
        demo.set_paused(false);
        run(demo, 100, recorded);
        recorded_end = demo.world().state_hash();
    }
    // The arrivals are in the file as actions: a replay does not spawn of its own.
    EXPECT_GT(lines_with(path, " add "), 250u);  // 120 a second for 2.5 s, and more after
    EXPECT_GT(lines_with(path, " remove "), 250u);
    Options replay_options;
    replay_options.replay = path;
    Demo replay(replay_options);
    std::vector<std::uint64_t> replayed;
    for (int i = 0; i < 2000 && !replay.replay()->finished; ++i) run(replay, 1, replayed);
    EXPECT_EQ(replayed, recorded);
    EXPECT_EQ(replay.world().state_hash(), recorded_end);
    EXPECT_EQ(replay.replay()->failed, 0u);
    std::filesystem::remove(path);
}

// The rain scene recycles its drops by default (5% of them a second, the oldest first);
// --spawn-rate 0 keeps them, and the Scene defaults button (nullopt) brings the rain back.
TEST(Replay, RainRecyclesItsDropsByDefault) {
    const std::string path = temp_path("collidoscope_test_rain_session.txt");
    Options options;
    options.scene = "rain";
    options.count = 600;
    options.broadphase = "sorted-grid";
    options.record = path;
    {
        Demo demo(options);
        EXPECT_FLOAT_EQ(demo.spawn_rate(), 30.0f);
        std::vector<std::uint64_t> hashes;
        run(demo, 120, hashes);  // two seconds
        const WorldCounts counts = demo.world().counts();
        EXPECT_EQ(counts.moving + counts.sleeping + counts.fixed, 600u);
        EXPECT_EQ(demo.world().body_count(), 600u);
    }
    const std::size_t adds = lines_with(path, " add ");
    EXPECT_GE(adds, 55u);  // 60 drops in two seconds
    EXPECT_LE(adds, 61u);
    std::filesystem::remove(path);
    options.record.clear();
    Demo demo(options);
    demo.set_spawn_rate(0.0f);
    EXPECT_EQ(demo.spawn_rate(), 0.0f);
    demo.set_spawn_rate(std::nullopt);
    EXPECT_FLOAT_EQ(demo.spawn_rate(), 30.0f);
    demo.set_scene("uniform");
    EXPECT_EQ(demo.spawn_rate(), 0.0f) << "a scene that keeps its bodies";
}

TEST(Replay, BadFileNamesTheLine) {
    const std::string path = temp_path("collidoscope_test_bad_session.txt");
    std::ofstream(path) << "collidoscope-session 1\ndim 2\nscene uniform\ncount 100\n"
                           "seed 1\nbroadphase sort-and-sweep\n5 move 3 1 nan 0 0 0 0\n";
    Options options;
    options.replay = path;
    try {
        Demo demo(options);
        FAIL() << "no error";
    } catch (const collide::InputError& e) {
        EXPECT_EQ(std::string(e.what()), path + ":7: 'nan' is not finite");
    }
    for (const auto& [line, message] :
         {std::pair{"5 add 1 2 0 0 0 0 0", ":7: radius 0 must be > 0"},
          std::pair{"5 remove-region 9 9 0 1 1 0", ":7: the region's low corner is above its high corner"},
          std::pair{"5 remove seven", ":7: 'seven'"}}) {
        std::ofstream(path) << "collidoscope-session 3\ndim 2\nscene uniform\ncount 100\n"
                               "seed 1\nbroadphase sort-and-sweep\n"
                            << line << "\n";
        try {
            Demo demo(options);
            ADD_FAILURE() << line << ": no error";
        } catch (const collide::InputError& e) {
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
        }
    }
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace collidoscope

namespace collidoscope {
namespace {

// The GPU world needs an OpenGL 4.3 context: llvmpipe's headless one in CI.
std::optional<std::string> skip_gpu_world() {
    if (auto why = no_hardware_gpu(); why && why->find("software") == std::string::npos) {
        return why;  // no context at all (a software one will do)
    }
    return std::nullopt;
}
#define SKIP_WITHOUT_GPU_WORLD()                                                           \
    if (const auto why = skip_gpu_world()) {                                               \
        if (std::getenv("CI") != nullptr) FAIL() << "CI must run the GPU world: " << *why; \
        GTEST_SKIP() << *why;                                                              \
    }

std::vector<glm::vec3> positions(const SimWorld& w) {
    std::vector<glm::vec3> out(w.body_count());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = w.position(collide::BodyId(i));
    return out;
}

// Switching keeps every position to the float, the step count and the physics; the GPU
// world's steps carry over to the CPU world exactly as its buffers hold them.
TEST(GpuWorldSwitch, CpuToGpuToCpuKeepsEveryBody) {
    SKIP_WITHOUT_GPU_WORLD();
    for (const int dim : {2, 3}) {
        auto w = make_sim_world(dim, "clusters", 700, 5, "sorted-grid");
        for (int s = 0; s < 15; ++s) w->step();
        const std::vector<glm::vec3> before = positions(*w);
        ASSERT_FALSE(w->set_gpu_world(true)) << "llvmpipe runs the GPU world";
        EXPECT_TRUE(w->on_gpu());
        EXPECT_EQ(w->steps(), 15u);
        ASSERT_FALSE(w->set_gpu_world(false));
        EXPECT_EQ(positions(*w), before) << dim << "D: round trip with no step";

        ASSERT_FALSE(w->set_gpu_world(true));
        for (int s = 0; s < 10; ++s) w->step();
        const std::uint64_t on_gpu = w->state_hash();  // the GPU's bodies, read back
        ASSERT_FALSE(w->set_gpu_world(false));
        EXPECT_EQ(w->steps(), 25u);
        EXPECT_EQ(w->state_hash(), on_gpu) << dim << "D: the CPU world took the GPU's bodies";
        EXPECT_NE(positions(*w), before);
    }
}

// What only the CPU world does keeps the bodies there, and says why.
TEST(GpuWorldSwitch, RefusesImplicitBodiesAndSweptSteps) {
    SKIP_WITHOUT_GPU_WORLD();
    auto blobs = make_sim_world(2, "blobs", 80, 1, "sorted-grid");
    const auto why = blobs->set_gpu_world(true);
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("implicit"), std::string::npos) << *why;
    EXPECT_FALSE(blobs->on_gpu());
    auto w = make_sim_world(3, "uniform", 300, 1, "sorted-grid");
    ASSERT_FALSE(w->set_gpu_world(true));
    Physics p = w->physics();
    p.swept = true;
    w->set_physics(p);
    EXPECT_FALSE(w->on_gpu()) << "swept steps took the bodies back";
    EXPECT_NE(w->gpu_world_refusal().value_or("").find("swept"), std::string::npos);
}

// Bug: ticking GPU world on llvmpipe at the a-million stop gave 2.5-3.6 s frames with no
// warning. On a software GPU the box now refuses worlds past kMaxSoftwareGpuWorldBodies and
// says why; smaller ones still go there, and a hardware GPU takes them all.
TEST(GpuWorldSwitch, SoftwareGlRefusesLargeWorlds) {
    SKIP_WITHOUT_GPU_WORLD();
    const bool software = collide::gpu::shared_context()->software();
    auto large = make_sim_world(2, "uniform", kMaxSoftwareGpuWorldBodies + 1, 1, "sorted-grid");
    const auto why = large->gpu_world_refusal();
    EXPECT_EQ(why.has_value(), software);
    if (software) {
        EXPECT_NE(why->find("renders in software"), std::string::npos) << *why;
        EXPECT_EQ(large->set_gpu_world(true), why);
        EXPECT_FALSE(large->on_gpu());
    }
    auto small = make_sim_world(2, "uniform", kMaxSoftwareGpuWorldBodies, 1, "sorted-grid");
    EXPECT_FALSE(small->gpu_world_refusal());
}

// A session that moves to the GPU world and back replays to the same hashes (one GPU).
TEST(GpuWorldSwitch, SessionWithTheGpuWorldReplays) {
    SKIP_WITHOUT_GPU_WORLD();
    const std::string path = temp_path("collidoscope_gpu_session.txt");
    Options options;
    options.scene = "rain";
    options.count = 600;
    options.broadphase = "sorted-grid";
    options.spawn_rate = 0.0f;  // every slot full, as the GPU world needs
    options.record = path;
    std::vector<std::uint64_t> recorded;
    {
        Demo demo(options);
        run(demo, 30, recorded);
        demo.set_gpu_world(true);
        EXPECT_TRUE(demo.gpu_world());
        run(demo, 120, recorded);
        demo.set_gpu_world(false);
        run(demo, 60, recorded);
    }
    Options replay_options;
    replay_options.replay = path;
    Demo replay(replay_options);
    std::vector<std::uint64_t> replayed;
    for (int i = 0; i < 400 && !replay.replay()->finished; ++i) run(replay, 1, replayed);
    EXPECT_EQ(replayed, recorded);
    EXPECT_EQ(replay.replay()->failed, 0u);
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace collidoscope

namespace collidoscope {
namespace {

// The bodies' places in the order a generated scene gives them, Morton-ordered or not.
template <int D>
std::vector<glm::vec3> scene_positions(const char* scene, std::size_t count, std::uint64_t seed,
                                       bool morton) {
    collide::Scene<D> s = collide::make_scene<D>(scene, count, seed);
    if (morton) collide::order_by_morton(s.bodies);
    std::vector<glm::vec3> out;
    for (const auto& p : s.bodies.pos) {
        if constexpr (D == 2) {
            out.emplace_back(p, 0.0f);
        } else {
            out.push_back(p);
        }
    }
    return out;
}

std::vector<glm::vec3> scene_positions(int dim, const char* scene, std::size_t count,
                                       std::uint64_t seed, bool morton) {
    return dim == 2 ? scene_positions<2>(scene, count, seed, morton)
                    : scene_positions<3>(scene, count, seed, morton);
}

// A generated world over kLargeWorldBodies is numbered along the Morton curve; at the cut,
// and where the generator's numbering is asked for, it keeps the generator's order.
TEST(BodyNumbering, LargeGeneratedWorldsFollowTheMortonCurve) {
    const std::size_t large = collidoscope::kLargeWorldBodies + 1;
    for (int dim : {2, 3}) {
        SCOPED_TRACE(dim);
        EXPECT_EQ(positions(*make_sim_world(dim, "powerlaw", large, 4, "sorted-grid")),
                  scene_positions(dim, "powerlaw", large, 4, true));
        EXPECT_NE(scene_positions(dim, "powerlaw", large, 4, true),
                  scene_positions(dim, "powerlaw", large, 4, false));
        EXPECT_EQ(positions(*make_sim_world(dim, "powerlaw", large, 4, "sorted-grid",
                                            {BodyNumbering::kGenerated})),
                  scene_positions(dim, "powerlaw", large, 4, false));
        EXPECT_EQ(positions(*make_sim_world(dim, "powerlaw", collidoscope::kLargeWorldBodies, 4,
                                            "sorted-grid")),
                  scene_positions(dim, "powerlaw", collidoscope::kLargeWorldBodies, 4, false));
    }
}

// A version 1 session was recorded with the generator's numbering at every count, and
// replays with it; a version 2 one numbers a large world along the Morton curve. The
// recorder writes the version it was started with.
TEST(BodyNumbering, SessionVersionDecidesTheNumbering) {
    const std::size_t large = collidoscope::kLargeWorldBodies + 1;
    const std::string path = temp_path("collidoscope_test_session_version.txt");
    for (int version : {1, 2}) {
        SCOPED_TRACE(version);
        {
            SessionRecorder recorder(path, {2, "uniform", large, 9, "sorted-grid", version});
            recorder.finish(0);
        }
        EXPECT_EQ(load_session(path).start.version, version);
        Options options;
        options.replay = path;
        Demo demo(options);
        EXPECT_EQ(positions(demo.world()), scene_positions(2, "uniform", large, 9, version == 2));
    }
    std::filesystem::remove(path);
}

TEST(BodyNumbering, UnknownSessionVersionIsRefused) {
    const std::string path = temp_path("collidoscope_test_session_v4.txt");
    const std::pair<const char*, const char*> cases[] = {
        {"collidoscope-session 4", "'4' is not a session file version this build reads (1 to 3)"},
        {"collidoscope-session 0", "'0' is not a session file version this build reads (1 to 3)"},
        {"collidoscope-session",
         "not a session file: the first line must be 'collidoscope-session 3'"},
        {"collidoscope-sessions 1",
         "not a session file: the first line must be 'collidoscope-session 3'"},
    };
    for (const auto& [first, message] : cases) {
        std::ofstream(path) << first
                            << "\ndim 2\nscene uniform\ncount 100\nseed 1\n"
                               "broadphase sort-and-sweep\nend 0\n";
        try {
            load_session(path);
            ADD_FAILURE() << first << ": no error";
        } catch (const collide::InputError& e) {
            EXPECT_EQ(std::string(e.what()), path + ":1: " + message);
        }
    }
    std::filesystem::remove(path);
}

// 500 bodies of uniform, in 2D, with the quadtree (a row of one dimension).
Options quadtree_world() {
    Options options;
    options.scene = "uniform";
    options.count = 500;
    options.broadphase = "quadtree";
    return options;
}

// Bug: going from 2D to 3D landed on sort-and-sweep rather than the octree the quadtree
// becomes, and cleared the query region. Now each one-dimension row goes to its twin, and
// the region keeps its share of the world (spanning the depth in 3D).
TEST(DimensionSwitch, KeepsTheTreeAndTheQuery) {
    Demo demo(quadtree_world());
    const Box3 world2 = demo.world().bounds();
    const glm::vec3 size2 = world2.hi - world2.lo;
    // The region over the world's lower-left quarter.
    demo.set_query(Box3{world2.lo, world2.lo + glm::vec3(0.5f * size2.x, 0.5f * size2.y, 0.0f)});
    demo.set_dim(3);
    ASSERT_EQ(demo.dim(), 3);
    EXPECT_EQ(demo.broad_phase(), "octree");
    ASSERT_TRUE(demo.query().has_value());
    const Box3 world3 = demo.world().bounds();
    const Box3 q = *demo.query();
    EXPECT_FLOAT_EQ(q.lo.x, world3.lo.x);
    EXPECT_FLOAT_EQ(q.hi.x, world3.lo.x + 0.5f * (world3.hi.x - world3.lo.x));
    EXPECT_FLOAT_EQ(q.hi.y, world3.lo.y + 0.5f * (world3.hi.y - world3.lo.y));
    EXPECT_EQ(q.lo.z, world3.lo.z);
    EXPECT_EQ(q.hi.z, world3.hi.z);
    demo.set_dim(2);
    EXPECT_EQ(demo.broad_phase(), "quadtree");
    ASSERT_TRUE(demo.query().has_value());
    EXPECT_EQ(demo.query()->lo.z, 0.0f);
    EXPECT_EQ(demo.query()->hi.z, 0.0f);
    EXPECT_FLOAT_EQ(demo.query()->hi.x, world2.lo.x + 0.5f * size2.x);
    // A row in both dimensions stays itself.
    demo.set_broad_phase("dynamic-aabb-tree");
    demo.set_dim(3);
    EXPECT_EQ(demo.broad_phase(), "dynamic-aabb-tree");
}

// Every one-dimension row names a twin that lives in the dimension it lacks.
TEST(DimensionSwitch, EveryTwinLivesInTheOtherDimension) {
    for (const collide::BroadPhaseEntry& e : collide::all_broadphases()) {
        if (e.in_2d && e.in_3d) {
            EXPECT_TRUE(e.in_other_dim.empty()) << e.name;
            continue;
        }
        const collide::BroadPhaseEntry* twin = collide::find_any_broadphase(e.in_other_dim);
        ASSERT_NE(twin, nullptr) << e.name << " names no twin";
        EXPECT_EQ(twin->in_2d, e.in_3d) << e.name;
        EXPECT_EQ(twin->in_other_dim, e.name) << e.name;
    }
}

// Bug: each compare pane had a cost scale of its own, so brute force, whose bodies all take
// n - 1 tests, showed its whole world at the cold end and looked the cheapest. On the panes'
// common scale its bodies are the hottest, and the enneatree's are cooler.
TEST(CompareCosts, PanesShareOneScale) {
    auto w = make_sim_world(2, "centerline", 400, 1, "quadtree");
    w->step();
    std::vector<Instance> start;
    w->fill_instances(ColorMode::kCost, start);
    OverlayRequest request;
    OverlayGeometry overlays;
    const auto pane = [&](const char* algorithm, const CostScale& common) {
        std::vector<Instance> bodies = start;
        const auto facts =
            w->compare_pane(algorithm, request, ColorMode::kCost, bodies, overlays, true, common);
        EXPECT_TRUE(facts && facts->run.ran) << algorithm;
        return std::pair(*facts, bodies);
    };
    const auto [ennea, ennea_own] = pane("enneatree", {});
    const auto [brute, brute_own] = pane("brute-force", {});
    ASSERT_TRUE(ennea.costs.attributed && brute.costs.attributed);
    EXPECT_EQ(brute.costs.peak, 399u);
    const CostScale scales[] = {ennea.costs, brute.costs};
    const CostScale common = common_scale(scales);
    EXPECT_EQ(common.peak, 399u);
    EXPECT_EQ(common.low, std::min(ennea.costs.low, brute.costs.low));
    const auto [brute_facts, brute_bodies] = pane("brute-force", common);
    EXPECT_EQ(brute_facts.shown.peak, common.peak);
    const auto [ennea_facts, ennea_bodies] = pane("enneatree", common);
    std::size_t hottest_brute = 0, hottest_ennea = 0;
    for (std::size_t i = 0; i < start.size(); ++i) {
        hottest_brute += brute_bodies[i].color == cost_color(1.0f);
        hottest_ennea += ennea_bodies[i].color == cost_color(1.0f);
    }
    EXPECT_EQ(hottest_brute, start.size()) << "brute force's bodies are the hottest";
    EXPECT_LT(hottest_ennea, start.size() / 10);
    // A pane that sits out shows no heat: its bodies are uncoloured.
    auto big = make_sim_world(2, "uniform", 30000, 1, "sorted-grid");
    std::vector<Instance> bodies;
    big->fill_instances(ColorMode::kCost, bodies);
    const auto sat_out =
        big->compare_pane("brute-force", request, ColorMode::kCost, bodies, overlays, false);
    ASSERT_TRUE(sat_out);
    EXPECT_FALSE(sat_out->run.ran);
    EXPECT_TRUE(std::all_of(bodies.begin(), bodies.end(),
                            [](const Instance& b) { return b.color == kNoCostColor; }));
}

// "Run once" is refused where one frame would stop the window for seconds: brute force far
// past the reference limit. Just past the limit it runs; other algorithms always may.
TEST(CompareCosts, RunOnceIsRefusedOnlyWhereItWouldFreeze) {
    const auto refusal = too_slow_to_run_once("brute-force", 100000);
    ASSERT_TRUE(refusal);
    EXPECT_NE(refusal->find("too slow to run even once"), std::string::npos) << *refusal;
    EXPECT_FALSE(too_slow_to_run_once("brute-force", collide::kMaxReferenceBodies + 1000));
    EXPECT_FALSE(too_slow_to_run_once("sort-and-sweep", 1000000));
    // The race itself refuses it too, whoever asks.
    auto w = make_sim_world(2, "uniform", 100000, 1, "sorted-grid");
    std::vector<Instance> bodies;
    w->fill_instances(ColorMode::kSpeed, bodies);
    OverlayGeometry overlays;
    const auto facts =
        w->compare_pane("brute-force", OverlayRequest{}, ColorMode::kSpeed, bodies, overlays, true);
    ASSERT_TRUE(facts);
    EXPECT_FALSE(facts->run.ran);
    EXPECT_EQ(facts->run.note, *refusal);
}

// Bug: going from 2 to 4 panes filled the new ones with copies of the last pane, brute force
// there (4 to 9 fps at 5,000 bodies). New panes take algorithms not shown yet, never brute
// force; fewer panes keep the first ones.
TEST(CompareCosts, NewPanesTakeAlgorithmsNotShownYet) {
    Demo demo(quadtree_world());
    demo.view().compare = {"quadtree", "brute-force"};
    demo.set_compare_panes(4);
    const std::vector<std::string>& panes = demo.view().compare;
    ASSERT_EQ(panes.size(), 4u);
    EXPECT_EQ(panes[0], "quadtree");
    EXPECT_EQ(panes[1], "brute-force") << "a pane the user chose keeps its algorithm";
    EXPECT_EQ(std::set<std::string>(panes.begin(), panes.end()).size(), 4u);
    EXPECT_EQ(std::count(panes.begin(), panes.end(), "brute-force"), 1);
    demo.set_compare_panes(2);
    EXPECT_EQ(panes, (std::vector<std::string>{"quadtree", "brute-force"}));
    demo.set_compare_panes(0);
    EXPECT_TRUE(panes.empty());
    demo.set_compare_panes(2);
    EXPECT_EQ(panes[0], "quadtree");
    EXPECT_NE(panes[1], "brute-force");
}

// Bug: in 3D, boxes and pairs drawn through the whole depth were an unreadable tangle at the
// default counts. Going from 2D to 3D with both on turns the slab on, and the slab cuts the
// boxes and pairs as it cuts the structure.
TEST(DimensionSwitch, BoxesAndPairsIn3DAreCutToASlab) {
    Options options;
    options.scene = "uniform";
    options.count = 2000;
    options.broadphase = "sort-and-sweep";
    options.overlays.aabbs = options.overlays.pairs = true;
    Demo demo(options);
    EXPECT_FALSE(demo.view().slab);
    demo.set_dim(3);
    EXPECT_TRUE(demo.view().slab);
    EXPECT_NE(demo.notice().find("slab"), std::string::npos) << demo.notice();
    // The cut: a slab a fifth of the world thick draws about a fifth of the boxes.
    OverlayRequest request;
    request.flags.aabbs = request.flags.pairs = true;
    request.view = demo.world().bounds();
    OverlayGeometry whole, cut;
    const OverlayReport all = demo.world().fill_overlays(request, whole);
    Box3 slab = demo.world().bounds();
    const float depth = slab.hi.z - slab.lo.z;
    slab.lo.z += 0.4f * depth;
    slab.hi.z -= 0.4f * depth;
    request.slab = slab;
    const OverlayReport sliced = demo.world().fill_overlays(request, cut);
    EXPECT_EQ(all.boxes_drawn, 2000u);
    EXPECT_LT(sliced.boxes_drawn, all.boxes_drawn / 3);
    EXPECT_GT(sliced.boxes_drawn, 0u);
    EXPECT_LT(sliced.pairs_drawn, all.pairs_drawn);
    // Below the count where they tangle, the slab is left as it was.
    options.count = 300;
    Demo small(options);
    small.set_dim(3);
    EXPECT_FALSE(small.view().slab);
}

}  // namespace
}  // namespace collidoscope
