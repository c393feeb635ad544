// A stable least-significant-digit radix sort on the GPU, 4 bits a pass, for records of up
// to three 32-bit words kept as structure of arrays. The grid sorts (cell row, cell column,
// body), the tree (Morton code, body) and both sort their pairs (a, b) with it, so the
// pair list comes out in the one order brute force gives. Each pass is three dispatches:
// count digits per block of 1024, one exclusive scan, scatter. No subgroup operations.
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

    std::size_t bytes() const { return histogram_.bytes() + unused_.bytes(); }

private:
    StorageBuffer histogram_;
    StorageBuffer unused_;  // bound where a record has fewer than three words
};

// Bits needed to hold every value below `n` (0 for n <= 1).
int bits_below(std::size_t n);

}  // namespace collide::gpu
