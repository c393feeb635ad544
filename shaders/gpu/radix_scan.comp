// Radix sort: the exclusive prefix sum of radix_scan_tiles.comp's tile totals, in one group
// of 1024 threads. Each thread sums a contiguous run, the group scans the run totals, and
// each thread writes its run's prefixes.
layout(local_size_x = 1024) in;

layout(std430, binding = 1) buffer Values { uint values[]; };
uniform uint u_count;

shared uint s_sums[1024];

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint per = (u_count + 1023u) / 1024u;
    uint begin = min(lid * per, u_count);
    uint end = min(begin + per, u_count);
    uint total = 0u;
    for (uint i = begin; i < end; ++i) total += values[i];
    s_sums[lid] = total;
    barrier();
    // Hillis-Steele inclusive scan of the run totals.
    for (uint step = 1u; step < 1024u; step <<= 1u) {
        uint add = lid >= step ? s_sums[lid - step] : 0u;
        barrier();
        s_sums[lid] += add;
        barrier();
    }
    uint running = s_sums[lid] - total;
    for (uint i = begin; i < end; ++i) {
        uint v = values[i];
        values[i] = running;
        running += v;
    }
}
