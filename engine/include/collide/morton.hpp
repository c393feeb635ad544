// Morton (Z-order) codes: the bits of integer coordinates interleaved, x in the lowest bit,
// then y (then z). 2D codes take 2 x 32 bits, 3D codes 3 x 21 bits, both in 64 bits.
// Three encoders give the same codes: a lookup table (the method of seed 000), magic-bit
// shifts, and BMI2 `pdep` where the CPU has it. `encode` picks the one the micro-benchmark
// (bench/micro.cpp) measured fastest; the others stay for the comparison.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>

#include "collide/core.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace collide::morton {

template <int D>
using Coords = std::array<std::uint32_t, D>;

// Bits per coordinate, and the largest coordinate.
template <int D>
inline constexpr int kBits = D == 2 ? 32 : 21;
template <int D>
inline constexpr std::uint32_t kMaxCoord = D == 2 ? 0xffffffffu : (1u << 21) - 1;

// Magic bits: spread a coordinate with shifts and masks, in log2(bits) steps.
inline std::uint64_t spread2_magic(std::uint32_t v) {
    std::uint64_t x = v;
    x = (x | (x << 16)) & 0x0000ffff0000ffffull;
    x = (x | (x << 8)) & 0x00ff00ff00ff00ffull;
    x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0full;
    x = (x | (x << 2)) & 0x3333333333333333ull;
    x = (x | (x << 1)) & 0x5555555555555555ull;
    return x;
}

inline std::uint64_t spread3_magic(std::uint32_t v) {
    std::uint64_t x = v & kMaxCoord<3>;
    x = (x | (x << 32)) & 0x001f00000000ffffull;
    x = (x | (x << 16)) & 0x001f0000ff0000ffull;
    x = (x | (x << 8)) & 0x100f00f00f00f00full;
    x = (x | (x << 4)) & 0x10c30c30c30c30c3ull;
    x = (x | (x << 2)) & 0x1249249249249249ull;
    return x;
}

inline std::uint32_t compact2_magic(std::uint64_t x) {
    x &= 0x5555555555555555ull;
    x = (x | (x >> 1)) & 0x3333333333333333ull;
    x = (x | (x >> 2)) & 0x0f0f0f0f0f0f0f0full;
    x = (x | (x >> 4)) & 0x00ff00ff00ff00ffull;
    x = (x | (x >> 8)) & 0x0000ffff0000ffffull;
    x = (x | (x >> 16)) & 0x00000000ffffffffull;
    return static_cast<std::uint32_t>(x);
}

inline std::uint32_t compact3_magic(std::uint64_t x) {
    x &= 0x1249249249249249ull;
    x = (x | (x >> 2)) & 0x10c30c30c30c30c3ull;
    x = (x | (x >> 4)) & 0x100f00f00f00f00full;
    x = (x | (x >> 8)) & 0x001f0000ff0000ffull;
    x = (x | (x >> 16)) & 0x001f00000000ffffull;
    x = (x | (x >> 32)) & 0x00000000001fffffull;
    return static_cast<std::uint32_t>(x);
}

inline std::uint64_t encode_magic(const Coords<2>& c) {
    return spread2_magic(c[0]) | (spread2_magic(c[1]) << 1);
}
inline std::uint64_t encode_magic(const Coords<3>& c) {
    return spread3_magic(c[0]) | (spread3_magic(c[1]) << 1) | (spread3_magic(c[2]) << 2);
}

// Lookup table: each byte of a coordinate spread by a 256-entry table, as seed 000 does
// with its 2048-entry one.
std::uint64_t encode_lut(const Coords<2>& c);
std::uint64_t encode_lut(const Coords<3>& c);

// BMI2 pdep: one instruction per coordinate. Call only when has_bmi2().
bool has_bmi2();
extern const bool kHasBmi2;  // has_bmi2(), read once at start-up
std::uint64_t encode_pdep(const Coords<2>& c);
std::uint64_t encode_pdep(const Coords<3>& c);

// pdep where the CPU has it (fastest in the micro-benchmark even as an out-of-line call:
// 1.0 G codes/s against 0.7 for magic bits in 2D, 0.9 against 0.34 in 3D), else magic bits.
template <int D>
inline std::uint64_t encode(const Coords<D>& c) {
    return kHasBmi2 ? encode_pdep(c) : encode_magic(c);
}

