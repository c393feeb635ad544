// Radix sort, pass 2: the exclusive prefix sum of the digit counts, over as many groups as
// it takes. With TILE_SUMS each group writes the total of its tile of 2048 values; then
// radix_scan.comp scans those totals in one group; then each group scans its own tile and
// adds its tile's start.
layout(local_size_x = 256) in;

layout(std430, binding = 1) buffer Values { uint values[]; };
layout(std430, binding = 2) buffer Tiles { uint tiles[]; };
uniform uint u_count;

shared uint s_sums[256];

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint first = gl_WorkGroupID.x * 2048u + lid * 8u;
    uint v[8];
    uint total = 0u;
    for (uint k = 0u; k < 8u; ++k) {
        uint i = first + k;
        v[k] = i < u_count ? values[i] : 0u;
        total += v[k];
    }
    s_sums[lid] = total;
    barrier();
    // Hillis-Steele inclusive scan of the threads' totals.
    for (uint step = 1u; step < 256u; step <<= 1u) {
        uint add = lid >= step ? s_sums[lid - step] : 0u;
        barrier();
        s_sums[lid] += add;
        barrier();
    }
#ifdef TILE_SUMS
    if (lid == 255u) tiles[gl_WorkGroupID.x] = s_sums[255];
#else
    uint running = tiles[gl_WorkGroupID.x] + s_sums[lid] - total;
    for (uint k = 0u; k < 8u; ++k) {
        uint i = first + k;
        if (i < u_count) values[i] = running;
        running += v[k];
    }
#endif
}
