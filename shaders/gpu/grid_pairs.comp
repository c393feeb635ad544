// Levelled grid, step 2: for each body (in cell order), the bodies whose low corner lies in
// the cells its box can reach, at its own level and every coarser level in use. Each row
// of cells is one binary search in the sorted keys and a forward scan. A pair within a level
// is met from both bodies and kept by the lower id; a pair across levels is met only from
// the finer body. So every pair comes once.
layout(std430, binding = 2) readonly buffer Rows { uint rows[]; };
layout(std430, binding = 3) readonly buffer Columns { uint columns[]; };
layout(std430, binding = 4) readonly buffer Ids { uint ids[]; };
layout(std430, binding = 5) readonly buffer LevelMask { uint level_mask; };

// The first sorted entry at or after (row, column).
uint lower_bound(uint row, uint column) {
    uint first = 0u;
    uint n = u_count;
    while (n > 0u) {
        uint half_n = n >> 1u;
        uint mid = first + half_n;
        if (rows[mid] < row || (rows[mid] == row && columns[mid] < column)) {
            first = mid + 1u;
            n -= half_n + 1u;
        } else {
            n = half_n;
        }
    }
    return first;
}

// What a row's binary search costs in steps, so a stop comes before the loop limit however
// the budget is spent.
const uint kSearchSteps = 32u;

void main() {
    uint job = gl_GlobalInvocationID.x;
    if (job < u_jobs) {
        // State: sorted position t, rows finished, and where to go on in the next row (or
        // kFresh for its start). Rows are met in the same order on every pass.
        const uint kFresh = 0xFFFFFFFFu;
        uvec4 state = u_resuming != 0u ? resume_in[job] : uvec4(job, 0u, kFresh, 0u);
        uint t = state.x;
        uint i = ids[t];
        VecD lo = box_lo(i);
        VecD hi = box_hi(i);
        bool i_static = body_static(i);
        uint own = level_of(largest_side(lo, hi));
        uint row_at = 0u;  // rows met so far
        uint steps = 0u;
        bool stopped = false;
        for (uint l = own; l < u_levels && !stopped; ++l) {
            if ((level_mask & (1u << l)) == 0u) continue;
            // A neighbour's low corner is at most one cell below ours on each axis.
            IVecD from = max(cell_at(lo, l) - 1, IVecD(0));
            IVecD to = cell_at(hi, l);
#if DIM == 2
            for (int z = 0; z <= 0 && !stopped; ++z) {
#else
            for (int z = from.z; z <= to.z && !stopped; ++z) {
#endif
                for (int y = from.y; y <= to.y && !stopped; ++y, ++row_at) {
                    if (row_at < state.y) continue;  // finished on an earlier pass
#if DIM == 2
                    uint row = row_key(ivec2(0, y), l);
#else
                    uint row = row_key(ivec3(0, y, z), l);
#endif
                    uint k;
                    if (row_at == state.y && state.z != kFresh) {
                        k = state.z;
                    } else {
                        k = lower_bound(row, uint(from.x));
                        steps += kSearchSteps;
                    }
                    for (; k < u_count && rows[k] == row && columns[k] <= uint(to.x); ++k) {
                        if (steps >= u_step_budget) {
                            resume_later(uvec4(t, row_at, k, 0u));
                            stopped = true;
                            break;
                        }
                        ++steps;
                        uint j = ids[k];
                        if (l == own && j <= i) continue;
                        ++tests;
                        if (!boxes_overlap(lo, hi, box_lo(j), box_hi(j))) continue;
                        if (!(i_static && body_static(j))) emit_pair(i, j);
                    }
                }
            }
        }
    }
    flush_pairs();
}
