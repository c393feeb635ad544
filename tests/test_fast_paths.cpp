// The speed paths of two algorithms, checked where the registry suites may not reach them:
// the sorted grid's folded levels (bodies crowded on centre lines and planes), their region
// queries and their return to plain levels, its sort in parallel parts (only from tens
// of thousands of bodies) and its sweep during the scatter (chunks of thousands); the dynamic
// tree's margin jitter at its ends, its refits between top-down builds, and its builds and refits
// in parallel; the sorted grid's AVX2 loop against its four-lane one.
#include <initializer_list>
#include <limits>
#include <span>

#include <gtest/gtest.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "broadphase/common/aabb_tree.hpp"
#include "broadphase/dynamic_aabb_tree.hpp"
#include "broadphase/sorted_grid.hpp"
#include "collide/broadphase_view.hpp"
#include "collide/registry.hpp"
#include "test_support.hpp"
#include "tooling/ballistic.hpp"
#include "tooling/random.hpp"
#include "tooling/scenes.hpp"

namespace collide {
namespace {

using testing::reference_pairs;

template <int D>
bool any_folded(const BroadPhase<D>& bp) {
    for (const std::string& layer : view_of(bp).layers()) {
        if (layer.find("folded") != std::string::npos) return true;
    }
    return false;
}

template <int D>
std::vector<BodyId> scan(std::span<const Aabb<D>> boxes, const Aabb<D>& region) {
    std::vector<BodyId> out;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        if (boxes[i].overlaps(region)) out.push_back(BodyId(i));
    }
    return out;
}

// Centerline crowds its line bodies into the coarse cells of a plain level, so the grid folds
// that level from the second frame on; pairs and queries must stay exact while it is folded.
template <int D>
void folded_grid_is_exact() {
    BallisticMotion<D> motion(make_scene<D>("centerline", 1500, 7), 0.5f, 7);
    auto grid = make_broadphase<D>("sorted-grid");
    PairList got;
    Rng rng(11);
    bool folded = false;
    for (int frame = 0; frame < 5; ++frame) {
        grid->update(motion.boxes(), motion.is_static(), got);
        ASSERT_EQ(pair_set_difference(got, reference_pairs<D>(motion.boxes(), motion.is_static())),
                  std::nullopt)
            << "frame " << frame;
        folded = folded || any_folded(*grid);
        Aabb<D> all = Aabb<D>::empty();
        for (const Aabb<D>& b : motion.boxes()) all.grow(b);
        std::vector<BodyId> found;
        // Regions from a point to the whole world, of every aspect: small ones read a few
        // slots, long ones read rows that share slots (merged), big ones every slot once.
        for (int q = 0; q < 200; ++q) {
            const Vec<D> c = rng.in_box<D>(all.lo, all.hi);
            Vec<D> half;
            for (int k = 0; k < D; ++k) {
                half[k] = (all.hi[k] - all.lo[k]) * rng.uniform(0.0f, q < 50 ? 0.02f : 0.6f);
            }
            const Aabb<D> region{c - half, c + half};
            grid->query(region, found);
            std::sort(found.begin(), found.end());
            ASSERT_EQ(found, scan<D>(motion.boxes(), region))
                << "frame " << frame << ", query " << q;
        }
        motion.advance();
    }
    EXPECT_TRUE(folded) << "centerline never folded a level: the folded path went untested";

    // The same instance on a uniform scene: the levels go back to plain grids.
    BallisticMotion<D> spread(make_scene<D>("uniform", 2000, 3), 0.5f, 3);
    for (int frame = 0; frame < 3; ++frame) {
        grid->update(spread.boxes(), spread.is_static(), got);
        ASSERT_EQ(pair_set_difference(got, reference_pairs<D>(spread.boxes(), spread.is_static())),
                  std::nullopt)
            << "uniform frame " << frame;
        spread.advance();
    }
    EXPECT_FALSE(any_folded(*grid));
}

TEST(SortedGrid, FoldedLevelsAreExact2D) {
    folded_grid_is_exact<2>();
}
TEST(SortedGrid, FoldedLevelsAreExact3D) {
    folded_grid_is_exact<3>();
}

using ParamValues = std::initializer_list<std::pair<std::string_view, float>>;

// Sets the named tunables; how many of the names it found.
std::size_t set_params(std::span<Param> params, ParamValues values) {
    std::size_t set = 0;
    for (Param& p : params) {
        for (const auto& [name, value] : values) {
            if (std::string_view(p.name) == name) p.value = value, ++set;
        }
    }
    return set;
}

// `algorithm` with its `parallel` switch on, in an arena of four threads, must give the very
// pairs of the same algorithm with it off (itself checked against brute force on every scene
// by the registry suites), in the same order, with as many candidate tests.
template <int D>
void parallel_matches_serial(const char* algorithm, std::size_t n,
                             std::initializer_list<const char*> scenes, int frames,
                             std::string_view parallel_switch = "parallel") {
    for (const char* scene : scenes) {
        BallisticMotion<D> motion(make_scene<D>(scene, n, 9), 0.5f, 9);
        auto serial = make_broadphase<D>(algorithm);
        auto parallel = make_broadphase<D>(algorithm);
        ASSERT_EQ(set_params(serial->params(), {{parallel_switch, 0.0f}}), 1u) << algorithm;
        PairList want, got;
        for (int frame = 0; frame < frames; ++frame) {
            serial->update(motion.boxes(), motion.is_static(), want);
            tbb::task_arena(4).execute(
                [&] { parallel->update(motion.boxes(), motion.is_static(), got); });
            ASSERT_FALSE(want.empty());
            ASSERT_EQ(got, want) << scene << " frame " << frame;
            ASSERT_EQ(parallel->stats().candidate_tests, serial->stats().candidate_tests);
            motion.advance();
        }
    }
}

// From kParallelFrom bodies the sort and the level choice run in one part per thread: on
// scenes of one level, of many levels, and folded.
template <int D>
void parallel_sort_is_exact() {
    parallel_matches_serial<D>("sorted-grid", SortedGrid<D>::kParallelFrom + 1000,
                               {"uniform", "powerlaw", "centerline"}, 3);
}

// The AVX2 loop (eight boxes a test) must give the four-lane loop's pairs, in the same order,
// with as many candidate tests: on the registry's scenes, and on cells crowded past eight
// bodies (runs of 1 to 40 entries, so every partial tail), with static bodies, then a NaN.
// Where the CPU has AVX2 it must be the path the toggle takes (the body text says which).
template <int D>
void eight_lanes_match_four() {
#if defined(__x86_64__) || defined(__i386__)
    const bool avx2 = __builtin_cpu_supports("avx2");
#else
    const bool avx2 = false;
#endif
    auto four = make_broadphase<D>("sorted-grid");
    auto eight = make_broadphase<D>("sorted-grid");
    ASSERT_EQ(set_params(four->params(), {{"AVX2", 0.0f}}), 1u);
    PairList want, got;
    // Pairs of NaN boxes are not defined (run_non_finite): there, only four against eight.
    const auto compare = [&](std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> fixed,
                             const std::string& where, bool finite = true) {
        four->update(boxes, fixed, want);
        eight->update(boxes, fixed, got);
        if (finite) {
            ASSERT_EQ(pair_set_difference(want, reference_pairs<D>(boxes, fixed)), std::nullopt)
                << where;
        }
        ASSERT_EQ(got, want) << where;
        ASSERT_EQ(eight->stats().candidate_tests, four->stats().candidate_tests) << where;
    };
    for (const char* scene : {"uniform", "powerlaw", "centerline", "clusters"}) {
        BallisticMotion<D> motion(make_scene<D>(scene, 3000, 5), 0.5f, 2);
        for (int frame = 0; frame < 3; ++frame) {
            compare(motion.boxes(), motion.is_static(),
                    std::string(scene) + " frame " + std::to_string(frame));
            motion.advance();
        }
    }
    // Piles of 1..40 unit boxes jittered by 0.2, 3 apart along x, every third static.
    std::vector<Aabb<D>> boxes;
    std::vector<std::uint8_t> fixed;
    Rng rng(4);
    for (int pile = 1; pile <= 40; ++pile) {
        for (int b = 0; b < pile; ++b) {
            Vec<D> at = rng.in_box<D>(Vec<D>(-0.2f), Vec<D>(0.2f));
            at[0] += 3.0f * static_cast<float>(pile);
            boxes.push_back({at - Vec<D>(0.5f), at + Vec<D>(0.5f)});
            fixed.push_back(b % 3 == 0);
        }
    }
    compare(boxes, fixed, "piles");
    boxes[7].lo[0] = std::numeric_limits<float>::quiet_NaN();
    compare(boxes, fixed, "piles with a NaN", false);
    EXPECT_NE(view_of(*four).describe(0).find("4 boxes at a time"), std::string::npos);
    EXPECT_NE(view_of(*eight).describe(0).find(avx2 ? "8 boxes at a time" : "4 boxes at a time"),
              std::string::npos)
        << view_of(*eight).describe(0);
}

TEST(SortedGrid, EightLanesMatchFourLanes2D) {
    eight_lanes_match_four<2>();
}
TEST(SortedGrid, EightLanesMatchFourLanes3D) {
    eight_lanes_match_four<3>();
}

TEST(SortedGrid, ParallelSortIsExact2D) {
    parallel_sort_is_exact<2>();
}
TEST(SortedGrid, ParallelSortIsExact3D) {
    parallel_sort_is_exact<3>();
}

// On one thread the scatter sweeps each chunk of entries as soon as its cells are final; with
// more threads every chunk is swept after the sort. Below kParallelFrom both sort in one
// part, so they must give the same pairs in the same order, with as many tests, on scenes of
// one level, of many, crowded and folded, and most chunks must have been swept early.
template <int D>
void sweep_during_scatter_is_exact() {
    const std::size_t n = SortedGrid<D>::kParallelFrom - 10000;
    for (const char* scene : {"uniform", "clusters", "powerlaw", "centerline"}) {
        BallisticMotion<D> motion(make_scene<D>(scene, n, 4), 0.05f, 4);
        SortedGrid<D> one, four;
        PairList want, got;
        for (int frame = 0; frame < 4; ++frame) {
            // The threads are handed in as the arena: one sweeps chunks as it sorts, four not.
            tbb::task_arena(1).execute(
                [&] { one.update(motion.boxes(), motion.is_static(), got); });
            tbb::task_arena(4).execute(
                [&] { four.update(motion.boxes(), motion.is_static(), want); });
            ASSERT_FALSE(want.empty());
            ASSERT_EQ(got, want) << scene << " frame " << frame;
            ASSERT_EQ(one.stats().candidate_tests, four.stats().candidate_tests);
            ASSERT_EQ(four.chunks_swept_in_sort(), 0u);
            // From the second frame, last frame's order leaves few bodies out of place.
            if (frame > 0) {
                EXPECT_GT(2 * one.chunks_swept_in_sort(), one.chunks()) << scene;
            }
            motion.advance();
        }
    }
}

TEST(SortedGrid, SweepDuringScatterIsExact2D) {
    sweep_during_scatter_is_exact<2>();
}
TEST(SortedGrid, SweepDuringScatterIsExact3D) {
    sweep_during_scatter_is_exact<3>();
}

// The tree with its tunables set to `values` (each name must exist), over enough frames for
// bodies to leave their fat boxes several times, against brute force.
template <int D>
void tree_is_exact_with(ParamValues values) {
    for (const char* scene : {"uniform", "powerlaw"}) {
        BallisticMotion<D> motion(make_scene<D>(scene, 800, 5), 0.5f, 5);
        auto tree = make_broadphase<D>("dynamic-aabb-tree");
        ASSERT_EQ(set_params(tree->params(), values), values.size());
        PairList got;
        for (int frame = 0; frame < 10; ++frame) {
            tree->update(motion.boxes(), motion.is_static(), got);
            ASSERT_EQ(
                pair_set_difference(got, reference_pairs<D>(motion.boxes(), motion.is_static())),
                std::nullopt)
                << scene << " frame " << frame;
            motion.advance();
        }
    }
}

// Jitter 0 (every body of a size the same margin: the old waves) and 1 (margins from none to
// twice), with and without refits between builds.
TEST(DynamicAabbTree, MarginJitterAndRefitsAreExact) {
    for (const auto& [jitter, refit] : {std::pair{0.0f, 0.0f}, {1.0f, 64.0f}, {0.5f, 4.0f}}) {
        tree_is_exact_with<2>({{"margin jitter", jitter}, {"refit for K frames", refit}});
        tree_is_exact_with<3>({{"margin jitter", jitter}, {"refit for K frames", refit}});
    }
}

// The margins at the ends of their ranges: none at all (every moving body re-inserted every
// frame) and the widest (fat boxes a few average sizes across).
TEST(DynamicAabbTree, MarginsAtTheirLimitsAreExact) {
    for (const auto& [box, average] : {std::pair{0.0f, 0.0f}, {1.0f, 4.0f}, {0.0f, 2.5f}}) {
        tree_is_exact_with<2>({{"margin (box size)", box}, {"margin (average size)", average}});
        tree_is_exact_with<3>({{"margin (box size)", box}, {"margin (average size)", average}});
    }
}

// No stretch along the motion and the longest: pairs exact either way.
TEST(DynamicAabbTree, PredictionAtItsLimitsIsExact) {
    for (const float frames : {0.0f, 32.0f}) {
        tree_is_exact_with<2>({{"predict frames", frames}});
        tree_is_exact_with<3>({{"predict frames", frames}});
    }
}

// A unit box moving `step` a frame along x, alone but for a far neighbour, with a fixed
// margin of 0.1 (no jitter, no steering): its fat box once it has left the first one, less
// the box's low corner (so a box at the origin).
template <int D>
Aabb<D> fat_box_after_leaving(float step) {
    DynamicAabbTree<D> tree;
    EXPECT_EQ(set_params(tree.params(), {{"margin jitter", 0.0f},
                                         {"steer margin", 0.0f},
                                         {"margin (average size)", 0.0f},
                                         {"margin (box size)", 0.1f},
                                         {"predict frames", 8.0f}}),
              5u);
    std::vector<Aabb<D>> boxes{{Vec<D>(0.0f), Vec<D>(1.0f)}, {Vec<D>(100.0f), Vec<D>(101.0f)}};
    const std::vector<std::uint8_t> is_static(boxes.size(), 0);
    PairList got;
    tree.update(boxes, is_static, got);
    const auto reinserted = [&] {
        return tree.describe(0).find("Re-inserted this frame") != std::string::npos;
    };
    bool left = false;  // the first update inserts every body: moves count from the second
    for (int frame = 0; frame < 10 && !left; ++frame) {
        boxes[0].lo.x += step;
        boxes[0].hi.x += step;
        tree.update(boxes, is_static, got);
        left = reinserted();
    }
    EXPECT_TRUE(left);
    DebugDraw<D> draw;
    Overlays<D> which;
    which.selected = 0;
    tree.draw(draw, which);
    if (draw.boxes.empty()) {
        ADD_FAILURE() << "no fat box drawn for the selected body";
        return {};
    }
    const Aabb<D> fat = draw.boxes.back().box;  // the selected body's, drawn last
    return {fat.lo - boxes[0].lo, fat.hi - boxes[0].lo};
}

// The fat box reaches `predict frames` of the last displacement ahead of its margin, but no
// further than the body's own size plus that margin: 8 x 0.05 ahead for a slow box, 1.1
// (not 80) for one moving 10 a frame. Behind and across, the margin alone.
template <int D>
void stretch_is_capped_by_size() {
    for (const auto& [step, ahead] : {std::pair{0.05f, 0.4f}, {10.0f, 1.1f}}) {
        SCOPED_TRACE("step " + std::to_string(step));
        const Aabb<D> fat = fat_box_after_leaving<D>(step);
        EXPECT_NEAR(fat.lo.x, -0.1f, 1e-4f);
        EXPECT_NEAR(fat.hi.x, 1.1f + ahead, 1e-4f);
        for (int k = 1; k < D; ++k) {
            EXPECT_NEAR(fat.lo[k], -0.1f, 1e-4f);
            EXPECT_NEAR(fat.hi[k], 1.1f, 1e-4f);
        }
    }
}

TEST(DynamicAabbTree, StretchAlongTheMotionIsCappedByTheBodysSize) {
    stretch_is_capped_by_size<2>();
    stretch_is_capped_by_size<3>();
}

// Where the share of bodies leaving their fat boxes hovers about the bulk share, a young
// tree grows the leaves of both kinds of frame and is not built again: one-by-one
// re-insertions on the frames under the share broke the build order, and each frame over it
// then built the whole tree. 400 overlapping unit boxes in a row; 6 (over 1%) and 2 (under)
// of them jump out of their fat boxes on alternate frames; pairs exact on every frame.
template <int D>
int top_down_builds_while_the_share_hovers() {
    std::vector<Aabb<D>> boxes;
    for (int i = 0; i < 400; ++i) {
        Vec<D> lo(0.0f);
        lo[0] = 0.25f * float(i);
        boxes.push_back({lo, lo + Vec<D>(1.0f)});
    }
    const std::vector<std::uint8_t> is_static(boxes.size(), 0);
    DynamicAabbTree<D> tree;
    EXPECT_EQ(set_params(tree.params(), {{"steer margin", 0.0f}}), 1u);
    PairList got;
    tree.update(boxes, is_static, got);
    int builds = 0;
    for (int frame = 1; frame <= 12; ++frame) {
        const int jumpers = frame % 2 == 1 ? 6 : 2;
        for (int j = 0; j < jumpers; ++j) {
            Aabb<D>& b = boxes[static_cast<std::size_t>(37 * (frame * 6 + j) % 400)];
            const float dy = b.lo[1] > 0.0f ? -5.0f : 5.0f;
            b.lo[1] += dy;
            b.hi[1] += dy;
        }
        tree.update(boxes, is_static, got);
        EXPECT_EQ(pair_set_difference(got, reference_pairs<D>(boxes, is_static)), std::nullopt)
            << "frame " << frame;
        tree.validate();
        builds += tree.describe(0).find("rebuilt top-down") != std::string::npos;
    }
    return builds;
}

TEST(DynamicAabbTree, AYoungTreeGrowsWhereTheMovedShareHovers) {
    EXPECT_EQ(top_down_builds_while_the_share_hovers<2>(), 0);
    EXPECT_EQ(top_down_builds_while_the_share_hovers<3>(), 0);
}

// On more than one thread an old tree's one-by-one re-insertions run while the kept pairs
// are filtered: with no growing and no bulk builds every frame after the first re-inserts,
// and on two threads the pairs are those of one thread, in the same order, and exact.
template <int D>
void reinsertions_beside_the_filter() {
    BallisticMotion<D> motion(make_scene<D>("uniform", 5000, 8), 2.0f, 8);
    const ParamValues params = {{"refit for K frames", 0.0f},
                                {"bulk rebuild share", 1.0f},
                                {"steer margin", 0.0f},
                                {"predict frames", 0.0f}};
    DynamicAabbTree<D> one, two;
    EXPECT_EQ(set_params(one.params(), params), params.size());
    EXPECT_EQ(set_params(two.params(), params), params.size());
    tbb::task_arena arena(2);
    PairList got_one, got_two;
    std::size_t reinserted = 0;
    for (int frame = 0; frame < 8; ++frame) {
        one.update(motion.boxes(), motion.is_static(), got_one);
        arena.execute([&] { two.update(motion.boxes(), motion.is_static(), got_two); });
        EXPECT_EQ(got_two, got_one) << "frame " << frame;
        EXPECT_EQ(
            pair_set_difference(got_two, reference_pairs<D>(motion.boxes(), motion.is_static())),
            std::nullopt)
            << "frame " << frame;
        two.validate();
        if (frame > 0) {
            EXPECT_EQ(two.describe(0).find("rebuilt top-down"), std::string::npos) << frame;
            reinserted += two.stats().reinserted;
        }
        motion.advance();
    }
    EXPECT_GT(reinserted, 100u) << "the frames re-insert bodies";
}

TEST(DynamicAabbTree, ReinsertionsBesideTheFilterAreExactOnTwoThreads) {
    reinsertions_beside_the_filter<2>();
    reinsertions_beside_the_filter<3>();
}

// The steered margin moves the way that makes the work smaller: on fast 2D centerline
// bodies (re-insertions dear, the best margin several times the default) it grows, and
// from a margin of two average sizes on fast uniform bodies (far too wide) it shrinks, at
// least 2x from where it started in both. It moves on the same frames as the same tree on
// two threads (it is steered by counts, not time), and the pairs stay exact on every frame;
// unsteered, it stays put. Returns the last scale over the first.
template <int D>
float steered_margin_growth(const std::string& scene, ParamValues params) {
    BallisticMotion<D> motion(make_scene<D>(scene, 500, 6), 0.5f, 6);
    DynamicAabbTree<D> steered, unsteered, on_two;
    EXPECT_EQ(set_params(steered.params(), params), params.size());
    EXPECT_EQ(set_params(on_two.params(), params), params.size());
    EXPECT_EQ(set_params(unsteered.params(), params), params.size());
    EXPECT_EQ(set_params(unsteered.params(), {{"steer margin", 0.0f}}), 1u);
    PairList got, got_unsteered, got_on_two;
    tbb::task_arena two(2);
    float first = 0.0f;
    for (int frame = 0; frame < 90; ++frame) {
        steered.update(motion.boxes(), motion.is_static(), got);
        if (frame == 0) first = steered.margin_scale();
        unsteered.update(motion.boxes(), motion.is_static(), got_unsteered);
        two.execute([&] { on_two.update(motion.boxes(), motion.is_static(), got_on_two); });
        const auto reference = reference_pairs<D>(motion.boxes(), motion.is_static());
        EXPECT_EQ(pair_set_difference(got, reference), std::nullopt) << "frame " << frame;
        EXPECT_EQ(pair_set_difference(got_unsteered, reference), std::nullopt) << "frame " << frame;
        EXPECT_EQ(on_two.margin_scale(), steered.margin_scale()) << "frame " << frame;
        steered.validate();
        motion.advance();
    }
    EXPECT_EQ(unsteered.margin_scale(), 1.0f);
    return steered.margin_scale() / first;
}

TEST(DynamicAabbTree, SteeredMarginMovesTheCheaperWayAndStaysExact) {
    EXPECT_GT(steered_margin_growth<2>("centerline", {}), 2.0f);
    EXPECT_LT(steered_margin_growth<2>("uniform", {{"margin (average size)", 2.0f}}), 0.5f);
    EXPECT_LT(steered_margin_growth<3>("uniform", {{"margin (average size)", 2.0f}}), 0.5f);
}

// The steered margin starts at 0.4 of the median gap between Morton neighbours, in average
// sizes of 0.1 (the default), where that is more than 1 and at most the steering's limit:
// unit boxes in a row, a gap apart; far-apart powerlaw bodies start high, overlapping
// clusters at 1; unsteered, or in body order (no Morton neighbours), at 1.
template <int D>
float first_scale(float gap, ParamValues params = {}) {
    std::vector<Aabb<D>> boxes;
    for (int i = 0; i < 64; ++i) {
        Vec<D> lo(0.0f);
        lo[0] = float(i) * (1.0f + gap);
        boxes.push_back({lo, lo + Vec<D>(1.0f)});
    }
    const std::vector<std::uint8_t> is_static(boxes.size(), 0);
    DynamicAabbTree<D> tree;
    EXPECT_EQ(set_params(tree.params(), params), params.size());
    PairList got;
    tree.update(boxes, is_static, got);
    EXPECT_EQ(pair_set_difference(got, reference_pairs<D>(boxes, is_static)), std::nullopt);
    return tree.margin_scale();
}

template <int D>
float first_scale_on(const std::string& scene) {
    BallisticMotion<D> motion(make_scene<D>(scene, 2000, 6), 0.5f, 6);
    DynamicAabbTree<D> tree;
    PairList got;
    tree.update(motion.boxes(), motion.is_static(), got);
    return tree.margin_scale();
}

template <int D>
void first_margin_from_gaps() {
    EXPECT_FLOAT_EQ(first_scale<D>(1.0f), 4.0f);
    EXPECT_FLOAT_EQ(first_scale<D>(2.0f), 8.0f);
    EXPECT_FLOAT_EQ(first_scale<D>(0.1f), 1.0f);
    EXPECT_FLOAT_EQ(first_scale<D>(0.0f), 1.0f);
    EXPECT_FLOAT_EQ(first_scale<D>(100.0f), DynamicAabbTree<D>::kMaxMarginScale);
    EXPECT_FLOAT_EQ(first_scale<D>(1.0f, {{"margin (average size)", 0.2f}}), 2.0f);
    EXPECT_FLOAT_EQ(first_scale<D>(1.0f, {{"margin (average size)", 0.0f}}), 1.0f);
    EXPECT_FLOAT_EQ(first_scale<D>(1.0f, {{"steer margin", 0.0f}}), 1.0f);
    EXPECT_FLOAT_EQ(first_scale<D>(1.0f, {{"coherent order", 0.0f}}), 1.0f);
    EXPECT_GT(first_scale_on<D>("powerlaw"), 8.0f);
    EXPECT_FLOAT_EQ(first_scale_on<D>("clusters"), 1.0f);
}

TEST(DynamicAabbTree, FirstMarginIsAShareOfTheGapsBetweenNeighbours) {
    first_margin_from_gaps<2>();
    first_margin_from_gaps<3>();
}

// From tens of thousands of bodies the tree's top-down builds and refits split into oneTBB
// tasks, into the slots a serial build uses.
TEST(DynamicAabbTree, ParallelBuildsAndRefitsMatchSerial) {
    parallel_matches_serial<2>("dynamic-aabb-tree", 40000, {"uniform", "powerlaw"}, 4);
    parallel_matches_serial<3>("dynamic-aabb-tree", 40000, {"uniform", "powerlaw"}, 4);
}

// grow_leaf, between refits: a tenth of the leaves get new boxes and grow their ancestors,
// on one thread and on four at once (compare-and-swap). Every node then holds its children
// (the check a loose tree keeps), the two trees are the same node for node, and a tree grown
// but not marked loose fails the tightness check (so the check can fail).
template <int D>
void grown_trees_match() {
    Rng rng(11);
    const std::uint32_t n = 6000;
    std::vector<Aabb<D>> boxes(n);
    std::vector<std::uint64_t> entries(n);
    std::vector<std::int32_t> leaf_of(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        const Vec<D> c = rng.in_box<D>(Vec<D>(0.0f), Vec<D>(100.0f));
        boxes[i] = {c - Vec<D>(0.5f), c + Vec<D>(0.5f)};
        entries[i] = i;  // code 0 above proxy i: sorted, as build() wants
    }
    AabbTree<D> serial;
    serial.build(entries, 0x1fff, boxes, leaf_of, false);
    AabbTree<D> shared = serial;
    std::vector<std::uint32_t> moved;
    for (std::uint32_t i = 0; i < n; i += 10) {
        moved.push_back(i);
        const Vec<D> step = rng.in_box<D>(Vec<D>(-3.0f), Vec<D>(3.0f));
        boxes[i] = {boxes[i].lo + step, boxes[i].hi + step};
    }
    for (const std::uint32_t p : moved) serial.template grow_leaf<false>(leaf_of[p], boxes[p]);
    tbb::task_arena(4).execute([&] {
        tbb::parallel_for(std::size_t{0}, moved.size(), [&](std::size_t k) {
            shared.template grow_leaf<true>(leaf_of[moved[k]], boxes[moved[k]]);
        });
    });
    std::size_t leaves = 0;
    const auto tight = serial.broken(leaves);
    ASSERT_TRUE(tight.has_value());
    EXPECT_NE(tight->find("looser"), std::string::npos) << *tight;
    serial.mark_loose();
    shared.mark_loose();
    EXPECT_EQ(serial.broken(leaves), std::nullopt);
    EXPECT_EQ(leaves, n);
    EXPECT_EQ(shared.broken(leaves), std::nullopt);
    ASSERT_EQ(shared.slots(), serial.slots());
    for (std::size_t i = 0; i < serial.slots(); ++i) {
        const auto node = static_cast<std::int32_t>(i);
        ASSERT_TRUE(same_box(serial.node(node).box, shared.node(node).box)) << "node " << i;
    }
    // A build makes it tight again.
    serial.build(entries, 0x1fff, boxes, leaf_of, false);
    EXPECT_FALSE(serial.loose());
    EXPECT_EQ(serial.broken(leaves), std::nullopt);
}

TEST(DynamicAabbTree, GrownLeavesMatchOnAnyThreadsAndHoldEveryLeaf) {
    grown_trees_match<2>();
    grown_trees_match<3>();
}

// Bodies that jump far (a third of them moved anywhere, as a drag or a reset would) are more
// than zorder-sweep's insertion sort will move: the sort that sets the far ones aside takes
// over, and the pairs stay exact.
template <int D>
void zorder_jumps_are_exact() {
    BallisticMotion<D> motion(make_scene<D>("uniform", 3000, 4), 0.5f, 4);
    auto sweep = make_broadphase<D>("zorder-sweep");
    PairList got;
    sweep->update(motion.boxes(), motion.is_static(), got);
    std::vector<Aabb<D>> boxes(motion.boxes().begin(), motion.boxes().end());
    for (std::size_t i = 0; i < boxes.size(); i += 3)
        std::swap(boxes[i], boxes[boxes.size() - 1 - i / 2]);
    for (int frame = 0; frame < 2; ++frame) {
        sweep->update(boxes, motion.is_static(), got);
        ASSERT_FALSE(pair_set_difference(got, reference_pairs<D>(boxes, motion.is_static())))
            << "frame " << frame;
        std::reverse(boxes.begin(), boxes.begin() + static_cast<std::ptrdiff_t>(boxes.size() / 2));
    }
}

TEST(ZOrderSweep, FarJumpsAreExact) {
    zorder_jumps_are_exact<2>();
    zorder_jumps_are_exact<3>();
}

// From two blocks of kSortBlock entries on, the sort from last frame's order runs in blocks on
// several threads (at speed 0.5 some bodies cross blocks): the same order, so the same pairs,
// as the serial sort.
TEST(ZOrderSweep, BlockSortMatchesSerial) {
    parallel_matches_serial<2>("zorder-sweep", 40000, {"uniform", "powerlaw"}, 4, "parallel sort");
    parallel_matches_serial<3>("zorder-sweep", 40000, {"uniform", "powerlaw"}, 4, "parallel sort");
}

}  // namespace
}  // namespace collide
