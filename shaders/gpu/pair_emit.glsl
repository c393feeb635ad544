// Pair output for the pair-finding kernels (prepended after common.glsl). Each thread keeps
// its first pairs in registers; at the end the work group reserves room for all of them with
// one global atomic, so a million bodies do not queue on one counter. Pairs past the
// capacity are counted, not written: the host then grows the buffer and runs the pass again.
//
// A thread also stops after u_step_budget steps of its search and leaves where it stopped
// (a uvec4 the kernel defines) for the next pass, which the host runs over those entries
// alone. Drivers may end a long loop early: Mesa's llvmpipe stops every loop of a shader
// after 65,535 iterations in all, so a body larger than the world, which meets every other
// body, silently lost its pairs past about 16,000. Bounded steps keep each thread far
// below that on every driver, and spread a giant's work over several threads' passes.
layout(local_size_x = 256) in;

layout(std430, binding = 6) coherent buffer PairCounters {
    uint pair_count;  // every pair found, also those past the capacity
    uint test_count;  // candidate box tests
};
// The pairs as two word arrays (a < b), the layout the radix sort takes.
layout(std430, binding = 7) writeonly buffer PairA { uint pair_a[]; };
layout(std430, binding = 8) writeonly buffer PairB { uint pair_b[]; };
uniform uint u_pair_capacity;

layout(std430, binding = 11) readonly buffer ResumeIn { uvec4 resume_in[]; };
layout(std430, binding = 12) writeonly buffer ResumeOut { uvec4 resume_out[]; };
layout(std430, binding = 13) coherent buffer ResumeCount { uint resume_count; };
uniform uint u_jobs;         // threads with work: u_count on the first pass, else resume_in's
uniform uint u_resuming;     // 0 on the first pass: thread t starts body t of the sort order
uniform uint u_step_budget;  // steps a thread takes before it leaves the rest for later

// The rest of this thread's search, for the next pass (at most one entry per thread).
void resume_later(uvec4 state) {
    resume_out[atomicAdd(resume_count, 1u)] = state;
}

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
