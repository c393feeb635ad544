// Pair output for the pair-finding kernels (prepended after common.glsl). Each thread keeps
// its first pairs in registers; at the end the work group reserves room for all of them with
// one global atomic, so a million bodies do not queue on one counter. Pairs past the
// capacity are counted, not written: the host then grows the buffer and runs the pass again.
layout(local_size_x = 256) in;

layout(std430, binding = 6) coherent buffer PairCounters {
    uint pair_count;  // every pair found, also those past the capacity
    uint test_count;  // candidate box tests
};
// The pairs as two word arrays (a < b), the layout the radix sort takes.
layout(std430, binding = 7) writeonly buffer PairA { uint pair_a[]; };
layout(std430, binding = 8) writeonly buffer PairB { uint pair_b[]; };
uniform uint u_pair_capacity;

const uint kHeldPairs = 8u;
uvec2 held_pairs[kHeldPairs];
void store_pair(uint slot, uvec2 p) {
    if (slot < u_pair_capacity) {
        pair_a[slot] = p.x;
        pair_b[slot] = p.y;
    }
}
uint held = 0u;
uint tests = 0u;
shared uint s_sum;
shared uint s_tests;
shared uint s_base;

void emit_pair(uint i, uint j) {
    uvec2 p = uvec2(min(i, j), max(i, j));
    if (held < kHeldPairs) {
        held_pairs[held++] = p;
    } else {
        store_pair(atomicAdd(pair_count, 1u), p);
    }
}

// Every thread of the group must call this once, at the end (it holds barriers).
void flush_pairs() {
    if (gl_LocalInvocationIndex == 0u) {
        s_sum = 0u;
        s_tests = 0u;
    }
    barrier();
    uint offset = atomicAdd(s_sum, held);
    atomicAdd(s_tests, tests);
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        s_base = atomicAdd(pair_count, s_sum);
        atomicAdd(test_count, s_tests);
    }
    barrier();
    for (uint k = 0u; k < held; ++k) store_pair(s_base + offset + k, held_pairs[k]);
}
