// Core value types shared by every module: vectors, boxes, body ids and pairs.
// Everything is templated on the dimension D (2 = circles, 3 = spheres).
#pragma once

#include <algorithm>
#include <compare>
#include <cstdint>
#include <limits>
#include <vector>

#include <glm/glm.hpp>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace collide {

template <int D>
using Vec = glm::vec<D, float, glm::defaultp>;

using BodyId = std::uint32_t;
inline constexpr BodyId kNoBody = std::numeric_limits<BodyId>::max();

// Axis-aligned box with closed intervals: boxes that only touch do overlap.
template <int D>
struct Aabb {
    Vec<D> lo{0.0f};
    Vec<D> hi{0.0f};

    // Every axis without an early exit, and always inlined: in the trees' descents the
    // outcome is a coin toss, and a mispredicted branch or a call costs more than the tests.
    // With SSE all axes are one comparison: from plain code GCC still branches on the last
    // axis, and where bodies drift apart along it (a fat pair of the dynamic tree on
    // `centerline`) that branch goes either way. NaN compares false either way: not apart.
    [[gnu::always_inline]] bool overlaps(const Aabb& o) const {
#if defined(__SSE2__)
        if constexpr (D == 2) {
            static_assert(sizeof(Aabb) == 16);
            const __m128 a = _mm_loadu_ps(&lo[0]), b = _mm_loadu_ps(&o.lo[0]);
            // [a.lo, b.lo] > [b.hi, a.hi], lane by lane
            return _mm_movemask_ps(_mm_cmpgt_ps(_mm_movelh_ps(a, b), _mm_movehl_ps(a, b))) == 0;
        } else if constexpr (D == 3) {
            static_assert(sizeof(Aabb) == 24);
            // Lanes 0-2 of each: the low corner, and the high corner from the upper 16 bytes.
            const __m128 a_lo = _mm_loadu_ps(&lo[0]), b_lo = _mm_loadu_ps(&o.lo[0]);
            const __m128 a_up = _mm_loadu_ps(&lo[2]), b_up = _mm_loadu_ps(&o.lo[2]);
            const __m128 a_hi = _mm_shuffle_ps(a_up, a_up, _MM_SHUFFLE(3, 3, 2, 1));
            const __m128 b_hi = _mm_shuffle_ps(b_up, b_up, _MM_SHUFFLE(3, 3, 2, 1));
            const __m128 apart = _mm_or_ps(_mm_cmpgt_ps(a_lo, b_hi), _mm_cmpgt_ps(b_lo, a_hi));
            return (_mm_movemask_ps(apart) & 7) == 0;
        }
#endif
        unsigned apart = 0;  // bits, not bools: `|` on bools draws clang's warning
        for (int k = 0; k < D; ++k) apart |= unsigned(lo[k] > o.hi[k]) | unsigned(o.lo[k] > hi[k]);
        return apart == 0;
    }
    bool contains(const Vec<D>& p) const {
        for (int k = 0; k < D; ++k) {
            if (p[k] < lo[k] || p[k] > hi[k]) return false;
        }
        return true;
    }
    Vec<D> size() const { return hi - lo; }
    float largest_side() const {
        float e = hi[0] - lo[0];
        for (int k = 1; k < D; ++k) e = std::max(e, hi[k] - lo[k]);
        return e;
    }
    Vec<D> center() const { return (lo + hi) * 0.5f; }
    void grow(const Aabb& o) {
        lo = glm::min(lo, o.lo);
        hi = glm::max(hi, o.hi);
    }
    static Aabb around(const Vec<D>& c, float r) { return {c - Vec<D>(r), c + Vec<D>(r)}; }
    // The identity for grow(): empty until something is added.
    static Aabb empty() {
        constexpr float inf = std::numeric_limits<float>::infinity();
        return {Vec<D>(inf), Vec<D>(-inf)};
    }
};

// A candidate pair, always with a < b.
struct Pair {
    BodyId a = 0;
    BodyId b = 0;
    friend auto operator<=>(const Pair&, const Pair&) = default;
    std::uint64_t key() const { return (std::uint64_t{a} << 32) | b; }
};

inline Pair make_pair(BodyId i, BodyId j) {
    return i < j ? Pair{i, j} : Pair{j, i};
}

using PairList = std::vector<Pair>;

}  // namespace collide
