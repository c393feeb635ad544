#include "tooling/pair_check.hpp"

#include <algorithm>

namespace collide {

namespace {

std::string show(const Pair& p) {
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on the chained operator+.
    std::string s = "(";
    s += std::to_string(p.a);
    s += ',';
    s += std::to_string(p.b);
    s += ')';
    return s;
}

}  // namespace

std::optional<std::string> pair_set_difference(PairList got, const PairList& want) {
    for (const Pair& p : got) {
        if (p.a >= p.b) return "pair " + show(p) + " has a >= b";
    }
    std::sort(got.begin(), got.end());
    if (got == want) return std::nullopt;
    const auto [g, w] = std::mismatch(got.begin(), got.end(), want.begin(), want.end());
    const std::string counts = std::to_string(got.size()) + " pairs reported, " +
                               std::to_string(want.size()) + " expected; ";
    if (w != want.end() && (g == got.end() || *w < *g)) return counts + "missing " + show(*w);
    return counts + "extra or repeated " + show(*g);
}

template <int D>
std::optional<std::string> pair_contract_violation(PairList pairs, std::span<const Aabb<D>> boxes,
                                                   std::span<const std::uint8_t> is_static) {
    std::sort(pairs.begin(), pairs.end());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const Pair& p = pairs[i];
        if (p.a >= p.b) return "pair " + show(p) + " has a >= b";
        if (p.b >= boxes.size()) return "pair " + show(p) + " names a body that does not exist";
        if (i > 0 && pairs[i - 1] == p) return "pair " + show(p) + " reported twice";
        if (!boxes[p.a].overlaps(boxes[p.b]))
            return "pair " + show(p) + " whose boxes do not overlap";
        if (is_static[p.a] && is_static[p.b]) return "pair " + show(p) + " of two static bodies";
    }
    return std::nullopt;
}

template std::optional<std::string> pair_contract_violation<2>(PairList, std::span<const Aabb<2>>,
                                                std::span<const std::uint8_t>);
template std::optional<std::string> pair_contract_violation<3>(PairList, std::span<const Aabb<3>>,
                                                std::span<const std::uint8_t>);

}  // namespace collide
