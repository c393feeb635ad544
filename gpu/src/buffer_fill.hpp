// Large buffers cleared by a compute pass rather than glClearBufferData: on an H200 the
// driver's clear ran near 20 GB/s (10 ms for the 10M-body grid's cell table, more than the
// whole frame's kernels), a compute pass at the memory's speed. StorageBuffer::fill stays for
// counters of a few words.
#pragma once

#include <cstdint>

#include "collide/gpu/compute_context.hpp"
#include "storage_buffer.hpp"

namespace collide::gpu {

// Sets every 32-bit word of `buffer` to `value`, in order with the passes around it. Uses
// binding 0 (common.glsl's boxes): callers bind their own buffers after it.
void fill_words(ComputeContext& context, const StorageBuffer& buffer, std::uint32_t value);

}  // namespace collide::gpu
