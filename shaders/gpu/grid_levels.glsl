// The grid's levels (prepended to its kernels after common.glsl): level l has cells of side
// u_c0 * 2^l. A body lives at the first level whose cell, shrunk by a sixteenth, still
// holds its largest side, in the cell of its low corner; so it reaches at most one cell
// further up each axis, and rounding (under 1/100 of a cell here) cannot hide a neighbour.
// A cell's key is two words: the row (level base + y [+ z * rows]) and the column x.
// The host computes the per-level constants, and mirrors these functions with the same
// float operations, so its queries and overlays find the cells the kernels chose.
const uint kMaxLevels = 32u;

uniform VecD u_origin;
uniform uint u_levels;
uniform float u_fit[kMaxLevels];       // the largest body side level l takes
uniform float u_inv_cell[kMaxLevels];  // 1 / cell side
uniform uvec3 u_dims[kMaxLevels];  // cells per axis at each level
uniform uint u_base[kMaxLevels];   // first row key of each level

uint level_of(float side) {
    uint l = 0u;
    while (l + 1u < u_levels && u_fit[l] < side) ++l;
    return l;
}

// The cell holding point p at level l, clamped into the level's grid.
IVecD cell_at(VecD p, uint l) {
    IVecD c = IVecD(floor((p - u_origin) * u_inv_cell[l]));
#if DIM == 2
    IVecD top = IVecD(u_dims[l].xy) - 1;
#else
    IVecD top = IVecD(u_dims[l]) - 1;
#endif
    return clamp(c, IVecD(0), top);
}

uint row_key(IVecD c, uint l) {
#if DIM == 2
    return u_base[l] + uint(c.y);
#else
    return u_base[l] + uint(c.y) + uint(c.z) * u_dims[l].y;
#endif
}
