// Checks of broad-phase output against the contract, shared by the bench's --check and the
// tests: pair sets compared with a reference, and the rules any output must keep.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "collide/core.hpp"

namespace collide {

// Empty when `got` (any order) holds exactly the pairs of `want` (sorted); otherwise the
// first difference: a missing pair, an extra or repeated one, or a pair with a >= b.
std::optional<std::string> pair_set_difference(PairList got, const PairList& want);

// Empty when every pair has a < b, appears once, joins overlapping boxes and is not two
// static bodies; otherwise the first pair that breaks a rule. Finds no missing pairs.
template <int D>
std::optional<std::string> pair_contract_violation(PairList pairs, std::span<const Aabb<D>> boxes,
                                    std::span<const std::uint8_t> is_static);

}  // namespace collide
