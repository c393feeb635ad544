// Linear BVH, step 2 (Karras 2012): every internal node at once, from the sorted codes
// alone. Node i covers a run of leaves with i at one end; its direction and far end come from
// the common prefix lengths with its neighbours, and its split from a binary search. Equal
// codes are told apart by their leaf index, so every tree is a proper binary tree.
// Internal nodes are 0 .. n-2 (0 is the root), leaves n-1 .. 2n-2.
layout(local_size_x = 256) in;

layout(std430, binding = 2) readonly buffer Codes { uint codes[]; };
// left child, right child, first leaf, last leaf
layout(std430, binding = 4) writeonly buffer Nodes { uvec4 nodes[]; };
layout(std430, binding = 5) writeonly buffer Parents { uint parents[]; };

// The length of the common prefix of leaves i and j's keys; -1 outside the leaves.
int prefix(int i, int j) {
    if (j < 0 || j >= int(u_count)) return -1;
    uint a = codes[i];
    uint b = codes[j];
    if (a == b) return 32 + (31 - findMSB(uint(i ^ j)));
    return 31 - findMSB(a ^ b);
}

void main() {
    int i = int(gl_GlobalInvocationID.x);
    int leaves = int(u_count) - 1;  // index of leaf 0 among the nodes
    if (i >= leaves) return;
    int d = prefix(i, i + 1) - prefix(i, i - 1) >= 0 ? 1 : -1;
    int shortest = prefix(i, i - d);
    int reach = 2;
    while (prefix(i, i + reach * d) > shortest) reach *= 2;
    int length = 0;
    for (int step = reach / 2; step >= 1; step /= 2) {
        if (prefix(i, i + (length + step) * d) > shortest) length += step;
    }
    int j = i + length * d;
    int own = prefix(i, j);
    int split = 0;
    int step = length;
    do {
        step = (step + 1) / 2;
        if (prefix(i, i + (split + step) * d) > own) split += step;
    } while (step > 1);
    int gamma = i + split * d + min(d, 0);
    int first = min(i, j);
    int last = max(i, j);
    uint left = first == gamma ? uint(leaves + gamma) : uint(gamma);
    uint right = last == gamma + 1 ? uint(leaves + gamma + 1) : uint(gamma + 1);
    nodes[i] = uvec4(left, right, uint(first), uint(last));
    parents[left] = uint(i);
    parents[right] = uint(i);
}
