// The cost heat map's counters (BroadPhase::set_cost_tracking / body_costs): switching them
// on must not change the pairs, the costs must account for the candidate tests, and they
// must show what they are for: the quadtree's work piles up on the centre-line bodies.
#include <iostream>
#include <numeric>
#include <set>

#include <gtest/gtest.h>

#include "collide/registry.hpp"
#include "test_support.hpp"
#include "tooling/ballistic.hpp"
#include "tooling/scenes.hpp"

namespace collide {
namespace {

// The algorithms the heat map must cover; the others may say they cannot attribute.
const std::set<std::string_view> kMustAttribute = {
    "brute-force", "sort-and-sweep",    "quadtree",    "octree",       "loose-tree",
    "enneatree",   "dynamic-aabb-tree", "sorted-grid", "spatial-hash", "morton-cells"};
// Whose candidate tests include tests of a body against tree nodes (counted for that body
// alone) and of node against node (counted for no body), so their costs sum to less than
// twice the tests. Every other algorithm counts only body-body tests, each for both bodies.
const std::set<std::string_view> kCountsNodeTests = {"dynamic-aabb-tree", "auto"};

using Param = std::pair<std::string, int>;

std::vector<Param> algorithms_and_dims() {
    std::vector<Param> out;
    for (const BroadPhaseEntry& e : broadphases()) {
        for (int dim : {2, 3}) {
            if (e.supports(dim)) out.emplace_back(std::string(e.name), dim);
        }
    }
    return out;
}

template <int D>
void check_costs(const std::string& algorithm) {
    BallisticMotion<D> motion(make_scene<D>("powerlaw", 1500, 7), 0.5f, 7);
    auto tracked = make_broadphase<D>(algorithm);
    auto plain = make_broadphase<D>(algorithm);
    tracked->set_cost_tracking(true);
    const std::size_t n = motion.boxes().size();
    std::vector<std::uint32_t> costs(n);
    ASSERT_FALSE(plain->body_costs(costs)) << "costs without tracking";
    PairList got, want;
    for (int frame = 0; frame < 3; ++frame) {
        tracked->update(motion.boxes(), motion.is_static(), got);
        plain->update(motion.boxes(), motion.is_static(), want);
        const PairList ref = testing::reference_pairs<D>(motion.boxes(), motion.is_static());
        ASSERT_FALSE(pair_set_difference(got, ref)) << "tracked, frame " << frame;
        ASSERT_FALSE(pair_set_difference(want, ref)) << "plain, frame " << frame;
        motion.advance();
        if (!tracked->body_costs(costs)) {
            ASSERT_FALSE(kMustAttribute.contains(algorithm)) << "no costs";
            GTEST_SKIP() << algorithm << " cannot attribute its work";
        }
        // Every reported pair was a candidate test of both its bodies.
        std::vector<std::uint32_t> degree(n, 0);
        for (const Pair& p : ref) ++degree[p.a], ++degree[p.b];
        for (std::size_t i = 0; i < n; ++i)
            ASSERT_GE(costs[i], degree[i]) << "body " << i << ", frame " << frame;
        const std::uint64_t sum = std::accumulate(costs.begin(), costs.end(), std::uint64_t{0});
        const std::uint64_t tests = tracked->stats().candidate_tests;
        if (kCountsNodeTests.contains(algorithm)) {
            EXPECT_LE(sum, 2 * tests) << "frame " << frame;
        } else {
            EXPECT_EQ(sum, 2 * tests) << "frame " << frame;
        }
    }
}

class Costs : public ::testing::TestWithParam<Param> {};

TEST_P(Costs, TrackingKeepsPairsAndCostsAccountForTests) {
    if (GetParam().second == 2) {
        check_costs<2>(GetParam().first);
    } else {
        check_costs<3>(GetParam().first);
    }
}

INSTANTIATE_TEST_SUITE_P(Registry, Costs, ::testing::ValuesIn(algorithms_and_dims()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                             std::string name =
                                 info.param.first + "_" + std::to_string(info.param.second) + "d";
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

// Mean cost of the bodies that straddle the centre lines of `centerline` and of the others.
struct CentreLineMeans {
    double on_line = 0, others = 0;
};

CentreLineMeans centre_line_means(const std::string& algorithm) {
    const Scene<2> scene = make_scene<2>("centerline", 3000, 3);
    BallisticMotion<2> motion(scene, 0.2f, 3);
    auto bp = make_broadphase<2>(algorithm);
    bp->set_cost_tracking(true);
    PairList pairs;
    bp->update(motion.boxes(), motion.is_static(), pairs);
    std::vector<std::uint32_t> costs(motion.boxes().size());
    EXPECT_TRUE(bp->body_costs(costs)) << algorithm;
    const Vec<2> mid = scene.settings.bounds.center();  // where the scene puts its lines
    double sum[2] = {0, 0};
    std::size_t count[2] = {0, 0};
    for (std::size_t i = 0; i < costs.size(); ++i) {
        const Aabb<2>& b = motion.boxes()[i];
        const bool on_line =
            (b.lo.x <= mid.x && mid.x <= b.hi.x) || (b.lo.y <= mid.y && mid.y <= b.hi.y);
        sum[on_line] += costs[i];
        ++count[on_line];
    }
    EXPECT_GT(count[1], 1000u);  // the scene puts 80% of its bodies on the lines
    EXPECT_GT(count[0], 100u);
    const CentreLineMeans m{sum[1] / std::max<std::size_t>(count[1], 1),
                            sum[0] / std::max<std::size_t>(count[0], 1)};
    std::cout << algorithm << ": " << count[1] << " centre-line bodies, mean cost " << m.on_line
              << "; " << count[0] << " others, mean " << m.others << "\n";
    return m;
}

// The quadtree keeps a body straddling a split line in the node above the line, where it is
// tested against every body below: on `centerline` those bodies cost the most. The
// enneatree, built against that failure, spends far less on them.
TEST(Costs, QuadtreeCentreLineBodiesCostMore) {
    const CentreLineMeans quadtree = centre_line_means("quadtree");
    EXPECT_GT(quadtree.on_line, 1.5 * quadtree.others);
    const CentreLineMeans enneatree = centre_line_means("enneatree");
    EXPECT_LT(10 * enneatree.on_line, quadtree.on_line);
}

}  // namespace
}  // namespace collide
