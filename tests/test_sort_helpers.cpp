// The sweeps' sorts of nearly sorted input (broadphase/common/nearly_sorted.hpp): the
// insertion sort that gives up after a budget of moves, and the sort within a reach that
// sets aside the elements far from their place. Each against std::sort, on the shapes a frame
// gives: a few bodies moved a little, a few jumped far (one far ahead of the rest), many
// jumped, all reversed, ties, nothing.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include "broadphase/common/nearly_sorted.hpp"
#include "tooling/random.hpp"

namespace collide {
namespace {

using Keys = std::vector<std::uint32_t>;

// 0..n-1 in order, then `far` elements moved to random places and `near` swapped with a
// neighbour up to 3 places on.
Keys nearly_sorted(std::size_t n, std::size_t far, std::size_t near, std::uint64_t seed) {
    Keys v(n);
    std::iota(v.begin(), v.end(), 0u);
    Rng rng(seed);
    const auto index = [&](std::size_t below) {
        return std::min(below - 1, static_cast<std::size_t>(rng.uniform(0.0f, 1.0f) * below));
    };
    for (std::size_t k = 0; k < far && n > 1; ++k) std::swap(v[index(n)], v[index(n)]);
    for (std::size_t k = 0; k < near && n > 4; ++k) {
        const std::size_t i = index(n - 3);
        std::swap(v[i], v[i + 1 + index(3)]);
    }
    return v;
}

std::vector<Keys> shapes() {
    std::vector<Keys> out = {{}, {7}, {2, 1}, {3, 3, 1, 1, 2, 2}};
    out.push_back(nearly_sorted(5000, 0, 40, 1));     // moved a little
    out.push_back(nearly_sorted(5000, 12, 40, 2));    // a few jumped far
    out.push_back(nearly_sorted(5000, 1500, 0, 3));   // many jumped
    Keys ahead = nearly_sorted(5000, 0, 0, 4);        // the first element belongs at the end
    std::rotate(ahead.begin(), ahead.end() - 1, ahead.end());
    out.push_back(ahead);
    Keys reversed(3000);
    std::iota(reversed.rbegin(), reversed.rend(), 0u);
    out.push_back(reversed);
    Keys ties = nearly_sorted(4000, 300, 100, 5);
    for (std::uint32_t& k : ties) k /= 7;
    out.push_back(ties);
    return out;
}

TEST(SortHelpers, SortWithinReachMatchesStdSortAtEveryReach) {
    Keys aside;
    for (const std::size_t reach : {1, 2, 3, 16, 10000}) {
        for (const Keys& input : shapes()) {
            Keys want = input, got = input;
            std::sort(want.begin(), want.end());
            sort_within_reach(got, reach, aside, std::less<>());
            ASSERT_EQ(got, want) << input.size() << " keys, reach " << reach;
        }
    }
}

// Only the far jumps go aside: the one element far ahead, the one far back, a run moved
// ahead together, but not the many moved a place or three.
TEST(SortHelpers, SortWithinReachSetsAsideOnlyFarJumps) {
    Keys aside;
    Keys far = nearly_sorted(5000, 0, 40, 4);
    std::swap(far[100], far[4000]);  // one far ahead, one far back
    sort_within_reach(far, 16, aside, std::less<>());
    EXPECT_TRUE(std::is_sorted(far.begin(), far.end()));
    EXPECT_EQ(aside.size(), 3u);  // and the one kept before the far-back one
    Keys run = nearly_sorted(5000, 0, 40, 10);
    std::rotate(run.begin(), run.end() - 30, run.end());  // the last 30 moved to the front
    sort_within_reach(run, 16, aside, std::less<>());
    EXPECT_TRUE(std::is_sorted(run.begin(), run.end()));
    EXPECT_LE(aside.size(), 60u);
    Keys near = nearly_sorted(5000, 0, 400, 9);
    sort_within_reach(near, 16, aside, std::less<>());
    EXPECT_TRUE(std::is_sorted(near.begin(), near.end()));
    EXPECT_TRUE(aside.empty());
}

TEST(SortHelpers, InsertionSortSortsWithinItsBudgetAndKeepsEveryElementWhenItGivesUp) {
    for (const Keys& input : shapes()) {
        Keys want = input, got = input;
        std::sort(want.begin(), want.end());
        if (insertion_sort_within(got, 8 * got.size() + 64, std::less<>())) {
            EXPECT_EQ(got, want);
            continue;
        }
        std::sort(got.begin(), got.end());  // gave up: still a permutation of the input
        EXPECT_EQ(got, want);
    }
    // The far jumps and the reversal are over that budget: the fallback is reached.
    Keys reversed(3000);
    std::iota(reversed.rbegin(), reversed.rend(), 0u);
    EXPECT_FALSE(insertion_sort_within(reversed, 8 * reversed.size() + 64, std::less<>()));
}

// With a history, a sort whose insertion sort gave up makes the next 7 skip it, the 8th
// tries it again, and one that succeeds leaves nothing to skip; every sort is still right.
TEST(SortHelpers, HistorySkipsTheInsertionSortAfterItGaveUpAndRetriesIt) {
    Keys aside;
    SortHistory history;
    const auto sort = [&](Keys input) {
        Keys want = input;
        std::sort(want.begin(), want.end());
        sort_in_place_or_within_reach(input, 2, aside, std::less<>(), &history);
        EXPECT_EQ(input, want);
    };
    const Keys jumped = nearly_sorted(5000, 1500, 0, 3), calm = nearly_sorted(5000, 0, 40, 1);
    sort(jumped);
    EXPECT_EQ(history.skips_left, SortHistory::kSkipsAfterGivingUp);
    for (std::uint32_t k = SortHistory::kSkipsAfterGivingUp; k-- > 0;) {
        sort(calm);  // skipped: sorted within reach
        EXPECT_EQ(history.skips_left, k);
    }
    sort(calm);  // tried, and within budget
    EXPECT_EQ(history.skips_left, 0u);
    for (const Keys& input : shapes()) sort(input);
}

// The parallel path (blocks sorted between cuts, the strays merged in) against std::sort,
// with blocks of 256 so that every shape spans many, on four threads.
TEST(SortHelpers, SortFromLastOrderInBlocksMatchesStdSort) {
    std::vector<Keys> inputs = shapes();
    inputs.push_back(nearly_sorted(20000, 0, 2000, 6));  // many overlaps, none far
    inputs.push_back(nearly_sorted(20000, 3, 2000, 7));  // and a few jumps over blocks
    Keys shifted = nearly_sorted(20000, 0, 0, 8);        // a block's worth moved one block on
    std::rotate(shifted.begin() + 1000, shifted.begin() + 1256, shifted.begin() + 1600);
    inputs.push_back(shifted);
    tbb::task_arena four(4);
    four.execute([&] {
        Keys aside;
        for (const Keys& input : inputs) {
            for (const bool parallel : {false, true}) {
                for (const std::size_t moves_per_element : {0, 2, 8}) {
                    Keys want = input, got = input;
                    std::sort(want.begin(), want.end());
                    sort_from_last_order(got, moves_per_element, aside, std::less<>(), parallel,
                                         256);
                    ASSERT_EQ(got, want) << input.size() << " keys, parallel " << parallel << ", "
                                         << moves_per_element << " moves per element";
                }
            }
        }
    });
}

// The blocks sorted between cuts, directly, on four threads: every shape, with blocks of
// 1, 2, 3 and 256 (single elements, cuts taken from short windows, the last block short), a
// cut's own element jumped far, every element equal, and random input (nearly all strays).
TEST(SortHelpers, SortBlocksBetweenCutsMatchesStdSort) {
    std::vector<Keys> inputs = shapes();
    inputs.push_back(nearly_sorted(20000, 0, 2000, 11));   // strays at every cut
    inputs.push_back(nearly_sorted(20225, 40, 2000, 12));  // far jumps; the last block one long
    Keys cut_jumped = nearly_sorted(2048, 0, 0, 13);
    std::swap(cut_jumped[256], cut_jumped[1900]);  // block 1's first element belongs in block 7
    std::swap(cut_jumped[512], cut_jumped[3]);
    inputs.push_back(cut_jumped);
    inputs.push_back(Keys(3000, 3u));  // one value: every cut equal
    for (const std::uint64_t seed : {14, 15}) inputs.push_back(nearly_sorted(5000, 5000, 0, seed));
    tbb::task_arena four(4);
    four.execute([&] {
        Keys scratch;
        for (const std::size_t per_block : {1, 2, 3, 256}) {
            for (const Keys& input : inputs) {
                if (per_block < 256 && input.size() > 3000) continue;  // tasks of one element
                Keys want = input, got = input;
                std::sort(want.begin(), want.end());
                sort_blocks_between_cuts(got, 2, scratch, std::less<>(), per_block);
                ASSERT_EQ(got, want) << input.size() << " keys, blocks of " << per_block;
            }
        }
    });
}

}  // namespace
}  // namespace collide
