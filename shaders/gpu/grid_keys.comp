// Levelled grid, step 1: each body's level, its cell's slot in the cell table (the sort key)
// and its tag (id, static flag, level), and the set of levels in use (so the pair pass skips
// empty ones).
layout(local_size_x = 256) in;

layout(std430, binding = 2) writeonly buffer Slots { uint slots[]; };
layout(std430, binding = 3) writeonly buffer Tags { uint tags[]; };
layout(std430, binding = 5) coherent buffer LevelMask { uint level_mask; };

shared uint s_mask;

void main() {
    if (gl_LocalInvocationIndex == 0u) s_mask = 0u;
    barrier();
    uint i = gl_GlobalInvocationID.x;
    if (i < u_count) {
        VecD lo = box_lo(i);
        uint l = level_of(largest_side(lo, box_hi(i)));
        slots[i] = cell_slot(cell_key(cell_at(lo, l), l));
        tags[i] = entry_tag(i, body_static(i), l);
        atomicOr(s_mask, 1u << l);
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u) atomicOr(level_mask, s_mask);
}
