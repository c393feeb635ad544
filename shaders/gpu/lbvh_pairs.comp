// Linear BVH, step 4: one traversal per body, in leaf order. A body looks only for leaves
// after its own (each node knows its last leaf, so whole subtrees behind it are skipped);
// that finds every overlapping pair exactly once, from the leaf that comes first.
layout(std430, binding = 3) readonly buffer Ids { uint ids[]; };
layout(std430, binding = 4) readonly buffer Nodes { uvec4 nodes[]; };
layout(std430, binding = 9) readonly buffer NodeBoxes { vec4 node_box[]; };

// Deep enough for any tree: each level down lengthens the common prefix (at most 64 bits
// of code and leaf index), and the walk holds at most one pending sibling per level.
const int kStack = 66;

bool node_overlaps(uint node, VecD lo, VecD hi) {
#if DIM == 2
    return boxes_overlap(node_box[2u * node].xy, node_box[2u * node + 1u].xy, lo, hi);
#else
    return boxes_overlap(node_box[2u * node].xyz, node_box[2u * node + 1u].xyz, lo, hi);
#endif
}

void main() {
    uint t = gl_GlobalInvocationID.x;
    if (t < u_count) {
        uint leaves = u_count - 1u;
        uint i = ids[t];
        bool i_static = body_static(i);
        VecD lo = box_lo(i);
        VecD hi = box_hi(i);
        uint stack[kStack];
        int top = 0;
        stack[top++] = 0u;
        while (top > 0) {
            uvec4 nd = nodes[stack[--top]];
            for (int c = 0; c < 2; ++c) {
                uint child = c == 0 ? nd.x : nd.y;
                bool leaf = child >= leaves;
                uint last = leaf ? child - leaves : nodes[child].w;
                if (last <= t) continue;
                ++tests;
                if (!node_overlaps(child, lo, hi)) continue;
                if (leaf) {
                    uint j = ids[child - leaves];
                    if (!(i_static && body_static(j))) emit_pair(i, j);
                } else {
                    stack[top++] = child;
                }
            }
        }
    }
    flush_pairs();
}
