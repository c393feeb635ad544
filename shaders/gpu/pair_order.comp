// The pairs into (a, b) order for one download, without a radix sort where every body's run
// of pairs (those whose a it is) is short: count each a's pairs, scan the counts into run
// starts (radix_scan), scatter each b into its a's run, then one thread a body sorts its
// run's few b values and writes the pairs. The scatter's order within a run depends on the
// threads' timing, the sort after it does not: the output is the same on every run.
// Built once per stage (COUNT, SCATTER, RUNS, INTERLEAVE); INTERLEAVE writes pairs that a
// radix sort has already ordered, for scenes with a run longer than kMaxRun.
layout(local_size_x = 256) in;

layout(std430, binding = 2) readonly buffer PairA { uint pair_a[]; };
layout(std430, binding = 3) readonly buffer PairB { uint pair_b[]; };
layout(std430, binding = 4) writeonly buffer Pairs { uvec2 pairs[]; };
layout(std430, binding = 5) buffer Runs { uint runs[]; };  // counts, then run ends
layout(std430, binding = 6) coherent buffer Longest { uint longest; };
layout(std430, binding = 7) buffer ByA { uint b_by_a[]; };
uniform uint u_count;  // pairs; bodies for RUNS

const uint kMaxRun = 64u;  // the longest run RUNS sorts in one thread (pair_order.cpp agrees)

#ifdef COUNT
shared uint s_longest;
#endif

void main() {
    uint k = gl_GlobalInvocationID.x;
#if defined(COUNT)
    if (gl_LocalInvocationIndex == 0u) s_longest = 0u;
    barrier();
    if (k < u_count) atomicMax(s_longest, atomicAdd(runs[pair_a[k]], 1u) + 1u);
    barrier();
    if (gl_LocalInvocationIndex == 0u) atomicMax(longest, s_longest);
#elif defined(SCATTER)
    // runs[] holds each run's start: taking a slot moves it on, to the run's end at last.
    if (k < u_count) b_by_a[atomicAdd(runs[pair_a[k]], 1u)] = pair_b[k];
#elif defined(RUNS)
    if (k >= u_count) return;
    uint begin = k == 0u ? 0u : runs[k - 1u];
    uint end = runs[k];
    uint run[kMaxRun];
    uint size = end - begin;
    for (uint q = 0u; q < size; ++q) {  // insertion sort: runs are a few pairs long
        uint b = b_by_a[begin + q];
        uint at = q;
        for (; at > 0u && run[at - 1u] > b; --at) run[at] = run[at - 1u];
        run[at] = b;
    }
    for (uint q = 0u; q < size; ++q) pairs[begin + q] = uvec2(k, run[q]);
#else  // INTERLEAVE
    if (k < u_count) pairs[k] = uvec2(pair_a[k], pair_b[k]);
#endif
}
