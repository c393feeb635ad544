// A stable least-significant-digit radix sort on the GPU, 8 bits a pass, for records of up
// to three 32-bit words kept as structure of arrays. The grid sorts (cell row, cell column,
// body), the tree (Morton code, body) and both sort their pairs (a, b) with it, so the
// pair list comes out in the one order brute force gives. Each pass counts the digits per
// block of 1024 records, scans the counts (tile totals, the totals in one group, the tiles)
// and scatters. No subgroup operations. (With 4-bit digits and a one-group scan, the sorts
// took 17 of the 10M GPU world's 28-ms step on an H100.)
#pragma once

#include <array>
#include <cstddef>
#include <span>

#include "collide/gpu/compute_context.hpp"
#include "storage_buffer.hpp"

namespace collide::gpu {

class RadixSort {
public:
    // A digit field: the low `bits` bits of word `word`.
    struct Field {
        int word;
        int bits;
    };

    // Sorts the first `count` records held in `data` (one buffer per word, `words` of them)
    // by `fields`, least significant first; `scratch` is the same shape. The result is in
    // `data` (the buffers may have been swapped with `scratch`).
    void sort(ComputeContext& context, std::span<StorageBuffer* const> data,
              std::span<StorageBuffer* const> scratch, std::size_t count,
              std::span<const Field> fields);

    // Replaces the first `count` words of `values` by their exclusive prefix sum (the
    // sort's own scan, for other users of run starts).
    void exclusive_scan(ComputeContext& context, StorageBuffer& values, std::size_t count);

    std::size_t bytes() const { return histogram_.bytes() + tiles_.bytes() + unused_.bytes(); }

private:
    StorageBuffer histogram_;
    StorageBuffer tiles_;   // the scan's tile totals
    StorageBuffer unused_;  // bound where a record has fewer than three words
};

// Bits needed to hold every value below `n` (0 for n <= 1).
int bits_below(std::size_t n);

}  // namespace collide::gpu
