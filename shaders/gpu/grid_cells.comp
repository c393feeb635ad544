// Levelled grid, step 3 (after the sort by slot): each slot's run of sorted entries
// [first, end) into the cell table (cleared to empty runs first), and each entry's box
// copied into sorted order, so the pair pass reads the bodies of one cell side by side.
layout(local_size_x = 256) in;

layout(std430, binding = 2) readonly buffer Slots { uint slots[]; };
layout(std430, binding = 3) readonly buffer Tags { uint tags[]; };
layout(std430, binding = 4) writeonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 9) writeonly buffer SortedBoxes { vec4 sorted_box[]; };

void main() {
    uint p = gl_GlobalInvocationID.x;
    if (p >= u_count) return;
    uint slot = slots[p];
    if (p == 0u || slots[p - 1u] != slot) ranges[slot].x = p;
    if (p + 1u == u_count || slots[p + 1u] != slot) ranges[slot].y = p + 1u;
    uint body = tag_body(tags[p]);
#if DIM == 2
    sorted_box[p] = vec4(box_lo(body), box_hi(body));
#else
    sorted_box[2u * p] = vec4(box_lo(body), 0.0);
    sorted_box[2u * p + 1u] = vec4(box_hi(body), 0.0);
#endif
}
