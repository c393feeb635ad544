// auto: it races its candidates on the live boxes and keeps the fastest, skips a hopeless
// challenger, races again when the body count changes, and uses brute force for a handful of
// bodies; that its pairs are exact is checked with every other registry entry.
#include <gtest/gtest.h>

#include "broadphase/auto_select.hpp"
#include "collide/registry.hpp"
#include "tooling/random.hpp"

namespace collide {
namespace {

using Auto = AutoSelect<2>;

std::vector<Aabb<2>> boxes_at(std::size_t n, float shift) {
    Rng rng(3);
    std::vector<Aabb<2>> boxes;
    for (std::size_t i = 0; i < n; ++i) {
        const Vec<2> c = rng.in_box<2>(Vec<2>(0.0f), Vec<2>(100.0f)) + Vec<2>(shift, 0.0f);
        boxes.push_back(Aabb<2>::around(c, 0.5f));
    }
    return boxes;
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
        for (int i = 0; i < Auto::kProbeFrames; ++i) {
            EXPECT_EQ(a.probes(), 0);
            a.update(boxes_at(3000, 0.01f * static_cast<float>(i)), still, pairs);
        }
        EXPECT_EQ(a.probes(), 1);
        EXPECT_EQ(a.current(), "sort-and-sweep");
        EXPECT_NE(a.status().find("measured"), std::string::npos) << a.status();
        EXPECT_NE(a.status().find("brute-force"), std::string::npos) << a.status();
    }
}

// A challenger far slower when last raced (brute force, tens of times) is not probed again
// until the next race of all, which a new body count starts at once.
TEST(Auto, SkipsTheHopelessAndRacesAgainOnANewCount) {
    Auto a(&make_broadphase<2>, {"sort-and-sweep", "brute-force"});
    PairList pairs;
    const std::vector<std::uint8_t> still(3000, 0);
    const auto boxes = boxes_at(2000, 0.0f);
    for (int i = 0; i < Auto::kProbeFrames + Auto::kFirstChallenge; ++i)
        a.update(boxes, std::span(still).first(2000), pairs);
    EXPECT_EQ(a.probes(), 1);
    EXPECT_EQ(a.current(), "sort-and-sweep");
    EXPECT_NE(a.status().find("next probe in " + std::to_string(Auto::kProbeEvery)),
              std::string::npos)
        << a.status();
    const auto more = boxes_at(3000, 0.0f);
    a.update(more, still, pairs);
    EXPECT_NE(a.status().find("racing brute-force"), std::string::npos) << a.status();
    for (int i = 1; i < Auto::kProbeFrames; ++i) a.update(more, still, pairs);
    EXPECT_EQ(a.probes(), 2);
    EXPECT_EQ(a.current(), "sort-and-sweep");
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
    EXPECT_EQ(a.current(), Auto::kCandidates[0]);  // racing the others from here
    EXPECT_NE(a.status().find("first probe running"), std::string::npos) << a.status();
}

}  // namespace
}  // namespace collide
