// Sleeping by island (collide/sleep_islands.hpp) in the World: a settled pile falls asleep
// and stops costing, a touch or a hand wakes its island, the broad phase's pairs stay the
// reference's (no pair of two still bodies) for every registry row in both dimensions, and
// the state is the same on 1 and 2 threads and after a restore.
#include <cstring>
#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include "collide/gpu/catalog.hpp"
#include "collide/world.hpp"
#include "test_support.hpp"
#include "tooling/scenes.hpp"

namespace collide {
namespace {

template <int D>
World<D> sleepy_world(std::size_t n, std::uint64_t seed, const std::string& algorithm) {
    Scene<D> s = make_scene<D>("rain", n, seed);
    s.settings.sleep = true;
    return World<D>(s.settings, std::move(s.bodies), make_any_broadphase<D>(algorithm));
}

// Per body: 1 where the broad phase must not pair it with another such (static or asleep).
template <int D>
std::vector<std::uint8_t> still_flags(const World<D>& w) {
    std::vector<std::uint8_t> still(w.bodies().size());
    for (BodyId i = 0; i < still.size(); ++i)
        still[i] = w.bodies().is_static[i] || w.asleep(i);
    return still;
}

template <int D>
std::vector<std::uint8_t> asleep_flags(const World<D>& w) {
    std::vector<std::uint8_t> a(w.bodies().size());
    for (BodyId i = 0; i < a.size(); ++i) a[i] = w.asleep(i);
    return a;
}

template <int D>
void expect_reference_pairs(const World<D>& w, const std::string& what) {
    PairList got = w.pairs();
    std::sort(got.begin(), got.end());
    // The pairs the last update saw: the still flags are as of that update, so taken before
    // the step's sleeping changed them. Callers check right after refresh_pairs().
    const PairList want = testing::reference_pairs<D>(w.boxes(), still_flags(w));
    const auto diff = pair_set_difference(got, want);
    ASSERT_FALSE(diff) << what << ": " << *diff;
}

template <int D>
void expect_same_state(const World<D>& a, const World<D>& b) {
    const std::size_t bytes = a.bodies().size() * sizeof(Vec<D>);
    ASSERT_EQ(a.bodies().size(), b.bodies().size());
    EXPECT_EQ(std::memcmp(a.bodies().pos.data(), b.bodies().pos.data(), bytes), 0);
    EXPECT_EQ(std::memcmp(a.bodies().vel.data(), b.bodies().vel.data(), bytes), 0);
    EXPECT_EQ(asleep_flags(a), asleep_flags(b));
    const auto sa = a.snapshot().sleep, sb = b.snapshot().sleep;
    EXPECT_EQ(sa.island, sb.island);
    EXPECT_EQ(sa.next, sb.next);
    EXPECT_EQ(sa.rest_time, sb.rest_time);
}

// Steps until at least `share` of the bodies sleep, or `limit` steps; the steps taken.
template <int D>
int step_until_asleep(World<D>& w, double share, int limit) {
    int steps = 0;
    while (steps < limit && static_cast<double>(w.sleeping()) < share * w.bodies().size()) {
        w.step();
        ++steps;
    }
    return steps;
}

template <int D>
void pile_falls_asleep_and_a_touch_wakes_it() {
    World<D> w = sleepy_world<D>(300, 5, "sorted-grid");
    const int steps = step_until_asleep(w, 1.0, 3600);
    ASSERT_EQ(w.sleeping(), w.bodies().size()) << "after " << steps << " steps (60 s)";
    EXPECT_EQ(w.awake(), 0u);
    // Asleep, nothing moves and nothing is paired.
    const auto pos = w.bodies().pos;
    for (int i = 0; i < 10; ++i) w.step();
    EXPECT_EQ(std::memcmp(pos.data(), w.bodies().pos.data(), pos.size() * sizeof(Vec<D>)), 0);
    EXPECT_TRUE(w.pairs().empty());
    EXPECT_TRUE(w.contacts().empty());

    // A member of the smallest island lifted by hand above the largest one wakes its own
    // island only; when it falls onto the other, the touch wakes that one too.
    const auto sleep = w.snapshot().sleep;
    std::vector<std::size_t> members(w.bodies().size(), 0);
    for (const BodyId head : sleep.island) ++members[head];
    BodyId smallest = 0, largest = 0;
    for (BodyId i = 0; i < members.size(); ++i) {
        if (members[i] == 0) continue;
        if (members[smallest] == 0 || members[i] < members[smallest]) smallest = i;
        if (members[i] > members[largest]) largest = i;
    }
    ASSERT_NE(smallest, largest) << "the scene makes more than one island";
    Vec<D> above = w.bodies().pos[largest];
    for (BodyId i = 0; i < w.bodies().size(); ++i)
        if (sleep.island[i] == largest && w.bodies().pos[i][1] > above[1]) above = w.bodies().pos[i];
    above[1] += 3.0f;
    w.move_body(smallest, above, Vec<D>(0.0f));
    const std::size_t lifted_island = w.bodies().size() - w.sleeping();
    EXPECT_EQ(lifted_island, members[smallest]);
    EXPECT_FALSE(w.asleep(smallest));
    std::size_t most_awake = 0;
    for (int i = 0; i < 120; ++i) {
        w.step();
        most_awake = std::max(most_awake, w.awake());
        w.refresh_pairs();
        expect_reference_pairs(w, "step " + std::to_string(i) + " after the lift");
    }
    EXPECT_GT(most_awake, lifted_island) << "the landing woke the island below";
    // And it settles back to sleep.
    step_until_asleep(w, 1.0, 3600);
    EXPECT_EQ(w.sleeping(), w.bodies().size());
}

TEST(Sleep, APileFallsAsleepAndATouchWakesIt2D) {
    pile_falls_asleep_and_a_touch_wakes_it<2>();
}
TEST(Sleep, APileFallsAsleepAndATouchWakesIt3D) {
    pile_falls_asleep_and_a_touch_wakes_it<3>();
}

// The world lifted and dropped (as above) from a state where some islands sleep, stepped
// with the broad phase `algorithm`: every step's pairs are the reference's for the still
// flags the step began with (static or asleep), through islands falling asleep and waking.
template <int D>
void pairs_exact_while_islands_sleep_and_wake(const std::string& algorithm) {
    static const typename World<D>::Snapshot settling = [] {
        World<D> w = sleepy_world<D>(300, 5, "brute-force");
        step_until_asleep(w, 0.3, 3600);
        return w.snapshot();
    }();
    World<D> w = sleepy_world<D>(300, 5, algorithm);
    w.restore(settling);
    ASSERT_GT(w.sleeping(), 0u);
    std::size_t slept = 0, woke = 0;
    for (int i = 0; i < 400; ++i) {
        const auto before = asleep_flags(w);
        if (i == 200) {  // the bottom-most sleeper thrown up: its island wakes
            BodyId low = kNoBody;
            for (BodyId b = 0; b < w.bodies().size(); ++b)
                if (w.asleep(b) && (low == kNoBody || w.bodies().pos[b][1] < w.bodies().pos[low][1]))
                    low = b;
            if (low != kNoBody) w.move_body(low, w.bodies().pos[low], Vec<D>(0.0f) + 8.0f);
        }
        const auto still = still_flags(w);
        w.step();
        const auto after = asleep_flags(w);
        for (BodyId b = 0; b < before.size(); ++b) {
            slept += after[b] > before[b];
            woke += after[b] < before[b];
        }
        PairList got = w.pairs();
        std::sort(got.begin(), got.end());
        const auto diff = pair_set_difference(got, testing::reference_pairs<D>(w.boxes(), still));
        ASSERT_FALSE(diff) << "step " << i << ": " << *diff;
    }
    EXPECT_GT(slept, 0u) << "islands fell asleep";
    EXPECT_GT(woke, 0u) << "islands woke";
}

class SleepingWorld : public ::testing::TestWithParam<testing::Param> {};

TEST_P(SleepingWorld, PairsStayExactWhileIslandsSleepAndWake) {
    const auto& [algorithm, dim] = GetParam();
    SKIP_WITHOUT_GPU(algorithm);
    if (dim == 2) {
        pairs_exact_while_islands_sleep_and_wake<2>(algorithm);
    } else {
        pairs_exact_while_islands_sleep_and_wake<3>(algorithm);
    }
}

INSTANTIATE_TEST_SUITE_P(Registry, SleepingWorld, ::testing::ValuesIn(testing::rows_by_dim()),
                         testing::row_name);

// Sleeping decides in body and contact order: 1 and 2 threads, and a restored run, give the
// same bodies, the same sleepers and the same islands. Half the bodies start at rest, so
// islands sleep early while the others run into them and wake them; 20000 bodies make
// several blocks of every parallel loop.
template <int D>
void deterministic_with_sleep() {
    const auto run = [](int threads, int steps) {
        return tbb::task_arena(threads).execute([steps] {
            Scene<D> s = make_scene<D>("uniform", 20000, 7);
            for (std::size_t i = 0; i < s.bodies.size(); i += 2) s.bodies.vel[i] = Vec<D>(0.0f);
            s.settings.sleep = true;
            s.settings.sleep_time = 0.25f;
            World<D> w(s.settings, std::move(s.bodies), make_broadphase<D>("sorted-grid"));
            for (int i = 0; i < steps; ++i) w.step();
            return w;
        });
    };
    const World<D> one = run(1, 60), two = run(2, 60);
    EXPECT_GT(one.sleeping(), one.bodies().size() / 20);
    EXPECT_LT(one.sleeping(), one.bodies().size());
    expect_same_state(one, two);

    World<D> again = run(2, 40);
    const auto saved = again.snapshot();
    for (int i = 0; i < 20; ++i) again.step();
    expect_same_state(again, one);
    again.restore(saved);
    for (int i = 0; i < 20; ++i) again.step();
    expect_same_state(again, one);
}

TEST(Sleep, SameOnOneAndTwoThreadsAndAfterARestore2D) {
    deterministic_with_sleep<2>();
}
TEST(Sleep, SameOnOneAndTwoThreadsAndAfterARestore3D) {
    deterministic_with_sleep<3>();
}

TEST(Sleep, SwitchedOffEveryBodyWakes) {
    World<2> w = sleepy_world<2>(200, 3, "sorted-grid");
    step_until_asleep(w, 0.5, 3600);
    ASSERT_GT(w.sleeping(), 0u);
    w.settings().sleep = false;
    w.step();
    EXPECT_EQ(w.sleeping(), 0u);
    EXPECT_EQ(w.awake(), w.bodies().size());
    for (const float t : w.snapshot().sleep.rest_time) ASSERT_EQ(t, 0.0f);
}

// Bad input: a NaN for a sleeping body is refused, naming it, and the world stays as it was
// (asleep, where it was).
TEST(Sleep, NanForASleepingBodyIsRefusedAndChangesNothing) {
    World<3> w = sleepy_world<3>(200, 3, "dynamic-aabb-tree");
    step_until_asleep(w, 1.0, 3600);
    ASSERT_TRUE(w.asleep(17));
    const Vec<3> at = w.bodies().pos[17];
    const float nan = std::numeric_limits<float>::quiet_NaN();
    try {
        w.move_body(17, Vec<3>(nan), Vec<3>(0.0f));
        FAIL() << "a NaN position was taken";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("body 17"), std::string::npos) << e.what();
    }
    EXPECT_THROW(w.move_body(17, at, Vec<3>(0.0f, nan, 0.0f)), std::invalid_argument);
    EXPECT_TRUE(w.asleep(17));
    EXPECT_EQ(w.sleeping(), w.bodies().size());
    EXPECT_EQ(w.bodies().pos[17], at);
}

}  // namespace
}  // namespace collide
