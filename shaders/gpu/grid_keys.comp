// Levelled grid, step 1: each body's level and the key of its cell, and the set of levels
// in use (so the pair pass skips empty ones).
layout(local_size_x = 256) in;

layout(std430, binding = 2) writeonly buffer Rows { uint rows[]; };
layout(std430, binding = 3) writeonly buffer Columns { uint columns[]; };
layout(std430, binding = 4) writeonly buffer Ids { uint ids[]; };
layout(std430, binding = 5) coherent buffer LevelMask { uint level_mask; };

shared uint s_mask;

void main() {
    if (gl_LocalInvocationIndex == 0u) s_mask = 0u;
    barrier();
    uint i = gl_GlobalInvocationID.x;
    if (i < u_count) {
        VecD lo = box_lo(i);
        uint l = level_of(largest_side(lo, box_hi(i)));
        IVecD c = cell_at(lo, l);
        rows[i] = row_key(c, l);
        columns[i] = uint(c.x);
        ids[i] = i;
        atomicOr(s_mask, 1u << l);
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u) atomicOr(level_mask, s_mask);
}
