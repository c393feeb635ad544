// Shared by every GPU broad-phase kernel (prepended after #version and #define DIM): the
// boxes and static flags as the CPU laid them out, read without any repacking.
#if DIM == 2
#define VecD vec2
#define IVecD ivec2
#else
#define VecD vec3
#define IVecD ivec3
#endif

// Aabb<D> as the engine stores it: D floats of the low corner, then D of the high corner.
layout(std430, binding = 0) readonly buffer BoxBuffer { float box_data[]; };
// One byte per body (the engine's is_static), four to a word.
layout(std430, binding = 1) readonly buffer StaticBuffer { uint static_words[]; };

uniform uint u_count;  // bodies

VecD box_lo(uint i) {
#if DIM == 2
    return vec2(box_data[4u * i], box_data[4u * i + 1u]);
#else
    return vec3(box_data[6u * i], box_data[6u * i + 1u], box_data[6u * i + 2u]);
#endif
}
VecD box_hi(uint i) {
#if DIM == 2
    return vec2(box_data[4u * i + 2u], box_data[4u * i + 3u]);
#else
    return vec3(box_data[6u * i + 3u], box_data[6u * i + 4u], box_data[6u * i + 5u]);
#endif
}
bool body_static(uint i) {
    return ((static_words[i >> 2u] >> ((i & 3u) * 8u)) & 0xFFu) != 0u;
}
// Closed intervals: boxes that only touch overlap, as on the CPU.
bool boxes_overlap(VecD lo_a, VecD hi_a, VecD lo_b, VecD hi_b) {
    return all(lessThanEqual(lo_a, hi_b)) && all(lessThanEqual(lo_b, hi_a));
}
float largest_side(VecD lo, VecD hi) {
    VecD s = hi - lo;
#if DIM == 2
    return max(s.x, s.y);
#else
    return max(s.x, max(s.y, s.z));
#endif
}
