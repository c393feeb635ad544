// The persistent sorted arrays (morton-cells' cells, spatial-hash's and hierarchical-hash's
// entries) are patched, not rebuilt: the bodies whose entries changed are marked dirty, their
// new entries are sorted alone, and one merge keeps everyone else's entries in place. Also
// here: what tells these structures that they must be rebuilt whole.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "collide/broadphase.hpp"

namespace collide {

// entries := (entries whose body is not dirty) merged with `fresh` (sorted here), in order.
// `scratch` is reused between calls and grows with headroom, so it is not reallocated every
// frame. Entry needs a member `id` and operator<.
template <typename Entry, typename Dirty>
void patch_sorted(std::vector<Entry>& entries, std::vector<Entry>& fresh, const Dirty& dirty,
                  std::vector<Entry>& scratch) {
    std::sort(fresh.begin(), fresh.end());
    scratch.clear();
    const std::size_t most = entries.size() + fresh.size();
    if (scratch.capacity() < most) scratch.reserve(most + most / 8);
    auto next = fresh.begin();
    for (const Entry& e : entries) {
        if (dirty[e.id]) continue;
        while (next != fresh.end() && *next < e) scratch.push_back(*next++);
        scratch.push_back(e);
    }
    scratch.insert(scratch.end(), next, fresh.end());
    std::swap(entries, scratch);
}

// Re-makes the entries of the dirty bodies (append(id, fresh) for each, in id order) and
// patches them into `entries`.
template <typename Entry, typename Append>
void patch_dirty(std::vector<Entry>& entries, std::vector<Entry>& fresh,
                 const std::vector<std::uint8_t>& dirty, std::vector<Entry>& scratch,
                 const Append& append) {
    fresh.clear();
    for (BodyId i = 0; i < dirty.size(); ++i) {
        if (dirty[i]) append(i, fresh);
    }
    patch_sorted(entries, fresh, dirty, scratch);
}

// Whether what a persistent structure was built with, besides the boxes, changed since the
// last update: a parameter's value or a body's static flag. Records the parameters' values
// in `built_with`; the caller keeps the static flags.
template <std::size_t N>
bool settings_changed(const std::array<Param, N>& params, std::array<float, N>& built_with,
                      std::span<const std::uint8_t> is_static,
                      std::span<const std::uint8_t> was_static) {
    std::array<float, N> values;
    for (std::size_t p = 0; p < N; ++p) values[p] = params[p].value;
    const bool changed = values != built_with ||
                         !std::equal(is_static.begin(), is_static.end(), was_static.begin(),
                                     was_static.end());
    built_with = values;
    return changed;
}

}  // namespace collide
