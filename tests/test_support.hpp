// Helpers shared by the engine test suites: an independent pair reference and box sets.
#pragma once

#include <algorithm>
#include <span>
#include <string>

#include "collide/core.hpp"

namespace collide::testing {

// The pairs a correct broad phase must report: a plain double loop, written here rather
// than taken from the registry so brute force itself is checked too.
template <int D>
PairList reference_pairs(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static) {
    PairList out;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        for (std::size_t j = i + 1; j < boxes.size(); ++j) {
            if (is_static[i] && is_static[j]) continue;
            if (boxes[i].overlaps(boxes[j])) out.push_back({BodyId(i), BodyId(j)});
        }
    }
    return out;  // already sorted by (a, b)
}

inline PairList sorted(PairList p) {
    std::sort(p.begin(), p.end());
    return p;
}

// Empty when equal; otherwise says which pair differs first.
inline std::string pair_difference(const PairList& got_unsorted, const PairList& want) {
    const PairList got = sorted(got_unsorted);
    for (const Pair& p : got) {
        if (p.a >= p.b) return "pair (" + std::to_string(p.a) + "," + std::to_string(p.b) + ") has a >= b";
    }
    if (got == want) return {};
    const auto [g, w] = std::mismatch(got.begin(), got.end(), want.begin(), want.end());
    std::string what = std::to_string(got.size()) + " pairs reported, " + std::to_string(want.size()) + " expected; ";
    if (w != want.end() && (g == got.end() || *w < *g)) {
        return what + "missing (" + std::to_string(w->a) + "," + std::to_string(w->b) + ")";
    }
    return what + "extra or repeated (" + std::to_string(g->a) + "," + std::to_string(g->b) + ")";
}

}  // namespace collide::testing
