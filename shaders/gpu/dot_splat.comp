// Dots (dot_splat.hpp): each body's centre marks the pixel it falls in with its id + 1, the
// highest id winning (atomicMax: the same pixels whatever order the threads run in).
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Positions { vec2 pos[]; };
layout(std430, binding = 1) buffer Pixels { uint pixels[]; };
uniform uint u_count;
uniform ivec2 u_size;
uniform mat4 u_view_proj;

void main() {
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride) {
        vec4 clip = u_view_proj * vec4(pos[i], 0.0, 1.0);
        // Window coordinates, as the viewport transform makes them.
        vec2 p = (clip.xy / clip.w * 0.5 + 0.5) * vec2(u_size);
        // Written so that NaN fails it.
        if (!(p.x >= 0.0 && p.y >= 0.0 && p.x < float(u_size.x) && p.y < float(u_size.y))) {
            continue;
        }
        atomicMax(pixels[uint(p.y) * uint(u_size.x) + uint(p.x)], i + 1u);
    }
}
