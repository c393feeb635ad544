// Core value types shared by every module: vectors, boxes, body ids and pairs.
// Everything is templated on the dimension D (2 = circles, 3 = spheres).
#pragma once

#include <algorithm>
#include <compare>
#include <cstdint>
#include <limits>
#include <vector>

#include <glm/glm.hpp>

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
    [[gnu::always_inline]] bool overlaps(const Aabb& o) const {
        bool apart = false;
        for (int k = 0; k < D; ++k) apart |= (lo[k] > o.hi[k]) | (o.lo[k] > hi[k]);
        return !apart;
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
