// Linear BVH, step 3: node boxes bottom up. Each leaf writes its box and climbs; at each
// node the first of the two children to arrive stops, the second (which then sees both
// boxes) writes the union and climbs on. Unions of min and max are exact, so the tree is
// the same on every run.
layout(local_size_x = 256) in;

layout(std430, binding = 3) readonly buffer Ids { uint ids[]; };
layout(std430, binding = 4) readonly buffer Nodes { uvec4 nodes[]; };
layout(std430, binding = 5) readonly buffer Parents { uint parents[]; };
layout(std430, binding = 9) coherent buffer NodeBoxes { vec4 node_box[]; };  // lo, hi
layout(std430, binding = 10) coherent buffer Visits { uint visits[]; };

const uint kNoParent = 0xFFFFFFFFu;

void main() {
    uint t = gl_GlobalInvocationID.x;
    if (t >= u_count) return;
    uint leaves = u_count - 1u;
    uint body = ids[t];
    vec4 lo = vec4(0.0);
    vec4 hi = vec4(0.0);
#if DIM == 2
    lo.xy = box_lo(body);
    hi.xy = box_hi(body);
#else
    lo.xyz = box_lo(body);
    hi.xyz = box_hi(body);
#endif
    uint node = leaves + t;
    node_box[2u * node] = lo;
    node_box[2u * node + 1u] = hi;
    memoryBarrierBuffer();
    node = parents[node];
    while (node != kNoParent) {
        if (atomicAdd(visits[node], 1u) == 0u) return;  // the sibling is not done yet
        memoryBarrierBuffer();  // the sibling's box was written before its visit counted
        uvec4 nd = nodes[node];
        lo = min(node_box[2u * nd.x], node_box[2u * nd.y]);
        hi = max(node_box[2u * nd.x + 1u], node_box[2u * nd.y + 1u]);
        node_box[2u * node] = lo;
        node_box[2u * node + 1u] = hi;
        memoryBarrierBuffer();
        node = parents[node];
    }
}
