// A small deterministic random generator (splitmix64), so scenes and benches give the
// same bodies on every platform and standard library.
#pragma once

#include <cmath>
#include <cstdint>

#include "collide/core.hpp"

namespace collide {

class Rng {
public:
    explicit Rng(std::uint64_t seed)
        : state_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}

    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // Uniform in [0, 1).
    float uniform() { return static_cast<float>(next() >> 40) * 0x1.0p-24f; }
    float uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }
    // Standard normal (Box-Muller; one of the pair is dropped for simplicity).
    float normal() {
        const float u1 = 1.0f - uniform();  // (0, 1]
        const float u2 = uniform();
        return std::sqrt(-2.0f * std::log(u1)) * std::cos(6.2831853f * u2);
    }
    template <int D>
    Vec<D> in_box(const Vec<D>& lo, const Vec<D>& hi) {
        Vec<D> p;
        for (int k = 0; k < D; ++k) p[k] = uniform(lo[k], hi[k]);
        return p;
    }
    // A uniformly distributed unit vector.
    template <int D>
    Vec<D> direction() {
        for (;;) {
            Vec<D> v;
            for (int k = 0; k < D; ++k) v[k] = uniform(-1.0f, 1.0f);
            const float len2 = glm::dot(v, v);
            if (len2 > 1e-4f && len2 <= 1.0f) return v / std::sqrt(len2);
        }
    }

private:
    std::uint64_t state_;
};

}  // namespace collide
