// The grid's levels (prepended to its kernels after common.glsl): level l has cells of side
// c0 * 2^l. A body lives at the first level whose cell, shrunk by a sixteenth, still holds
// its largest side, in the cell of its low corner; so it reaches at most one cell further
// up each axis, and rounding (under 1/100 of a cell here) cannot hide a neighbour.
// Every cell of every level has one 32-bit key (level base + x + y * dx [+ z * dx * dy]),
// and a slot in the cell table: the key itself where the cells are few enough for a dense
// table (cells in key order, neighbours near in memory), else a hash of it (a sparse world:
// then a slot can hold several cells, and the kernels tell them apart).
// The host computes the per-level constants and mirrors these functions with the same
// float and integer operations, so its queries and overlays find the cells the kernels chose.
const uint kMaxLevels = 32u;

uniform VecD u_origin;
uniform uint u_levels;
uniform float u_fit[kMaxLevels];       // the largest body side level l takes
uniform float u_inv_cell[kMaxLevels];  // 1 / cell side
uniform uvec3 u_dims[kMaxLevels];      // cells per axis at each level
uniform uint u_base[kMaxLevels];       // first key of each level
uniform uint u_hashed;                 // 0: a cell's slot is its key; 1: its hash
uniform uint u_slots;                  // slots in the cell table (a power of two when hashed)

uint level_of(float side) {
    uint l = 0u;
    while (l + 1u < u_levels && u_fit[l] < side) ++l;
    return l;
}

IVecD level_top(uint l) {
#if DIM == 2
    return IVecD(u_dims[l].xy) - 1;
#else
    return IVecD(u_dims[l]) - 1;
#endif
}

// The cell holding point p at level l, clamped into the level's grid.
IVecD cell_at(VecD p, uint l) {
    return clamp(IVecD(floor((p - u_origin) * u_inv_cell[l])), IVecD(0), level_top(l));
}

uint cell_key(IVecD c, uint l) {
#if DIM == 2
    return u_base[l] + uint(c.x) + uint(c.y) * u_dims[l].x;
#else
    return u_base[l] + uint(c.x) + (uint(c.y) + uint(c.z) * u_dims[l].y) * u_dims[l].x;
#endif
}

// A key's slot in the cell table (hashed: murmur3's finaliser, which spreads neighbouring
// keys over the whole table).
uint cell_slot(uint key) {
    if (u_hashed == 0u) return key;
    uint h = key;
    h ^= h >> 16u;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13u;
    h *= 0xC2B2AE35u;
    h ^= h >> 16u;
    return h & (u_slots - 1u);
}

// A sorted entry's tag: body id, static flag and level in one word.
uint entry_tag(uint body, bool is_static, uint level) {
    return (body << 6u) | (is_static ? 32u : 0u) | level;
}
uint tag_body(uint tag) { return tag >> 6u; }
bool tag_static(uint tag) { return (tag & 32u) != 0u; }
uint tag_level(uint tag) { return tag & 31u; }
