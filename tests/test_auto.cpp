// auto: it races its candidates once on the live boxes and keeps the fastest; after that no
// update runs two algorithms: a challenger takes a turn in place of the current one, which
// resumes when the challenger loses (its pairs still exact); the choice follows measured
// time when the current one turns slow; brute force serves a handful of bodies. That its
// pairs are exact on every scene is checked with every other registry entry.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "broadphase/auto_select.hpp"
#include "collide/registry.hpp"
#include "test_support.hpp"
#include "tooling/random.hpp"

namespace collide {
namespace {

using Auto = AutoSelect<2>;

// n bodies at time t, each moving at its own velocity.
std::vector<Aabb<2>> boxes_at(std::size_t n, float t) {
    Rng rng(3);
    std::vector<Aabb<2>> boxes;
    for (std::size_t i = 0; i < n; ++i) {
        const Vec<2> c = rng.in_box<2>(Vec<2>(0.0f), Vec<2>(100.0f));
        const Vec<2> v = rng.in_box<2>(Vec<2>(-1.0f), Vec<2>(1.0f));
        boxes.push_back(Aabb<2>::around(c + t * v, 0.5f));
    }
    return boxes;
}

// Scripted candidates: each is a real one (dynamic-aabb-tree, sorted-grid, radix-chunks
// under the names a, b, c), counted, each update taking g_cost_ms[name] on a scripted
// clock (its first, the cold build, g_cold_ms[name] where that is set), so the test does
// not depend on the machine's load.
std::map<std::string, double, std::less<>> g_cost_ms, g_cold_ms;
double g_now_ms = 0;
int g_updates = 0;  // calls to update, all candidates together
std::map<std::string, int, std::less<>> g_updates_of;  // and per candidate
int g_built = 0;

class Scripted final : public BroadPhase<2> {
public:
    explicit Scripted(std::string_view name)
        : name_(name),
          inner_(make_broadphase<2>(name == "a"   ? "dynamic-aabb-tree"
                                    : name == "b" ? "sorted-grid"
                                                  : "radix-chunks")) {}
    void update_whole(std::span<const Aabb<2>> boxes, std::span<const std::uint8_t> is_static,
                      PairList& out) override {
        ++g_updates;
        ++g_updates_of[name_];
        inner_->update(boxes, is_static, out);
        const auto cold = g_cold_ms.find(name_);
        g_now_ms += built_ && cold != g_cold_ms.end() ? cold->second : g_cost_ms[name_];
        built_ = false;
    }
    void search(const Aabb<2>& region, std::vector<BodyId>& out,
                QueryTrace<2>* trace) const override {
        inner_->query(region, out, trace);
    }
    BroadPhaseStats stats() const override { return inner_->stats(); }

private:
    std::string name_;
    std::unique_ptr<BroadPhase<2>> inner_;
    bool built_ = true;  // not updated yet
};

std::unique_ptr<BroadPhase<2>> make_scripted(std::string_view name) {
    ++g_built;
    return std::make_unique<Scripted>(name);
}

// Brute force on 3,000 bodies (4.5 million tests) against sort-and-sweep: a difference of
// tens of times, which no load on the machine turns round.
TEST(Auto, KeepsTheFastestMeasured) {
    for (const bool brute_first : {true, false}) {
        Auto a(&make_broadphase<2>,
               brute_first ? std::vector<std::string_view>{"brute-force", "sort-and-sweep"}
                           : std::vector<std::string_view>{"sort-and-sweep", "brute-force"});
        PairList pairs;
        const std::vector<std::uint8_t> still(3000, 0);
        for (int i = 0; i <= Auto::kRaceTimedFew; ++i) {  // a cold build, then timed frames
            EXPECT_EQ(a.probes(), 0);
            a.update(boxes_at(3000, 0.01f * static_cast<float>(i)), still, pairs);
        }
        EXPECT_EQ(a.probes(), 1);
        EXPECT_EQ(a.current(), "sort-and-sweep");
        EXPECT_NE(a.status().find("measured"), std::string::npos) << a.status();
        EXPECT_NE(a.status().find("brute-force"), std::string::npos) << a.status();
    }
}

// After the race every update runs one algorithm, and its pairs and queries are exact,
// through a losing turn (the current, a tree, resumes unbuilt after the bodies moved on) and
// a winning one, when the current turns slow.
TEST(Auto, TakesTurnsAndFollowsMeasuredTime) {
    g_cost_ms = {{"a", 1.0}, {"b", 8.0}, {"c", 8.0}};
    g_built = g_updates = 0;
    Auto a(&make_scripted, {"a", "b", "c"}, [] { return g_now_ms; });
    constexpr std::size_t kN = 1500;
    const std::vector<std::uint8_t> still(kN, 0);
    PairList pairs;
    int frame = 0;
    const auto step = [&] {
        const auto boxes = boxes_at(kN, 0.05f * static_cast<float>(frame++));
        const int before = g_updates;
        a.update(boxes, still, pairs);
        std::sort(pairs.begin(), pairs.end());
        EXPECT_EQ(pairs, testing::reference_pairs<2>(boxes, still)) << "frame " << frame;
        // A query sees this update's boxes, also right after a lost turn, before the
        // current has caught up.
        const Aabb<2> region{Vec<2>(20.0f), Vec<2>(45.0f)};
        std::vector<BodyId> found, expected;
        a.query(region, found);
        std::sort(found.begin(), found.end());
        for (BodyId id = 0; id < boxes.size(); ++id)
            if (boxes[id].overlaps(region)) expected.push_back(id);
        EXPECT_EQ(found, expected) << "frame " << frame << ", " << a.current();
        return g_updates - before;
    };
    for (int i = 0; i <= Auto::kRaceTimedFew; ++i) EXPECT_EQ(step(), 3);  // the race
    EXPECT_EQ(a.current(), "a");
    EXPECT_EQ(g_built, 3);
    for (int i = 0; i < Auto::kSettleAfter + 5; ++i) EXPECT_EQ(step(), 1);
    EXPECT_EQ(a.current(), "a");
    // a turns slow (the work changed: its time drifts), c fast and b stays slower than a:
    // each gets a turn, b first, which loses (a resumes), then c, which wins.
    g_cost_ms = {{"a", 3.0}, {"b", 8.0}, {"c", 0.5}};
    std::vector<std::string> ran;
    for (int i = 0; i < 40 && a.current() != "c"; ++i) {
        EXPECT_EQ(step(), 1);
        if (ran.empty() || ran.back() != a.current()) ran.emplace_back(a.current());
    }
    EXPECT_EQ(ran, (std::vector<std::string>{"a", "b", "a", "c"}));
    EXPECT_EQ(g_built, 5);  // b and c for their turns; a resumed as it was
    for (int i = 0; i < 5; ++i) EXPECT_EQ(step(), 1);
    EXPECT_EQ(a.current(), "c");
}

// auto over the scripted candidates a, b and c at the given costs, its race run (a fastest),
// then `run(k)` for k more updates of bodies that keep moving.
struct ScriptedRun {
    static constexpr std::size_t kN = 1500;
    explicit ScriptedRun(std::map<std::string, double, std::less<>> costs) {
        g_cost_ms = std::move(costs);
        run(Auto::kRaceTimedFew + 1);
    }
    void run(int updates) {
        for (int i = 0; i < updates; ++i, ++frame)
            a.update(boxes_at(kN, 0.05f * static_cast<float>(frame)), still, pairs);
    }
    Auto a{&make_scripted, {"a", "b", "c"}, [] { return g_now_ms; }};
    std::vector<std::uint8_t> still = std::vector<std::uint8_t>(kN, 0);
    PairList pairs;
    int frame = 0;
};

// A challenger measured slower, but not hopelessly (1.4 times the current), gets its periodic
// turns; each ends after its cold build and one timed frame, which is already too slow to
// win, and the current resumes. One measured 1.6 times slower gets none: at the second
// periodic turn it is next in line, and is passed over.
TEST(Auto, ASlowTurnEndsAfterItsFirstTimedFrame) {
    ScriptedRun r({{"a", 1.0}, {"b", 1.4}, {"c", 1.6}});
    ASSERT_EQ(r.a.current(), "a");
    g_updates_of.clear();
    r.run(Auto::kFirstTurn + Auto::kProbeEvery + 20);
    EXPECT_EQ(g_updates_of["b"], 4);
    EXPECT_EQ(g_updates_of["c"], 0);  // measured hopelessly slower: no turn
    EXPECT_EQ(r.a.current(), "a");
    EXPECT_EQ(r.a.probes(), 3);  // the race and b's two turns
}

// A challenger measured close behind, but whose cold build costs more than winning could
// save before the next periodic turn, gets no turn (the tree on the 3D rain trace).
TEST(Auto, AChallengerWithADearColdBuildGetsNoTurn) {
    g_cold_ms = {{"b", 12.0}};
    ScriptedRun r({{"a", 1.0}, {"b", 1.2}, {"c", 5.0}});
    r.run(Auto::kFirstTurn + 20);
    g_cold_ms.clear();
    EXPECT_EQ(r.a.current(), "a");
    EXPECT_EQ(r.a.probes(), 1);  // the race only
}

// A current that kept its place through a turn catches up on the frames it missed (a tree's
// bodies left their fat boxes meanwhile): its first two updates after resuming cost five
// times its settled time here. Those must not call a turn for a challenger measured faster
// than them (c, 2.5 against 5): a turn for c would win on them and keep c, at 2.5 times a.
TEST(Auto, AResumedCurrentIsNotJudgedOnItsCatchUp) {
    ScriptedRun r({{"a", 1.0}, {"b", 1.4}, {"c", 2.5}});
    ASSERT_EQ(r.a.current(), "a");
    g_updates_of.clear();
    int catch_up = 0;  // a's updates left at the catch-up cost
    bool resumed = false;
    for (int i = 0; i < Auto::kFirstTurn + 20; ++i) {
        g_cost_ms["a"] = catch_up > 0 ? 5.0 : 1.0;
        catch_up = std::max(catch_up - 1, 0);
        const std::string before(r.a.current());
        r.run(1);
        if (before == "b" && r.a.current() == "a") {
            catch_up = 2;
            resumed = true;
        }
    }
    EXPECT_TRUE(resumed);  // b had its turn and lost
    EXPECT_EQ(g_updates_of["b"], 2);
    EXPECT_EQ(g_updates_of["c"], 0);
    EXPECT_EQ(r.a.current(), "a");
}

// A current chosen on cheap fresh frames whose cost then jumps (a tree's, once bodies leave
// their fat boxes) gives way at once to a challenger measured clearly faster than that.
TEST(Auto, AChoiceMadeOnFreshFramesIsUndoneAtOnce) {
    ScriptedRun r({{"a", 1.0}, {"b", 1.3}, {"c", 5.0}});
    ASSERT_EQ(r.a.current(), "a");
    g_cost_ms["a"] = 3.0;
    r.run(6);
    EXPECT_EQ(r.a.current(), "b");
}

// Once the current has settled, a rise in its time is the work's, which every candidate
// shares (rain piling up): it calls no turn at once, even for a challenger measured below
// the current's new time before the rise. Here both grow by 60%: b's turn would only lose.
TEST(Auto, ARiseAfterSettlingCallsNoTurnAtOnce) {
    ScriptedRun r({{"a", 1.0}, {"b", 1.3}, {"c", 5.0}});
    ASSERT_EQ(r.a.current(), "a");
    r.run(Auto::kFirstTurn + Auto::kSettleAfter + 10);  // b's periodic turn (lost), then settled
    ASSERT_EQ(r.a.current(), "a");
    ASSERT_EQ(r.a.probes(), 2);
    g_updates_of.clear();
    g_cost_ms = {{"a", 1.6}, {"b", 2.1}, {"c", 8.0}};
    r.run(20);
    EXPECT_EQ(g_updates_of["b"], 0);
    EXPECT_EQ(r.a.current(), "a");
    EXPECT_EQ(r.a.probes(), 2);
}

// A body count that swings between two sizes (a still split's moving side with churn) races
// once at each size; after that a swing takes the winner raced at that size, pairs exact.
TEST(Auto, ACountRacedAtLatelyTakesItsWinnerWithoutARace) {
    g_cost_ms = {{"a", 1.0}, {"b", 2.0}, {"c", 3.0}};
    g_cold_ms.clear();
    g_updates = 0;
    Auto a(&make_scripted, {"a", "b", "c"}, [] { return g_now_ms; });
    PairList pairs;
    int races = 0;
    for (int swing = 0; swing < 6; ++swing) {
        const std::size_t n = swing % 2 == 0 ? 1500 : 4000;
        const std::vector<std::uint8_t> still(n, 0);
        for (int i = 0; i < 8; ++i) {
            const auto boxes = boxes_at(n, 0.05f * static_cast<float>(i));
            const int before = g_updates;
            a.update(boxes, still, pairs);
            races += i == 0 && g_updates - before == 3;  // every candidate ran: a race began
            std::sort(pairs.begin(), pairs.end());
            EXPECT_EQ(pairs, testing::reference_pairs<2>(boxes, still)) << "swing " << swing;
        }
        EXPECT_EQ(a.current(), "a") << "swing " << swing;
    }
    EXPECT_EQ(races, 2);
}

TEST(Auto, BruteForceForAFewBodies) {
    Auto a(&make_broadphase<2>);
    PairList pairs;
    const std::vector<std::uint8_t> still(200, 0);
    a.update(boxes_at(11, 0.0f), std::span(still).first(11), pairs);
    EXPECT_EQ(a.current(), "brute-force");
    a.update(boxes_at(70, 0.0f), std::span(still).first(70), pairs);  // inside the band
    EXPECT_EQ(a.current(), "brute-force");
    a.update(boxes_at(200, 0.0f), still, pairs);
    EXPECT_EQ(a.current(), Auto::kCandidates[0]);  // racing them all from here
    EXPECT_NE(a.status().find("racing its 4 candidates"), std::string::npos) << a.status();
}

}  // namespace
}  // namespace collide
