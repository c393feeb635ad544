// Radix sort, pass 1 of 3: each group counts the 8-bit digits of its block of 1024 keys.
// The counts go digit-major (hist[digit * blocks + block]) so that one exclusive scan of
// the whole array gives every (digit, block) its first output slot, which keeps the sort
// stable: a key's rank depends only on the keys before it.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer Hist { uint hist[]; };
uniform uint u_count;
uniform uint u_shift;
uniform uint u_blocks;

shared uint s_hist[256];

void main() {
    uint lid = gl_LocalInvocationIndex;
    s_hist[lid] = 0u;
    barrier();
    uint first = gl_WorkGroupID.x * 1024u + lid * 4u;
    for (uint k = 0u; k < 4u; ++k) {
        uint i = first + k;
        if (i < u_count) atomicAdd(s_hist[(keys[i] >> u_shift) & 255u], 1u);
    }
    barrier();
    hist[lid * u_blocks + gl_WorkGroupID.x] = s_hist[lid];
}
