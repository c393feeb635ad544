// Radix sort, pass 3 of 3: each key of a block moves to its slot, its digit's offset for
// the block plus its rank among the block's keys of that digit before it. Records are up
// to three words (structure of arrays); u_key_word says which word the digit comes from.
// Stable without subgroup operations: thread t holds keys 4t..4t+3 of the block, and one
// shared-memory scan over (digit, thread) gives every thread its keys' ranks.
layout(local_size_x = 256) in;

layout(std430, binding = 1) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 2) readonly buffer Src0 { uint src0[]; };
layout(std430, binding = 3) readonly buffer Src1 { uint src1[]; };
layout(std430, binding = 4) readonly buffer Src2 { uint src2[]; };
layout(std430, binding = 5) writeonly buffer Dst0 { uint dst0[]; };
layout(std430, binding = 6) writeonly buffer Dst1 { uint dst1[]; };
layout(std430, binding = 7) writeonly buffer Dst2 { uint dst2[]; };
uniform uint u_count;
uniform uint u_shift;
uniform uint u_blocks;
uniform uint u_words;     // 1 to 3
uniform uint u_key_word;  // 0 to u_words - 1

shared uint s_counts[16 * 256];  // [digit * 256 + thread]
shared uint s_sums[256];

uint key_of(uint i) {
    uint k = u_key_word == 0u ? src0[i] : (u_key_word == 1u ? src1[i] : src2[i]);
    return (k >> u_shift) & 15u;
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint block = gl_WorkGroupID.x;
    uint first = block * 1024u + lid * 4u;
    for (uint d = 0u; d < 16u; ++d) s_counts[d * 256u + lid] = 0u;
    uint digits[4];
    for (uint k = 0u; k < 4u; ++k) {
        uint i = first + k;
        digits[k] = i < u_count ? key_of(i) : 16u;
    }
    barrier();
    for (uint k = 0u; k < 4u; ++k) {
        if (digits[k] < 16u) s_counts[digits[k] * 256u + lid] += 1u;
    }
    barrier();
    // Exclusive scan of s_counts in (digit, thread) order: runs of 16, then the run totals.
    uint run = lid * 16u;
    uint total = 0u;
    for (uint r = 0u; r < 16u; ++r) total += s_counts[run + r];
    s_sums[lid] = total;
    barrier();
    for (uint step = 1u; step < 256u; step <<= 1u) {
        uint add = lid >= step ? s_sums[lid - step] : 0u;
        barrier();
        s_sums[lid] += add;
        barrier();
    }
    uint running = s_sums[lid] - total;
    for (uint r = 0u; r < 16u; ++r) {
        uint c = s_counts[run + r];
        s_counts[run + r] = running;
        running += c;
    }
    barrier();
    for (uint k = 0u; k < 4u; ++k) {
        uint d = digits[k];
        if (d >= 16u) continue;
        uint i = first + k;
        uint before = 0u;  // this thread's keys of the same digit ahead of this one
        for (uint e = 0u; e < k; ++e) before += digits[e] == d ? 1u : 0u;
        // s_counts[d * 256] is where digit d starts in this block.
        uint rank = s_counts[d * 256u + lid] - s_counts[d * 256u] + before;
        uint slot = offsets[d * u_blocks + block] + rank;
        dst0[slot] = src0[i];
        if (u_words > 1u) dst1[slot] = src1[i];
        if (u_words > 2u) dst2[slot] = src2[i];
    }
}
