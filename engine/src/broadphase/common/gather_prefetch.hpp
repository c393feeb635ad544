// Prefetching a gather. A pass that reads an array by id in another order (boxes[ids[k]]
// for k = 0, 1, ...) jumps about memory, and no hardware prefetcher follows the jumps: once
// the array outgrows the caches (a million bodies), every read waits for memory. Asking for
// the element kGatherAhead places ahead overlaps those waits.
#pragma once

#include <cstddef>

namespace collide {

inline constexpr std::size_t kGatherAhead = 32;

// A hint, never a fault: the address need not be valid.
inline void prefetch_read(const void* address) { __builtin_prefetch(address, 0); }

}  // namespace collide
