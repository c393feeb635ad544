// The sorted pairs, from two word arrays into the engine's Pair layout, for one download.
layout(local_size_x = 256) in;
layout(std430, binding = 2) readonly buffer PairA { uint pair_a[]; };
layout(std430, binding = 3) readonly buffer PairB { uint pair_b[]; };
layout(std430, binding = 4) writeonly buffer Pairs { uvec2 pairs[]; };
uniform uint u_count;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < u_count) pairs[i] = uvec2(pair_a[i], pair_b[i]);
}
