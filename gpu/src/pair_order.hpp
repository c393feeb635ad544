// The found pairs, two word arrays in whatever order the threads found them, into one
// array of Pair sorted by (a, b): the order brute force gives, so every GPU row's output is
// the same on every run. Where each body has few pairs as a (the common case), a counting
// sort by a and a per-body sort of its few b values do it in five dispatches
// (pair_order.comp); a scene where one body is the a of many pairs (a giant) takes the
// radix sort on (a, b) instead. Both give the same array.
#pragma once

#include <cstdint>

#include "radix_sort.hpp"
#include "storage_buffer.hpp"

namespace collide::gpu {

class PairOrder {
public:
    // Counts each body's pairs as a, for the `pairs` pairs held in `a` (bodies below
    // `bodies`), and reads back the longest run: the host waits here, so a caller timing
    // the device stops its clock before and starts it after.
    std::uint32_t count_runs(ComputeContext& context, StorageBuffer& a, std::size_t bodies,
                             std::uint32_t pairs);
    // Writes the pairs held in `a` and `b` into `out`, sorted, after count_runs() said
    // `longest`. `a` and `b` may be reordered (the radix path sorts them in place, with the
    // scratch buffers).
    void order(ComputeContext& context, RadixSort& sort, StorageBuffer& a, StorageBuffer& b,
               StorageBuffer& a_scratch, StorageBuffer& b_scratch, std::size_t bodies,
               std::uint32_t pairs, std::uint32_t longest, StorageBuffer& out);

    std::size_t bytes() const { return runs_.bytes() + longest_.bytes() + by_a_.bytes(); }

private:
    StorageBuffer runs_, longest_, by_a_;
};

}  // namespace collide::gpu
