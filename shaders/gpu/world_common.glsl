// The GPU world's bodies and contacts (prepended to world_step.comp after #version and
// #define DIM). Every array is a plain float or uint array, so positions and velocities sit
// D floats a body, as the renderer reads them for drawing. Each kernel declares only the
// blocks it uses (at most eight); the binding numbers are gpu_world.cpp's Binding table.
layout(local_size_x = 256) in;

#if DIM == 2
#define VecD vec2
#else
#define VecD vec3
#endif

uniform uint u_count;  // bodies
uniform uint u_slots;  // pair slots (the pair buffer's capacity)

// Grid-stride loops: a dispatch has at most 65,535 groups, and there can be more items.
#define FOR_EACH(index, total) \
    for (uint index = gl_GlobalInvocationID.x; index < (total); \
         index += gl_NumWorkGroups.x * gl_WorkGroupSize.x)

#define LOAD_VEC(array, i) load_vec_##array(i)
#if DIM == 2
#define DEFINE_VEC_ACCESS(array)                                                   \
    VecD load_vec_##array(uint i) { return vec2(array[2u * i], array[2u * i + 1u]); } \
    void store_vec_##array(uint i, VecD v) {                                       \
        array[2u * i] = v.x;                                                       \
        array[2u * i + 1u] = v.y;                                                  \
    }
#else
#define DEFINE_VEC_ACCESS(array)                                                  \
    VecD load_vec_##array(uint i) {                                               \
        return vec3(array[3u * i], array[3u * i + 1u], array[3u * i + 2u]);       \
    }                                                                             \
    void store_vec_##array(uint i, VecD v) {                                      \
        array[3u * i] = v.x;                                                      \
        array[3u * i + 1u] = v.y;                                                 \
        array[3u * i + 2u] = v.z;                                                 \
    }
#endif
#define STORE_VEC(array, i, v) store_vec_##array(i, v)

// A contact's target normal velocity: the bounce for a fast approach, else rest (as the
// CPU solver's bounce_target).
float bounce_target(float vn0, float e, float threshold) {
    return -vn0 > threshold ? -e * vn0 : 0.0;
}
