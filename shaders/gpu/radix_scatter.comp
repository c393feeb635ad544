// Radix sort, pass 3 of 3: each key of a block moves to its slot, its digit's offset for
// the block plus its rank among the block's keys of that digit before it. Records are up
// to three words (structure of arrays); u_key_word says which word the digit comes from.
// Stable without subgroup operations: thread t holds keys 4t..4t+3 of the block, and the
// block is cut into 16 chunks of 64 keys. Shared counters give each chunk's count of every
// digit, a scan over the chunks gives where each chunk's keys of a digit start, and a key's
// rank inside its chunk is counted from the chunk's keys before it.
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

const uint kNone = 256u;  // the digit of a slot past the last key
shared uint s_chunk[16 * 256];  // [chunk * 256 + digit]: counts, then starts in the block
shared uint s_digit[1024];

uint digit_of(uint i) {
    uint k = u_key_word == 0u ? src0[i] : (u_key_word == 1u ? src1[i] : src2[i]);
    return (k >> u_shift) & 255u;
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint block = gl_WorkGroupID.x;
    uint first = block * 1024u + lid * 4u;
    for (uint c = 0u; c < 16u; ++c) s_chunk[c * 256u + lid] = 0u;
    barrier();
    uint chunk = lid / 16u;
    uint digits[4];
    for (uint k = 0u; k < 4u; ++k) {
        uint i = first + k;
        digits[k] = i < u_count ? digit_of(i) : kNone;
        s_digit[lid * 4u + k] = digits[k];
        if (digits[k] != kNone) atomicAdd(s_chunk[chunk * 256u + digits[k]], 1u);
    }
    barrier();
    // Thread d: where each chunk's keys of digit d start among the block's keys of d.
    uint running = 0u;
    for (uint c = 0u; c < 16u; ++c) {
        uint n = s_chunk[c * 256u + lid];
        s_chunk[c * 256u + lid] = running;
        running += n;
    }
    barrier();
    uint chunk_first = chunk * 64u;
    uint mine = lid * 4u;
    for (uint k = 0u; k < 4u; ++k) {
        uint d = digits[k];
        if (d == kNone) continue;
        uint rank = 0u;  // the chunk's keys of digit d ahead of this one
        for (uint j = chunk_first; j < mine + k; ++j) rank += s_digit[j] == d ? 1u : 0u;
        uint i = first + k;
        uint slot = offsets[d * u_blocks + block] + s_chunk[chunk * 256u + d] + rank;
        dst0[slot] = src0[i];
        if (u_words > 1u) dst1[slot] = src1[i];
        if (u_words > 2u) dst2[slot] = src2[i];
    }
}
