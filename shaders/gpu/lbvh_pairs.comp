// Linear BVH, step 4: one traversal per body, in leaf order. A body looks only for leaves
// after its own (each node knows its last leaf, so whole subtrees behind it are skipped);
// that finds every overlapping pair exactly once, from the leaf that comes first.
// The walk goes left child first, so it meets leaves in increasing order: when its step
// budget runs out, the first leaf of the next node it would pop is all it needs to resume
// (state: leaf t, first leaf not yet searched). A resumed walk starts at the root again and
// skips every subtree before that leaf, a few pops of the tree's depth.
layout(std430, binding = 3) readonly buffer Ids { uint ids[]; };
layout(std430, binding = 4) readonly buffer Nodes { uvec4 nodes[]; };
layout(std430, binding = 9) readonly buffer NodeBoxes { vec4 node_box[]; };

// Deep enough for any tree: each level down lengthens the common prefix (at most 64 bits
// of code and leaf index), and the walk holds at most one pending right sibling per level.
const int kStack = 66;

bool node_overlaps(uint node, VecD lo, VecD hi) {
#if DIM == 2
    return boxes_overlap(node_box[2u * node].xy, node_box[2u * node + 1u].xy, lo, hi);
#else
    return boxes_overlap(node_box[2u * node].xyz, node_box[2u * node + 1u].xyz, lo, hi);
#endif
}

uint stack[kStack];
int top = 0;

// The first leaf of a stacked entry (a node, or a leaf waiting its turn).
uint first_leaf(uint entry, uint leaves) {
    return entry >= leaves ? entry - leaves : nodes[entry].z;
}

// One child of a popped node: skipped if all its leaves come before `from`, else tested.
// A left leaf is emitted at once; a right leaf waits on the stack like a node, so leaves
// are emitted in order and a stop never leaves an emitted leaf after the resume point.
void visit(uint child, bool left, uint leaves, uint from, uint i, bool i_static, VecD lo,
           VecD hi) {
    bool leaf = child >= leaves;
    uint last = leaf ? child - leaves : nodes[child].w;
    if (last < from) return;
    ++tests;
    if (!node_overlaps(child, lo, hi)) return;
    if (leaf && left) {
        uint j = ids[child - leaves];
        if (!(i_static && body_static(j))) emit_pair(i, j);
    } else {
        stack[top++] = child;
    }
}

void main() {
    uint job = gl_GlobalInvocationID.x;
    if (job < u_jobs) {
        uvec4 state = u_resuming != 0u ? resume_in[job] : uvec4(job, job + 1u, 0u, 0u);
        uint t = state.x;
        uint from = state.y;  // leaves before it are done
        uint leaves = u_count - 1u;
        uint i = ids[t];
        bool i_static = body_static(i);
        VecD lo = box_lo(i);
        VecD hi = box_hi(i);
        stack[top++] = 0u;
        for (uint steps = 0u; top > 0; ++steps) {
            if (steps == u_step_budget) {
                resume_later(uvec4(t, first_leaf(stack[top - 1], leaves), 0u, 0u));
                break;
            }
            uint entry = stack[--top];
            if (entry >= leaves) {  // a right leaf, tested when it was pushed
                uint j = ids[entry - leaves];
                if (!(i_static && body_static(j))) emit_pair(i, j);
                continue;
            }
            uvec4 nd = nodes[entry];
            // Right pushed first, so the left is popped first.
            visit(nd.y, false, leaves, from, i, i_static, lo, hi);
            visit(nd.x, true, leaves, from, i, i_static, lo, hi);
        }
    }
    flush_pairs();
}
