// The scene's bounds and the spread of body sizes, for the grid's levels and the tree's
// Morton codes. Floats are compared as order-preserving uints, so the result is exact and
// the same on every run (no float atomics); each group reduces in shared memory first and
// then touches the eight global words once.
layout(local_size_x = 256) in;

// [0, D): lowest low corner; [3, 3 + D): highest high corner; [6]: smallest largest side;
// [7]: largest largest side. The host sets the minima to ~0 and the maxima to 0 first.
layout(std430, binding = 2) coherent buffer Bounds { uint bounds[8]; };

shared uint s_bounds[8];

uint ordered(float f) {
    uint b = floatBitsToUint(f);
    return (b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u);
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    if (lid < 8u) s_bounds[lid] = (lid < 3u || lid == 6u) ? 0xFFFFFFFFu : 0u;
    barrier();
    uint i = gl_GlobalInvocationID.x;
    if (i < u_count) {
        VecD lo = box_lo(i);
        VecD hi = box_hi(i);
        for (int k = 0; k < DIM; ++k) {
            atomicMin(s_bounds[k], ordered(lo[k]));
            atomicMax(s_bounds[3 + k], ordered(hi[k]));
        }
        float side = largest_side(lo, hi);
        atomicMin(s_bounds[6], ordered(side));
        atomicMax(s_bounds[7], ordered(side));
    }
    barrier();
    if (lid < 8u) {
        if (lid < 3u || lid == 6u) {
            atomicMin(bounds[lid], s_bounds[lid]);
        } else {
            atomicMax(bounds[lid], s_bounds[lid]);
        }
    }
}
