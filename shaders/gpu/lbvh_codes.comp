// Linear BVH, step 1: each body's Morton code (the centre of its box, scaled to the scene's
// bounds: 16 bits an axis in 2D, 10 in 3D) and its id, for the radix sort.
layout(local_size_x = 256) in;

layout(std430, binding = 2) writeonly buffer Codes { uint codes[]; };
layout(std430, binding = 3) writeonly buffer Ids { uint ids[]; };
uniform VecD u_origin;
uniform VecD u_scale;  // code units per world unit, per axis (0 on an axis of no extent)

uint spread_bits(uint v) {
#if DIM == 2
    v &= 0xFFFFu;  // 16 bits -> every other bit of 32
    v = (v | (v << 8u)) & 0x00FF00FFu;
    v = (v | (v << 4u)) & 0x0F0F0F0Fu;
    v = (v | (v << 2u)) & 0x33333333u;
    v = (v | (v << 1u)) & 0x55555555u;
#else
    v &= 0x3FFu;  // 10 bits -> every third bit of 30
    v = (v | (v << 16u)) & 0x030000FFu;
    v = (v | (v << 8u)) & 0x0300F00Fu;
    v = (v | (v << 4u)) & 0x030C30C3u;
    v = (v | (v << 2u)) & 0x09249249u;
#endif
    return v;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= u_count) return;
#if DIM == 2
    const float top = 65535.0;
#else
    const float top = 1023.0;
#endif
    VecD q = clamp((0.5 * (box_lo(i) + box_hi(i)) - u_origin) * u_scale, VecD(0.0), VecD(top));
    uint code = 0u;
    for (int k = 0; k < DIM; ++k) code |= spread_bits(uint(q[k])) << uint(k);
    codes[i] = code;
    ids[i] = i;
}
