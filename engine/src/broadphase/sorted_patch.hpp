// The persistent sorted arrays (morton-cells' cells, spatial-hash's and hierarchical-hash's
// entries) are patched, not rebuilt: the bodies whose entries changed are marked dirty, their
// new entries are sorted alone, and one merge keeps everyone else's entries in place.
#pragma once

#include <algorithm>
#include <vector>

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

}  // namespace collide
