// Morton codes: the three encoders agree, decode inverts them, codes are monotone in every
// coordinate (what the Z-order sweeps rely on), and the quantizer keeps order.
#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "collide/morton.hpp"
#include "tooling/random.hpp"

namespace collide::morton {
namespace {

template <int D>
Coords<D> random_coords(Rng& rng) {
    Coords<D> c;
    for (int k = 0; k < D; ++k) {
        c[k] = static_cast<std::uint32_t>(rng.next()) & kMaxCoord<D>;
    }
    return c;
}

template <int D>
std::vector<Coords<D>> sample_coords() {
    Rng rng(5);
    std::vector<Coords<D>> out = {Coords<D>{}, [] {
                                      Coords<D> c;
                                      c.fill(kMaxCoord<D>);
                                      return c;
                                  }()};
    for (int i = 0; i < 20000; ++i) out.push_back(random_coords<D>(rng));
    return out;
}

template <int D>
void expect_encoders_agree() {
    for (const Coords<D>& c : sample_coords<D>()) {
        const std::uint64_t code = encode_magic(c);
        ASSERT_EQ(encode_lut(c), code);
        if (has_bmi2()) {
            ASSERT_EQ(encode_pdep(c), code);
        }
        ASSERT_EQ(encode<D>(c), code);
        ASSERT_EQ(decode<D>(code), c);
    }
}

TEST(Morton, EncodersAgreeAndDecodeInverts2D) { expect_encoders_agree<2>(); }
TEST(Morton, EncodersAgreeAndDecodeInverts3D) { expect_encoders_agree<3>(); }

// Lowering a code by a code equals decoding, subtracting per axis (stopping at 0) and
// encoding: on random pairs, on amounts near each coordinate (borrows across every bit), and
// at the grid's edges.
template <int D>
void expect_lowered_matches_coordinates() {
    Rng rng(11);
    const std::vector<Coords<D>> points = sample_coords<D>();
    for (std::size_t i = 0; i < points.size(); ++i) {
        const Coords<D>& c = points[i];
        std::vector<Coords<D>> amounts = {points[(i * 7919 + 1) % points.size()], c, Coords<D>{}};
        Coords<D> near = c, small{};
        for (int k = 0; k < D; ++k) {
            near[k] = c[k] + 1 - static_cast<std::uint32_t>(rng.next() % 3);  // c - 1 .. c + 1
            near[k] &= kMaxCoord<D>;
            small[k] = static_cast<std::uint32_t>(rng.next() % 1024);
        }
        amounts.push_back(near);
        amounts.push_back(small);
        for (const Coords<D>& by : amounts) {
            Coords<D> expected;
            for (int k = 0; k < D; ++k) expected[k] = c[k] > by[k] ? c[k] - by[k] : 0;
            ASSERT_EQ(lowered<D>(encode_magic(c), encode_magic(by)), encode_magic(expected))
                << "point " << i;
        }
    }
}

TEST(Morton, LoweredCodeMatchesCoordinates2D) {
    expect_lowered_matches_coordinates<2>();
}
TEST(Morton, LoweredCodeMatchesCoordinates3D) {
    expect_lowered_matches_coordinates<3>();
}

TEST(Morton, BitLayoutIsXLowest) {
    EXPECT_EQ(encode<2>({1, 0}), 0b01u);
    EXPECT_EQ(encode<2>({0, 1}), 0b10u);
    EXPECT_EQ(encode<2>({2, 3}), 0b1110u);
    EXPECT_EQ(encode<2>({0xffffffffu, 0xffffffffu}), ~std::uint64_t{0});
    EXPECT_EQ(encode<3>({1, 0, 0}), 0b001u);
    EXPECT_EQ(encode<3>({0, 1, 0}), 0b010u);
    EXPECT_EQ(encode<3>({0, 0, 1}), 0b100u);
    EXPECT_EQ(encode<3>({kMaxCoord<3>, kMaxCoord<3>, kMaxCoord<3>}), (std::uint64_t{1} << 63) - 1);
}

template <int D>
void expect_monotone() {
    Rng rng(9);
    for (int i = 0; i < 20000; ++i) {
        const Coords<D> a = random_coords<D>(rng);
        Coords<D> b = a;
        for (int k = 0; k < D; ++k) {
            const std::uint32_t room = kMaxCoord<D> - a[k];
            b[k] += room == 0 ? 0 : static_cast<std::uint32_t>(rng.next() % (room + 1ull)) >>
                                        (rng.next() % 32);
        }
        ASSERT_LE(encode<D>(a), encode<D>(b));
    }
}

TEST(Morton, CodesAreMonotoneInEveryCoordinate) {
    expect_monotone<2>();
    expect_monotone<3>();
}

TEST(Morton, LevelMaskCoversTheCell) {
    EXPECT_EQ(level_mask<2>(0), 0u);
    EXPECT_EQ(level_mask<2>(3), 0x3fu);
    EXPECT_EQ(level_mask<2>(32), ~std::uint64_t{0});
    EXPECT_EQ(level_mask<3>(2), 0x3fu);
    EXPECT_EQ(level_mask<3>(21), (std::uint64_t{1} << 63) - 1);
}

TEST(Morton, FormatGroupsBitsPerLevelTopDown) {
    // (x, y) = (2, 3) << 30: level 31 holds y=1 x=1, level 30 holds y=1 x=0.
    EXPECT_EQ(format_code<2>(encode<2>({2u << 30, 3u << 30}), 30), "11 10");
    EXPECT_EQ(format_code<3>(encode<3>({1u << 20, 0, 1u << 20}), 19), "101 000");
    const std::string full = format_code<2>(0);
    EXPECT_EQ(std::count(full.begin(), full.end(), '\n'), 3);  // 32 groups, 8 per line
}

TEST(Morton, QuantizerKeepsOrderAndClamps) {
    Aabb<2> extent{{-10.0f, 5.0f}, {30.0f, 9.0f}};
    Quantizer<2> q = Quantizer<2>::covering(extent);
    EXPECT_TRUE(q.holds(extent));
    EXPECT_FALSE(q.too_loose(extent));
    Rng rng(3);
    for (int i = 0; i < 10000; ++i) {
        const float a = rng.uniform(-100.0f, 100.0f);
        const float b = a + rng.uniform(0.0f, 1.0f) * rng.uniform(0.0f, 1.0f);
        ASSERT_LE(q.axis(a, 0), q.axis(b, 0)) << a << " " << b;
    }
    EXPECT_EQ(q.axis(-1e30f, 0), 0u);
    EXPECT_EQ(q.axis(1e30f, 0), kMaxCoord<2>);
    EXPECT_EQ(q.axis(std::nanf(""), 0), 0u);
    // A frame far too large for what it holds is refitted.
    std::vector<Aabb<2>> small = {{{0.0f, 0.0f}, {0.001f, 0.001f}}};
    EXPECT_TRUE(q.refit(small));
    EXPECT_FALSE(q.refit(small));
}

// covering() keeps the middle of the extent on every axis off the frame's cell boundaries
// at every level down to cells of 2^(kBits - 12) grid units: a centred frame put it on the
// top split, where the bodies on a symmetric world's centre lines span half the codes. It
// also leaves a fifth of the largest span of room on every side.
template <int D>
void expect_covering_keeps_middle_off_boundaries() {
    Rng rng(29);
    std::vector<Aabb<D>> extents = {{Vec<D>(-1.0f), Vec<D>(1.0f)}, {Vec<D>(0.0f), Vec<D>(3000.0f)}};
    for (int i = 0; i < 200; ++i) {
        Aabb<D> e;
        for (int k = 0; k < D; ++k) {
            e.lo[k] = rng.uniform(-1000.0f, 1000.0f);
            e.hi[k] = e.lo[k] + rng.uniform(0.01f, 2000.0f);
        }
        extents.push_back(e);
    }
    for (const Aabb<D>& e : extents) {
        const Quantizer<D> q = Quantizer<D>::covering(e);
        float span = 0.0f;
        for (int k = 0; k < D; ++k) span = std::max(span, e.hi[k] - e.lo[k]);
        for (int k = 0; k < D; ++k) {
            const double side = double(kMaxCoord<D>) + 1.0;
            const double middle = (0.5 * e.lo[k] + 0.5 * e.hi[k] - q.origin[k]) * q.scale;
            for (int level = 1; level <= 12; ++level) {
                const double cell = side / double(1u << level);
                const double offset = std::fmod(middle, cell);
                ASSERT_GE(std::min(offset, cell - offset), cell / 16.0)
                    << "axis " << k << ", level " << level << ": middle at " << middle / side
                    << " of the side, extent " << e.lo[k] << ".." << e.hi[k];
            }
            EXPECT_GE(q.axis(e.lo[k] - 0.19f * span, k), 1u) << "axis " << k;
            EXPECT_LT(q.axis(e.hi[k] + 0.19f * span, k), kMaxCoord<D>) << "axis " << k;
        }
    }
}

TEST(Morton, CoveringKeepsMiddleOffCellBoundaries2D) {
    expect_covering_keeps_middle_off_boundaries<2>();
}
TEST(Morton, CoveringKeepsMiddleOffCellBoundaries3D) {
    expect_covering_keeps_middle_off_boundaries<3>();
}

// corners() (SSE where there is SSE2) gives operator()'s coordinates on both corners bit
// for bit: around the unsigned 32-bit edges (2^31, 2^32 in 2D) and 2^21 - 1 (3D), below 0,
// NaN, infinities, -0 and tiny values, in a unit frame and in frames fitted to random extents.
template <int D>
void expect_corners_match_axis() {
    std::vector<float> values = {0.0f,          -0.0f,         0.5f,          1.0f,
                                 1e-45f,        -1.0f,         -1e30f,        1e30f,
                                 std::nanf(""), INFINITY,      -INFINITY,     2097150.5f,
                                 2097151.0f,    2097152.0f,    2147483520.0f, 2147483648.0f,
                                 2147483904.0f, 4294967040.0f, 4294967296.0f, 8589934592.0f};
    Rng rng(13);
    for (int i = 0; i < 2000; ++i) values.push_back(rng.uniform(-3e9f, 5e9f));
    for (int i = 0; i < 2000; ++i) values.push_back(rng.uniform(-50.0f, 150.0f));
    std::vector<Quantizer<D>> frames = {Quantizer<D>{}};  // origin 0, scale 1
    for (int i = 0; i < 8; ++i) {
        Aabb<D> extent;
        for (int k = 0; k < D; ++k) {
            extent.lo[k] = rng.uniform(-100.0f, 0.0f);
            extent.hi[k] = extent.lo[k] + rng.uniform(0.001f, 200.0f);
        }
        frames.push_back(Quantizer<D>::covering(extent));
    }
    for (const Quantizer<D>& q : frames) {
        for (std::size_t i = 0; i < values.size(); ++i) {
            Aabb<D> box;
            for (int k = 0; k < D; ++k) {
                box.lo[k] = values[(i + k) % values.size()];
                box.hi[k] = values[(i * 7 + k + 3) % values.size()];
            }
            const auto c = q.corners(box);
            ASSERT_EQ(c.lo, q(box.lo)) << "value " << i << ": " << box.lo[0];
            ASSERT_EQ(c.hi, q(box.hi)) << "value " << i << ": " << box.hi[0];
        }
    }
}

TEST(Morton, QuantizerCornersMatchAxis2D) {
    expect_corners_match_axis<2>();
}
TEST(Morton, QuantizerCornersMatchAxis3D) {
    expect_corners_match_axis<3>();
}

// Every box in a window of `side` cells per axis from `base`, and every code z of a cell in
// the window: in_box against the coordinates, BIGMIN against the smallest code in the box
// at or after z, LITMAX against the largest at or before it.
template <int D>
void expect_bigmin_litmax_match_brute_force(std::uint32_t base, std::uint32_t side) {
    struct Cell {
        std::uint64_t code;
        Coords<D> c;
    };
    std::vector<Cell> cells;
    std::uint32_t count = 1;
    for (int k = 0; k < D; ++k) count *= side;
    for (std::uint32_t i = 0; i < count; ++i) {
        Coords<D> c;
        for (std::uint32_t k = 0, rest = i; k < D; ++k, rest /= side) c[k] = base + rest % side;
        cells.push_back({encode<D>(c), c});
    }
    std::sort(cells.begin(), cells.end(),
              [](const Cell& a, const Cell& b) { return a.code < b.code; });
    for (const Cell& lo : cells) {
        for (const Cell& hi : cells) {
            bool is_box = true;
            for (int k = 0; k < D; ++k) is_box = is_box && lo.c[k] <= hi.c[k];
            if (!is_box) continue;
            const auto inside = [&](const Coords<D>& c) {
                for (int k = 0; k < D; ++k) {
                    if (c[k] < lo.c[k] || c[k] > hi.c[k]) return false;
                }
                return true;
            };
            std::uint64_t last_inside = 0;
            for (const Cell& z : cells) {
                ASSERT_EQ(in_box<D>(z.code, lo.code, hi.code), inside(z.c));
                if (inside(z.c)) last_inside = z.code;
                if (z.code >= lo.code) {
                    ASSERT_EQ(litmax<D>(z.code, lo.code, hi.code), last_inside);
                }
            }
            std::uint64_t next_inside = 0;
            for (auto z = cells.rbegin(); z != cells.rend(); ++z) {
                if (inside(z->c)) next_inside = z->code;
                if (z->code <= hi.code) {
                    ASSERT_EQ(bigmin<D>(z->code, lo.code, hi.code), next_inside);
                }
            }
        }
    }
}

TEST(Morton, BigminLitmaxMatchBruteForce2D) {
    expect_bigmin_litmax_match_brute_force<2>(0, 16);
    // Straddling the top level, where a box's code range covers half the world.
    expect_bigmin_litmax_match_brute_force<2>((1u << 31) - 6, 12);
}

TEST(Morton, BigminLitmaxMatchBruteForce3D) {
    expect_bigmin_litmax_match_brute_force<3>(0, 6);
    expect_bigmin_litmax_match_brute_force<3>((1u << 20) - 3, 6);
}

}  // namespace
}  // namespace collide::morton
