// Watch mode's recordings are made by the real update: on every scene, in both dimensions,
// the pairs a recording emits are the pairs that update returned, every event lights a line
// of the algorithm's pseudocode, and a focused recording at large n keeps every event that
// touches its focus body. GPU rows refuse, saying why.
#include <set>

#include <gtest/gtest.h>

#include "collide/broadphase_view.hpp"
#include "collide/watch.hpp"
#include "test_support.hpp"
#include "tooling/ballistic.hpp"
#include "tooling/scenes.hpp"

namespace collide {
namespace watch_test {

struct Case {
    std::string algorithm;
    int dim;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.algorithm << " " << c.dim << "D"; }

std::vector<Case> cpu_cases() {
    std::vector<Case> out;
    for (const BroadPhaseEntry& e : broadphases()) {
        for (int dim : {2, 3}) {
            if (e.supports(dim)) out.push_back({std::string(e.name), dim});
        }
    }
    return out;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    std::string name = info.param.algorithm + "_" + std::to_string(info.param.dim) + "d";
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

PairList sorted(PairList p) {
    std::sort(p.begin(), p.end());
    return p;
}

// The pane shows 10 to 25 lines, each short enough for the Watch panel's width.
void expect_script_fits(const WatchScript& script, const std::string& where) {
    EXPECT_GE(script.lines.size(), 10u) << where;
    EXPECT_LE(script.lines.size(), 25u) << where;
    for (const char* line : script.lines)
        EXPECT_LE(std::string_view(line).size(), kWatchLineWidth) << where << ": " << line;
    for (const WatchScript::Rule& r : script.rules) {
        EXPECT_GE(r.line, 0) << where;
        EXPECT_LT(r.line, int(script.lines.size())) << where;
    }
}

// One recorded update: its emitted pairs are exactly update's (no pair twice), and every
// kept event has a line in the script.
template <int D>
void expect_recording_is_the_update(BroadPhase<D>& bp, const BallisticMotion<D>& motion,
                                    const std::string& where) {
    WatchRecorder<D> recorder(motion.boxes(), WatchLimits<D>{});
    PairList out;
    ASSERT_TRUE(record_update<D>(bp, motion.boxes(), motion.is_static(), out, recorder)) << where;
    const WatchRecord<D>& rec = recorder.record();
    ASSERT_TRUE(rec.everything) << where << ": not everything kept at small n";
    const PairList want = sorted(out);
    ASSERT_EQ(sorted(rec.emitted), want) << where << ": emitted pairs differ from update's";
    ASSERT_FALSE(pair_set_difference(out, testing::reference_pairs<D>(motion.boxes(),
                                                                      motion.is_static())))
        << where;
    if (!want.empty()) {
        EXPECT_GE(rec.made_of(WatchStep::kTest), want.size()) << where << ": fewer tests than pairs";
    }
    // The script of what was recorded (auto's: the algorithm it ran this update).
    const WatchScript script = view_of(bp).watch_script();
    expect_script_fits(script, where);
    const std::size_t n = motion.boxes().size();
    for (const WatchEvent<D>& e : rec.events) {
        // Bodies named are bodies of this update: a viewer draws their boxes. Only a jump
        // may land nowhere (it ended its scan), and only region events name none.
        const bool names_a = e.step != WatchStep::kPhase && e.step != WatchStep::kVisit &&
                             e.step != WatchStep::kEnter && e.step != WatchStep::kPrune;
        const bool names_b = e.step == WatchStep::kTest || e.step == WatchStep::kEmit;
        if (names_a) ASSERT_LT(e.a, n) << where << ": a " << step_name(e.step);
        if (names_b) ASSERT_LT(e.b, n) << where << ": a " << step_name(e.step);
        if (e.step == WatchStep::kJump) ASSERT_TRUE(e.b < n || e.b == kNoBody) << where;
        const int line = script.line_of(e.step, rec.phases[e.phase]);
        ASSERT_GE(line, 0) << where << ": no line for a " << step_name(e.step) << " in phase "
                           << rec.phases[e.phase];
        ASSERT_LT(line, int(script.lines.size())) << where;
        // The line lit says what the event does: a test's tests, a pair's reports.
        const std::string text = script.lines[std::size_t(line)];
        if (e.step == WatchStep::kTest)
            ASSERT_TRUE(text.find("test") != std::string::npos ||
                        text.find("overlap") != std::string::npos)
                << where << ": a test lights \"" << text << "\"";
        if (e.step == WatchStep::kEmit)
            ASSERT_NE(text.find("report"), std::string::npos)
                << where << ": a pair lights \"" << text << "\"";
    }
}

template <int D>
void run_every_scene(const std::string& algorithm) {
    for (const SceneEntry& s : scene_list()) {
        for (std::size_t n : {0u, 1u, 2u, 300u}) {
            BallisticMotion<D> motion(make_scene<D>(s.name, n, 5), 0.5f, 5);
            auto bp = make_broadphase<D>(algorithm);
            // The first update builds; the second, after motion, is what a persistent
            // structure does on most frames.
            for (int frame = 0; frame < 2; ++frame) {
                expect_recording_is_the_update<D>(*bp, motion, std::string(s.name) + " n " +
                                                                   std::to_string(n) + " frame " +
                                                                   std::to_string(frame));
                if (::testing::Test::HasFatalFailure()) return;
                motion.advance();
            }
        }
    }
}

class Recording : public ::testing::TestWithParam<Case> {};

TEST_P(Recording, EmitsTheUpdatesPairsOnEveryScene) {
    if (GetParam().dim == 2) {
        run_every_scene<2>(GetParam().algorithm);
    } else {
        run_every_scene<3>(GetParam().algorithm);
    }
}

// The body with the most pairs, so the focus has events to keep.
template <int D>
BodyId busiest(const PairList& pairs, std::size_t n) {
    std::vector<std::uint32_t> degree(n, 0);
    for (const Pair& p : pairs) ++degree[p.a], ++degree[p.b];
    return BodyId(std::max_element(degree.begin(), degree.end()) - degree.begin());
}

template <int D>
void run_focus(const std::string& algorithm) {
    // Past a lowered keep-all bound, so the whole recording stays small enough to compare.
    BallisticMotion<D> motion(make_scene<D>("powerlaw", 1200, 9), 0.5f, 9);
    const PairList ref = testing::reference_pairs<D>(motion.boxes(), motion.is_static());
    const BodyId focus = busiest<D>(ref, motion.boxes().size());
    WatchLimits<D> all;
    all.keep_all_up_to = 1 << 30;
    all.max_events = std::size_t(1) << 30;
    WatchLimits<D> focused;
    focused.keep_all_up_to = 500;
    focused.focus = focus;
    ASSERT_LT(focused.keep_all_up_to, motion.boxes().size());
    WatchRecorder<D> whole(motion.boxes(), all), part(motion.boxes(), focused);
    auto a = make_broadphase<D>(algorithm), b = make_broadphase<D>(algorithm);
    PairList out_a, out_b;
    ASSERT_TRUE(record_update<D>(*a, motion.boxes(), motion.is_static(), out_a, whole));
    ASSERT_TRUE(record_update<D>(*b, motion.boxes(), motion.is_static(), out_b, part));
    const WatchRecord<D>& w = whole.record();
    const WatchRecord<D>& p = part.record();
    EXPECT_FALSE(p.everything);
    EXPECT_EQ(p.focus, focus);
    EXPECT_LT(p.events.size(), w.events.size()) << "the focus kept everything";
    // Counts of every event made are the same; the focused one keeps fewer.
    EXPECT_EQ(p.made, w.made);
    EXPECT_EQ(sorted(p.emitted), sorted(w.emitted));
    // Every event of the whole recording that names the focus is in the focused one, in order.
    std::size_t at = 0;
    std::size_t touching = 0;
    for (const WatchEvent<D>& e : w.events) {
        if (e.a != focus && e.b != focus) continue;
        ++touching;
        while (at < p.events.size() &&
               !(p.events[at].step == e.step && p.events[at].a == e.a && p.events[at].b == e.b))
            ++at;
        ASSERT_LT(at, p.events.size())
            << "a " << step_name(e.step) << " of " << e.a << " and " << e.b << " is missing";
        ++at;
    }
    EXPECT_GT(touching, 0u) << "body " << focus << " has no events of its own";
}

TEST_P(Recording, FocusAtLargeNKeepsEveryEventOfTheFocusBody) {
    if (GetParam().dim == 2) {
        run_focus<2>(GetParam().algorithm);
    } else {
        run_focus<3>(GetParam().algorithm);
    }
}

INSTANTIATE_TEST_SUITE_P(Registry, Recording, ::testing::ValuesIn(cpu_cases()), case_name);

// A GPU row says it does not record, and why; record_update gives nothing. (A build
// without the GPU library has no GPU rows; the release build, which CI runs, has them.)
TEST(Recording, GpuRowsSayWhyTheyDoNotRecord) {
    for (const BroadPhaseEntry& e : gpu_broadphases()) {
        SKIP_WITHOUT_GPU(std::string(e.name));
        auto bp = make_any_broadphase<2>(e.name);
        ASSERT_TRUE(bp) << e.name;
        EXPECT_FALSE(view_of(*bp).why_not_recorded().empty()) << e.name;
        const std::vector<Aabb<2>> boxes = {Aabb<2>::around({0, 0}, 1), Aabb<2>::around({1, 0}, 1)};
        const std::vector<std::uint8_t> still(2, 0);
        WatchRecorder<2> recorder(boxes, WatchLimits<2>{});
        PairList out;
        EXPECT_FALSE(record_update<2>(*bp, boxes, still, out, recorder)) << e.name;
        EXPECT_TRUE(recorder.record().events.empty()) << e.name;
    }
}

}  // namespace watch_test
}  // namespace collide
