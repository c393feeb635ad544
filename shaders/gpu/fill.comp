// Sets every word of a buffer to u_value, four words a thread (buffer_fill.hpp).
layout(local_size_x = 256) in;

layout(std430, binding = 0) writeonly buffer Words { uvec4 words[]; };
uniform uint u_count;  // uvec4s in the buffer
uniform uint u_value;

void main() {
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride) words[i] = uvec4(u_value);
}
