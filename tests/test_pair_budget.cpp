// The pair budget (issue 27): the counting sweep is exact up to its limit and stops past it;
// a world whose broad phase finds more pairs than its budget stops the step and says how many.
#include <gtest/gtest.h>

#include "collide/pair_budget.hpp"
#include "collide/registry.hpp"
#include "collide/world.hpp"
#include "test_support.hpp"
#include "tooling/ballistic.hpp"
#include "tooling/scenes.hpp"

namespace collide {
namespace {

template <int D>
void expect_counts_match(const char* scene) {
    BallisticMotion<D> motion(make_scene<D>(scene, 3000, 4), 0.5f, 4);
    const std::size_t want = testing::reference_pairs<D>(motion.boxes(), motion.is_static()).size();
    ASSERT_GT(want, 10u) << scene;
    EXPECT_EQ(count_pairs_up_to<D>(motion.boxes(), motion.is_static(), want), want) << scene;
    EXPECT_EQ(count_pairs_up_to<D>(motion.boxes(), motion.is_static(), want - 1), want) << scene;
    EXPECT_EQ(count_pairs_up_to<D>(motion.boxes(), motion.is_static(), 10), 11u) << scene;
}

TEST(PairBudget, CountIsExactUpToTheLimit) {
    for (const char* scene : {"uniform", "powerlaw", "centerline", "clusters"}) {
        expect_counts_match<2>(scene);
        expect_counts_match<3>(scene);
    }
}

// 20,000 bodies at one point: 2e8 pairs, counted only as far as the limit.
TEST(PairBudget, APileStopsTheCountAtTheLimit) {
    const std::vector<Aabb<2>> boxes(20000, Aabb<2>::around(Vec<2>(1.0f), 1.0f));
    const std::vector<std::uint8_t> is_static(boxes.size(), 0);
    EXPECT_EQ(count_pairs_up_to<2>(boxes, is_static, 1000), 1001u);
    // Static bodies never pair with each other.
    const std::vector<std::uint8_t> all_static(boxes.size(), 1);
    EXPECT_EQ(count_pairs_up_to<2>(boxes, all_static, 1000), 0u);
}

TEST(PairBudget, WorldStopsAStepOverItsBudget) {
    WorldSettings<2> s;
    s.max_pairs = 100;
    Bodies<2> bodies;
    for (int i = 0; i < 30; ++i) bodies.add(Vec<2>(50.0f), Vec<2>(0.0f), 1.0f);  // 435 pairs
    World<2> w(s, bodies, make_broadphase<2>("sort-and-sweep"));
    const Vec<2> before = w.bodies().pos[0];
    w.step();
    EXPECT_EQ(w.pairs_over_budget(), 435u);
    EXPECT_TRUE(w.pairs().empty());
    EXPECT_TRUE(w.contacts().empty());
    EXPECT_EQ(w.bodies().pos[0], before);  // nothing solved
    // Within the budget, the step runs as usual.
    w.settings().max_pairs = 1000;
    w.step();
    EXPECT_EQ(w.pairs_over_budget(), 0u);
    EXPECT_EQ(w.pairs().size(), 435u);
}

}  // namespace
}  // namespace collide