template <int D>
inline Coords<D> decode(std::uint64_t code) {
    if constexpr (D == 2) {
        return {compact2_magic(code), compact2_magic(code >> 1)};
    } else {
        return {compact3_magic(code), compact3_magic(code >> 1), compact3_magic(code >> 2)};
    }
}

// Number of code bits a cell of `level` spans (cells at level L have sides of 2^L), and
// the mask of those bits; at the top 2D level that is all 64.
template <int D>
inline std::uint64_t level_mask(int level) {
    const int bits = level * D;
    return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

// The code bits of axis k (x = 0), and every code bit in use (3D codes leave the top bit 0).
template <int D>
inline constexpr std::uint64_t axis_bits(int k) {
    return (D == 2 ? 0x5555555555555555ull : 0x1249249249249249ull) << k;
}
template <int D>
inline constexpr std::uint64_t kCodeBits = D == 2 ? ~std::uint64_t{0}
                                                  : (std::uint64_t{1} << 63) - 1;

// Whether code z lies in the box whose corners have codes zmin and zmax: the bits of one
// axis, masked out of a code, compare as that axis's coordinate does.
template <int D>
inline bool in_box(std::uint64_t z, std::uint64_t zmin, std::uint64_t zmax) {
    for (int k = 0; k < D; ++k) {
        const std::uint64_t m = axis_bits<D>(k);
        if ((z & m) < (zmin & m) || (z & m) > (zmax & m)) return false;
    }
    return true;
}

// The code of point `code` moved down by `by` on every axis, stopping at 0, where `by` is
// itself a code (each axis's amount in that axis's bits). One axis's bits of a code compare
// and subtract as its coordinate does, the borrows crossing the other axes' bits, which are
// 0 in both: no decode, no encode.
template <int D>
inline std::uint64_t lowered(std::uint64_t code, std::uint64_t by) {
    std::uint64_t out = 0;
    for (int k = 0; k < D; ++k) {
        const std::uint64_t m = axis_bits<D>(k);
        const std::uint64_t a = code & m, b = by & m;
        out |= a > b ? (a - b) & m : 0;
    }
    return out;
}

// BIGMIN (Tropf & Herzog 1981): the smallest code >= z inside the box with corner codes
// zmin, zmax (z itself when it is inside); requires z <= zmax. The codes of a box are not
// one interval of the curve, so a scan over [zmin, zmax] that meets a code outside the box
// can jump to this one. It walks the bits down from the highest where z leaves the corners:
// where the box spans both halves of the current cell on that bit's axis (zmin has 0, zmax
// has 1), z goes into one half and the box is cut to it; the lower cut's upper half is
// remembered, since its smallest code is the answer if z turns out to lie past the lower
// half's part of the box.
template <int D>
inline std::uint64_t bigmin(std::uint64_t z, std::uint64_t zmin, std::uint64_t zmax) {
    std::uint64_t upper_half_min = zmax;
    std::uint64_t rest = ~std::uint64_t{0};  // the bits not walked yet
    while (const std::uint64_t diff = ((z ^ zmin) | (z ^ zmax)) & rest) {
        const int i = 63 - std::countl_zero(diff);
        const std::uint64_t bit = std::uint64_t{1} << i;
        const std::uint64_t below = axis_bits<D>(i % D) & (bit - 1);  // this axis, lower bits
        rest = bit - 1;
        const bool z_bit = z & bit;
        if ((zmin & bit) == (zmax & bit)) {
            // The box lies in one half on this axis, z in the other: past it (the best
            // upper half remembered so far) or before it (its smallest code).
            return z_bit ? upper_half_min : zmin;
        }
        if (z_bit) {
            zmin = (zmin | bit) & ~below;  // cut the box to its upper half
        } else {
            upper_half_min = (zmin | bit) & ~below;
            zmax = (zmax & ~bit) | below;  // cut the box to its lower half
        }
    }
    return z;
}

// LITMAX: the largest code <= z inside the box; requires z >= zmin. BIGMIN of the box
// mirrored on every axis (complementing the coordinates complements the code and reverses
// the curve).
template <int D>
inline std::uint64_t litmax(std::uint64_t z, std::uint64_t zmin, std::uint64_t zmax) {
    constexpr std::uint64_t m = kCodeBits<D>;
    return m ^ bigmin<D>(m ^ z, m ^ zmax, m ^ zmin);
}

// Maps world coordinates to the integer grid monotonically (a <= b gives q(a) <= q(b) on
// every axis), which is all the sweeps need to be exact. One scale for every axis, so
// cells are squares or cubes. Values outside the frame are clamped; NaN maps to 0.
template <int D>
struct Quantizer {
    Vec<D> origin{0.0f};
    float scale = 1.0f;  // grid units per world unit

    // A frame that holds `extent` with room to spare, so bodies can move a little before
    // the frame (and with it every code) has to change; the extent's middle is kept off
    // every level's cell boundaries.
    static Quantizer covering(const Aabb<D>& extent);
    // Where covering() puts the middle of the extent on each axis, as a share of the frame's
    // side: 7/15, whose binary digits repeat 0111, lies at least 1/15 of a cell from the cell
    // boundaries of every level.
    static constexpr float kMiddleAt = 7.0f / 15.0f;
    bool holds(const Aabb<D>& extent) const;
    // True when the frame is far larger than `extent` needs (precision is being wasted).
    bool too_loose(const Aabb<D>& extent) const;
    // Keeps the frame while it holds every box and is not too loose; otherwise moves it to
    // cover them and returns true (every code changes then).
    bool refit(std::span<const Aabb<D>> boxes);
    // The same, given the boxes' extent (a caller that measured it in parallel).
    bool refit(const Aabb<D>& extent);

    std::uint32_t axis(float v, int k) const {
        const float g = (v - origin[k]) * scale;
        if (!(g > 0.0f)) return 0;
        if (g >= static_cast<float>(kMaxCoord<D>)) return kMaxCoord<D>;
        return static_cast<std::uint32_t>(g);
    }
    Coords<D> operator()(const Vec<D>& p) const {
        Coords<D> c;
        for (int k = 0; k < D; ++k) c[k] = axis(p[k], k);
        return c;
    }
    // Both corners of a box: operator() on lo and on hi, bit for bit. In 2D with SSE2 the
    // four values go through at once, without the per-axis branches (2D powerlaw 100k at
    // speed 0.5, zorder-sweep: 3.76 -> 3.63 ms a frame); in 3D the two unaligned loads and
    // the lanes' round trip through memory measured slower than the branches (8.1 -> 8.8).
    struct Corners {
        Coords<D> lo, hi;
    };
    Corners corners(const Aabb<D>& box) const {
#if defined(__SSE2__)
        if constexpr (D == 2) return corners_sse(box);
#endif
        return {(*this)(box.lo), (*this)(box.hi)};
    }
    // World coordinate of grid coordinate g on axis k (the lower edge of that grid cell).
    float world(double g, int k) const { return origin[k] + static_cast<float>(g / scale); }

private:
#if defined(__SSE2__)
    // axis() on the four values of a 2D box, lo.x lo.y hi.x hi.y.
    Corners corners_sse(const Aabb<D>& box) const requires(D == 2) {
        const __m128 o = _mm_setr_ps(origin[0], origin[1], origin[0], origin[1]);
        __m128 g = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(&box.lo[0]), o), _mm_set1_ps(scale));
        g = _mm_max_ps(g, _mm_setzero_ps());  // NaN and below 0 give 0 (max returns its 2nd)
        // Unsigned 32-bit: lanes from 2^31 convert less 2^31 and get the top bit back; lanes
        // from 2^32 (float(kMaxCoord)) saturate.
        const __m128 top = _mm_cmpge_ps(g, _mm_set1_ps(2147483648.0f));
        const __m128 past = _mm_cmpge_ps(g, _mm_set1_ps(4294967296.0f));
        g = _mm_sub_ps(g, _mm_and_ps(top, _mm_set1_ps(2147483648.0f)));
        __m128i c = _mm_cvttps_epi32(g);
        c = _mm_xor_si128(c, _mm_and_si128(_mm_castps_si128(top), _mm_set1_epi32(INT32_MIN)));
        c = _mm_or_si128(c, _mm_castps_si128(past));
        alignas(16) std::uint32_t lanes[4];
        _mm_store_si128(reinterpret_cast<__m128i*>(lanes), c);
        return {{lanes[0], lanes[1]}, {lanes[2], lanes[3]}};
    }
#endif
};

// A code as text with the interleaved bits grouped per level ("yx yx ..." in 2D, "zyx"
// in 3D), from the top level down to `lowest_level`, eight groups per line.
template <int D>
std::string format_code(std::uint64_t code, int lowest_level = 0);

}  // namespace collide::morton
