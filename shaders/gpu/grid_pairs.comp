// Levelled grid, step 4: one thread a sorted entry (so threads side by side search cells
// side by side). At its own level a body searches its own cell (the entries after its own)
// and the half of the 3^D - 1 neighbour cells that come after its cell in (z, y, x) order:
// two bodies of one level that overlap lie in the same or adjacent cells, so each such pair
// is met from exactly one of them. At every coarser level in use it searches the cells its
// box can reach (a coarser body's low corner is at most one cell below it): a pair across
// levels is met only from the finer body. So every pair comes once.
// The search is one list of cells, in the same order on every pass; a stopped search
// resumes at (cell number, entry).
layout(std430, binding = 3) readonly buffer Tags { uint tags[]; };
layout(std430, binding = 4) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 5) readonly buffer LevelMask { uint level_mask; };
layout(std430, binding = 9) readonly buffer SortedBoxes { vec4 sorted_box[]; };

#if DIM == 2
const uint kStencil = 9u;
VecD entry_lo(uint q) { return sorted_box[q].xy; }
VecD entry_hi(uint q) { return sorted_box[q].zw; }
IVecD stencil_offset(uint o) { return IVecD(int(o % 3u), int(o / 3u)) - 1; }
#else
const uint kStencil = 27u;
VecD entry_lo(uint q) { return sorted_box[2u * q].xyz; }
VecD entry_hi(uint q) { return sorted_box[2u * q + 1u].xyz; }
IVecD stencil_offset(uint o) { return IVecD(int(o % 3u), int(o / 3u % 3u), int(o / 9u)) - 1; }
#endif
const uint kCentre = kStencil / 2u;  // offset 0: the body's own cell
const uint kFresh = 0xFFFFFFFFu;    // a cell not begun

// The search's state, kept across the cells of one thread.
uint p_self;
uint body;
bool self_static;
VecD lo;
VecD hi;
uint steps = 0u;
bool stopped = false;
uint resume_cell;
uint resume_entry;

// Searches cell c of level l (number `cell_no` in the search's list) from entry `first` on.
void search_cell(IVecD c, uint l, uint cell_no, uint first) {
    if (cell_no < resume_cell) return;  // searched on an earlier pass
    uvec2 range = ranges[cell_slot(cell_key(c, l))];
    uint q = max(range.x, first);
    if (cell_no == resume_cell && resume_entry != kFresh) q = resume_entry;
    ++steps;
    for (; q < range.y; ++q) {
        if (steps >= u_step_budget) {
            resume_later(uvec4(p_self, cell_no, q, 0u));
            stopped = true;
            return;
        }
        ++steps;
        uint tag = tags[q];
        if (tag_level(tag) != l) continue;
        VecD lo_q = entry_lo(q);
        // A hashed slot can hold other cells too.
        if (u_hashed != 0u && any(notEqual(cell_at(lo_q, l), c))) continue;
        ++tests;
        if (!boxes_overlap(lo, hi, lo_q, entry_hi(q))) continue;
        if (!(self_static && tag_static(tag))) emit_pair(body, tag_body(tag));
    }
}

void main() {
    uint job = gl_GlobalInvocationID.x;
    if (job < u_jobs) {
        uvec4 state = u_resuming != 0u ? resume_in[job] : uvec4(job, 0u, kFresh, 0u);
        p_self = state.x;
        resume_cell = state.y;
        resume_entry = state.z;
        uint tag = tags[p_self];
        body = tag_body(tag);
        self_static = tag_static(tag);
        lo = entry_lo(p_self);
        hi = entry_hi(p_self);
        uint own = tag_level(tag);
        IVecD cell = cell_at(lo, own);
        IVecD top = level_top(own);
        uint cell_no = 0u;
        for (uint o = kCentre; o < kStencil && !stopped; ++o, ++cell_no) {
            IVecD c = cell + stencil_offset(o);
            if (any(lessThan(c, IVecD(0))) || any(greaterThan(c, top))) continue;
            search_cell(c, own, cell_no, o == kCentre ? p_self + 1u : 0u);
        }
        for (uint l = own + 1u; l < u_levels && !stopped; ++l) {
            if ((level_mask & (1u << l)) == 0u) continue;
            IVecD from = max(cell_at(lo, l) - 1, IVecD(0));
            IVecD span = cell_at(hi, l) - from + 1;
#if DIM == 2
            uint cells = uint(span.x * span.y);
#else
            uint cells = uint(span.x * span.y * span.z);
#endif
            for (uint k = 0u; k < cells && !stopped; ++k, ++cell_no) {
#if DIM == 2
                IVecD c = from + IVecD(int(k) % span.x, int(k) / span.x);
#else
                IVecD c = from + IVecD(int(k) % span.x, int(k) / span.x % span.y,
                                       int(k) / (span.x * span.y));
#endif
                search_cell(c, l, cell_no, 0u);
            }
        }
    }
    flush_pairs();
}
