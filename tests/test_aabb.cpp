// The box overlap test every algorithm and the brute-force reference share: its SIMD form
// checked against the definition written axis by axis, so a wrong lane or shuffle cannot
// hide behind a reference that makes the same mistake. Coordinates on a coarse lattice make
// touching faces (closed intervals: they overlap) common; NaN, infinities and -0 are mixed in.
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "collide/core.hpp"
#include "tooling/random.hpp"

namespace collide {
namespace {

// Apart only where some axis separates them strictly; a NaN separates nothing.
template <int D>
bool overlaps_by_definition(const Aabb<D>& a, const Aabb<D>& b) {
    for (int k = 0; k < D; ++k) {
        if (a.lo[k] > b.hi[k] || b.lo[k] > a.hi[k]) return false;
    }
    return true;
}

float odd_value(Rng& rng) {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    const float odd[] = {std::numeric_limits<float>::quiet_NaN(), kInf, -kInf, -0.0f, 0.0f};
    return odd[rng.next() % 5];
}

template <int D>
Aabb<D> lattice_box(Rng& rng) {
    Aabb<D> box;
    for (int k = 0; k < D; ++k) {
        const float lo = static_cast<float>(rng.next() % 8), side = static_cast<float>(rng.next() % 4);
        box.lo[k] = lo;
        box.hi[k] = lo + side;
        if (rng.next() % 16 == 0) box.lo[k] = odd_value(rng);
        if (rng.next() % 16 == 0) box.hi[k] = odd_value(rng);
    }
    return box;
}

template <int D>
void expect_overlaps_matches_definition() {
    Rng rng(11);
    std::vector<Aabb<D>> boxes;
    for (int i = 0; i < 600; ++i) boxes.push_back(lattice_box<D>(rng));
    int overlapping = 0, touching = 0;
    for (const Aabb<D>& a : boxes) {
        for (const Aabb<D>& b : boxes) {
            const bool expected = overlaps_by_definition(a, b);
            ASSERT_EQ(a.overlaps(b), expected)
                << "lo (" << a.lo[0] << ", " << a.lo[1] << ", ...) hi (" << a.hi[0] << ", "
                << a.hi[1] << ", ...) against lo (" << b.lo[0] << ", " << b.lo[1]
                << ", ...) hi (" << b.hi[0] << ", " << b.hi[1] << ", ...)";
            overlapping += expected;
            for (int k = 0; k < D; ++k) touching += expected && a.hi[k] == b.lo[k];
        }
    }
    // Both outcomes, and faces that only touch, are well represented.
    EXPECT_GT(overlapping, 20000);
    EXPECT_LT(overlapping, 340000);
    EXPECT_GT(touching, 5000);
}

TEST(Aabb, Overlaps2DMatchesTheAxisByAxisDefinition) { expect_overlaps_matches_definition<2>(); }
TEST(Aabb, Overlaps3DMatchesTheAxisByAxisDefinition) { expect_overlaps_matches_definition<3>(); }

// One axis at a time separates two otherwise equal boxes, from either side: each lane of
// the SIMD comparison is the one that decides. Moved by their side they only touch, and
// overlap.
template <int D>
void expect_each_axis_separates() {
    const Aabb<D> a{Vec<D>(0.0f), Vec<D>(2.0f)};
    for (int k = 0; k < D; ++k) {
        for (const float shift : {-3.0f, -2.0f, 3.0f, 2.0f}) {
            Aabb<D> b = a;
            b.lo[k] += shift;
            b.hi[k] += shift;
            const bool touching = std::abs(shift) == 2.0f;
            EXPECT_EQ(a.overlaps(b), touching) << "axis " << k << " shift " << shift;
            EXPECT_EQ(b.overlaps(a), touching) << "axis " << k << " shift " << shift;
        }
    }
}

TEST(Aabb, EachAxisSeparatesIn2D) { expect_each_axis_separates<2>(); }
TEST(Aabb, EachAxisSeparatesIn3D) { expect_each_axis_separates<3>(); }

}  // namespace
}  // namespace collide
