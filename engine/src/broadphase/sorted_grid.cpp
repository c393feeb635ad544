#include "broadphase/sorted_grid.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <numeric>

#include <tbb/parallel_for.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define COLLIDE_AVX2_PATH 1
#endif

#include "broadphase/common/gather_prefetch.hpp"

namespace collide {

namespace {

// The size estimate reads at most this many boxes, spread evenly over the ids.
constexpr std::size_t kSample = 4096;
// A level's grid has at most this many cells per body (and at least kMinCells): cells grow
// when the bodies spread far, so memory and the count pass stay linear in n.
constexpr double kCellsPerBody = 4.0;
constexpr double kMinCells = 64.0;
constexpr std::size_t kEntriesPerChunk = 8192;
constexpr std::uint32_t kCrowded = 4;
// The one-part scatter sweeps the final chunks after each block of this many inputs.
constexpr std::size_t kFinalBlock = 4096;

// Runs body(part) for each part in [0, parts), on oneTBB's threads when there are several.
template <typename Fn>
void for_each_part(std::size_t parts, const Fn& body) {
    if (parts == 1) {
        body(std::size_t{0});
        return;
    }
    tbb::parallel_for(std::size_t{0}, parts, body, tbb::simple_partitioner{});
}

// The range [0, n) cut into `parts` nearly equal pieces: piece p is [cut(p), cut(p + 1)).
std::size_t cut(std::size_t n, std::size_t parts, std::size_t p) {
    return n * p / parts;
}

}  // namespace

template <int D>
bool SortedGrid<D>::eight_lanes() const {
#if defined(COLLIDE_AVX2_PATH)
    static const bool has_avx2 = __builtin_cpu_supports("avx2");
    return has_avx2 && params_[2].value != 0.0f;
#else
    return false;
#endif
}

template <int D>
std::size_t SortedGrid<D>::parts_for(std::size_t n) const {
    if (!parallel() || n < kParallelFrom) return 1;
    return std::clamp<std::size_t>(threads_allowed(), 1, kMaxParts);
}

template <int D>
void SortedGrid<D>::choose_levels(std::span<const Aabb<D>> boxes) {
    const std::size_t n = boxes.size();
    // Level 0 is sized for the typical body: twice the median extent, or the largest if all
    // are smaller (a uniform scene then has one level whose cells fit every body).
    sample_.clear();
    const std::size_t step = std::max<std::size_t>(1, n / kSample);
    for (std::size_t i = 0; i < n; i += step) sample_.push_back(boxes[i].largest_side());
    float median = 0.0f;
    if (!sample_.empty()) {
        const auto mid = sample_.begin() + static_cast<std::ptrdiff_t>(sample_.size() / 2);
        std::nth_element(sample_.begin(), mid, sample_.end());
        median = *mid;
    }
    // The largest body is only known after a pass over all of them, so the levels are first
    // chosen from last frame's base cell, in the pass that finds it; they are chosen again
    // only where this frame's base differs (bodies changed size). Bodies keep their sizes from
    // frame to frame, so a frame reads the boxes once here, not twice.
    const float largest = assign_levels(boxes);
    float base = cell_scale() * std::min(2.0f * median, largest);
    if (!(base > 0.0f) || !std::isfinite(base)) base = 1.0f;
    if (base != base_cell_) {
        base_cell_ = base;
        assign_levels(boxes);
    }
}

template <int D>
float SortedGrid<D>::assign_levels(std::span<const Aabb<D>> boxes) {
    const std::size_t n = boxes.size();
    levels_.assign(kMaxLevels, Level{});
    for (int k = 0; k < kMaxLevels; ++k)
        levels_[k].cell = base_cell_ * std::pow(kLevelRatio, static_cast<float>(k));
    level_of_.resize(n);
    // Per part of the bodies: each level's bodies and bounds of lower corners, the top
    // level's cell and the largest side, merged after the pass (a part's share of 16 levels
    // is small beside its bodies).
    struct Tally {
        std::array<std::uint32_t, kMaxLevels> bodies{};
        std::array<Aabb<D>, kMaxLevels> lows;
        float top_cell = 0.0f;
        float largest = 0.0f;
    };
    std::array<Tally, kMaxParts> tallies;
    std::array<float, kMaxLevels> cells;
    for (int k = 0; k < kMaxLevels; ++k) cells[k] = levels_[k].cell;
    for_each_part(parts_, [&](std::size_t p) {
        // Tallied in locals, level 0's (most bodies') apart: the byte stores to level_of_ may
        // alias anything, so tallies behind a reference would each be a load and a store, in
        // a chain from one body to the next (the level choice at 2D uniform 1M: 4.1 -> 2.2 ms).
        Tally t;
        t.lows.fill(Aabb<D>::empty());
        std::uint32_t bodies0 = 0;
        Aabb<D> lows0 = Aabb<D>::empty();
        float largest = 0.0f;
        for (std::size_t i = cut(n, parts_, p), end = cut(n, parts_, p + 1); i < end; ++i) {
            const float e = boxes[i].largest_side();
            largest = std::max(largest, e);
            int k = 0;
            while (e > cells[k] && k + 1 < kMaxLevels) ++k;
            level_of_[i] = static_cast<std::uint8_t>(k);
            if (k == 0) {
                ++bodies0;
                lows0.grow({boxes[i].lo, boxes[i].lo});
                continue;
            }
            ++t.bodies[k];
            t.lows[k].grow({boxes[i].lo, boxes[i].lo});
            // The top level takes whatever is left, however large.
            if (k + 1 == kMaxLevels) t.top_cell = std::max(t.top_cell, e);
        }
        t.bodies[0] += bodies0;
        t.lows[0].grow(lows0);
        t.largest = largest;
        tallies[p] = t;
    });
    float largest = 0.0f;
    for (std::size_t p = 0; p < parts_; ++p) {
        for (int k = 0; k < kMaxLevels; ++k) {
            levels_[k].bodies += tallies[p].bodies[k];
            levels_[k].lows.grow(tallies[p].lows[k]);
        }
        Level& top = levels_[kMaxLevels - 1];
        top.cell = std::max(top.cell, tallies[p].top_cell);
        largest = std::max(largest, tallies[p].largest);
    }
    return largest;
}

template <int D>
void SortedGrid<D>::size_grids() {
    std::size_t total = 0;
    for (Level& level : levels_) {
        level.first_cell = total;
        level.cells = 0;
        level.folded = false;
        if (level.bodies == 0) continue;
        const double limit = std::max(kCellsPerBody * level.bodies, kMinCells);
        double slots = kMinCells;
        while (slots < limit) slots *= 2.0;
        double cell = level.cell;
        std::array<double, D> dims{};
        for (;;) {
            double cells = 1;
            for (int k = 0; k < D; ++k) {
                // A cell and a half of padding below (a lower corner never rounds into cell
                // 0) and at least one whole cell above, so the forward runs stay inside the
                // level and never wrap onto bodies.
                // A level whose corners are not finite (bodies with NaN or infinite sides)
                // is sized as a point, rather than doubling its cell forever.
                double span = double(level.lows.hi[k]) - double(level.lows.lo[k]);
                if (!std::isfinite(span)) span = 0.0;
                dims[k] = std::floor(span / cell + 1.5) + 3;  // + 1 more for rounding
                cells *= dims[k];
            }
            if (cells <= limit) {
                level.cells = static_cast<std::size_t>(cells);
                break;
            }
            // Folded, where coarser cells crowded last time: odd rows (and planes) make the index
            // modulo a power of two spread a line or plane of cells along any axis over all slots.
            // The farthest forward neighbour must stay under half the slots, so that two neighbour
            // offsets never meet modulo the slots and each pair is still found from one side only.
            double reach = 2;
            for (int k = 0; k + 1 < D; ++k) {
                dims[k] += std::fmod(dims[k], 2.0) == 0.0 ? 1.0 : 0.0;
                reach = reach * dims[k] + 1;
            }
            if (crowded_[&level - levels_.data()] && 2.0 * reach < slots && cells < 1e18) {
                level.cells = static_cast<std::size_t>(slots);
                level.folded = true;
                break;
            }
            cell *= 2.0;
        }
        for (int k = 0; k < D; ++k) level.dims[k] = static_cast<std::int64_t>(dims[k]);
        level.cell = static_cast<float>(cell);
        level.inv_cell = static_cast<float>(1.0 / cell);
        level.origin = level.lows.lo - Vec<D>(1.5f * level.cell);
        total += level.cells;
    }
    start_.resize(total + 1);
    for_each_part(parts_, [&](std::size_t p) {
        std::fill(start_.begin() + static_cast<std::ptrdiff_t>(cut(total + 1, parts_, p)),
                  start_.begin() + static_cast<std::ptrdiff_t>(cut(total + 1, parts_, p + 1)), 0);
    });
}

// Each pair of occupied levels is scanned from the side that visits fewer cell runs: a
// coarse body covers about (coarse / fine cell + 2)^(D - 1) rows of finer cells, a fine body
// at most 2^(D - 1) rows of coarse ones. Big bodies over much finer, crowded cells (a
// `centerline` line of tiny bodies under the free ones) are cheaper seen from below.
template <int D>
void SortedGrid<D>::choose_scans() {
    for (Level& level : levels_) level.scans = 0;
    for (int k = 1; k < kMaxLevels; ++k) {
        if (levels_[k].bodies == 0) continue;
        for (int j = 0; j < k; ++j) {
            if (levels_[j].bodies == 0) continue;
            // A folded level is read slot by slot (far cells alias into each one), so a
            // coarse body pays for every fine cell it covers there, not for every row.
            const double rows = levels_[k].cell / levels_[j].cell + 2.0;
            double down = levels_[k].bodies * (levels_[j].folded ? rows : 1.0);
            double up = levels_[j].bodies;
            for (int a = 1; a < D; ++a) {
                down *= rows;
                up *= 2.0;
            }
            if (up < down) {
                levels_[j].scans |= 1u << k;
            } else {
                levels_[k].scans |= 1u << j;
            }
        }
    }
}

template <int D>
std::int64_t SortedGrid<D>::axis_cell(const Level& level, float v, int k) const {
    const float g = (v - level.origin[k]) * level.inv_cell;
    if (!(g > 0.0f)) return 0;  // NaN too
    if (g >= static_cast<float>(level.dims[k] - 1)) return level.dims[k] - 1;
    return static_cast<std::int64_t>(g);
}

template <int D>
typename SortedGrid<D>::Cell SortedGrid<D>::cell_of(const Level& level, const Vec<D>& p) const {
    Cell c;
    for (int k = 0; k < D; ++k) c[k] = axis_cell(level, p[k], k);
    return c;
}

template <int D>
std::size_t SortedGrid<D>::cell_index(const Level& level, const Cell& c) const {
    std::int64_t index = c[D - 1];
    for (int k = D - 2; k >= 0; --k) index = index * level.dims[k] + c[k];
    auto slot = static_cast<std::size_t>(index);
    if (level.folded) slot &= level.cells - 1;
    return level.first_cell + slot;
}

template <int D>
template <typename Fn>
void SortedGrid<D>::visit_slots(const Level& level, std::size_t slot, std::size_t count,
                                const Fn& visit) const {
    const std::size_t base = level.first_cell;
    if (count >= level.cells) {
        visit(start_[base], start_[base + level.cells]);
        return;
    }
    if (slot >= level.cells) slot -= level.cells;
    const std::size_t end = slot + count;
    if (end <= level.cells) {
        visit(start_[base + slot], start_[base + end]);
    } else {
        visit(start_[base + slot], start_[base + level.cells]);
        visit(start_[base], start_[base + end - level.cells]);
    }
}

// A counting sort by global cell whose input is last frame's order: while bodies keep their
// cells, the scatter below writes nearly in sequence. In parallel, each part of the cells
// (cut where last frame's order puts equal shares of the bodies) is counted, summed and
// filled by one thread that reads all the keys and keeps its own: no atomics, no merging.
template <int D>
void SortedGrid<D>::sort_bodies(std::span<const Aabb<D>> boxes,
                                std::span<const std::uint8_t> is_static, bool sweep_as_placed) {
    const std::size_t n = boxes.size();
    // Last frame's sorted ids are this frame's input order.
    order_.swap(ids_);
    if (order_.size() != n) {
        order_.resize(n);
        std::iota(order_.begin(), order_.end(), BodyId{0});
    }
    keys_.resize(n);
    const BodyId* order = order_.data();
    std::uint32_t* keys = keys_.data();
    std::uint32_t* start = start_.data();
    const std::size_t cells = start_.size() - 1;
    // Prefetched (gather_prefetch.hpp): 3-9% off the sorted grid at 1M (2D and 3D uniform,
    // 1 and 2 threads), nothing measurable at 100k.
    // Each pass below reads these pointers from copies of its own, which the compiler can
    // keep in registers: through the lambdas' references, every store that may alias them
    // (a byte, a vector's growth) would load them again.
    // In one part every key is the part's own, so the keys are counted as they are made,
    // not read again from memory for it (at 1M, 4 bytes a body less to read).
    const bool one_part = parts_ == 1;
    // The scatter then sweeps each chunk of entries as soon as its cells are final:
    // key_bound_[b] is one past the largest key of the inputs before block b.
    assert(!sweep_as_placed || one_part);
    if (sweep_as_placed) key_bound_.assign(n / kFinalBlock + 1, 0);
    for_each_part(parts_, [&](std::size_t p) {
        const BodyId* const input = order;
        std::uint32_t* const key = keys;
        std::uint32_t* const counts = start;
        const std::uint8_t* const level_of = level_of_.data();
        std::uint32_t* const bound = key_bound_.data();
        std::uint32_t top = 0;
        for (std::size_t k = cut(n, parts_, p), end = cut(n, parts_, p + 1); k < end; ++k) {
            if (k + kGatherAhead < end) {
                prefetch_read(&boxes[input[k + kGatherAhead]]);
                prefetch_read(&level_of[input[k + kGatherAhead]]);
            }
            const BodyId id = input[k];
            const Level& level = levels_[level_of[id]];
            key[k] = static_cast<std::uint32_t>(cell_index(level, cell_of(level, boxes[id].lo)));
            if (one_part) ++counts[key[k]];
            if (sweep_as_placed) {
                top = std::max(top, key[k] + 1);
                if ((k + 1) % kFinalBlock == 0) bound[(k + 1) / kFinalBlock] = top;
            }
        }
    });
    // Each part's cells [first[p], first[p + 1]).
    std::array<std::size_t, kMaxParts + 1> first{};
    first[parts_] = cells;
    for (std::size_t p = 1; p < parts_; ++p)
        first[p] = std::clamp<std::size_t>(keys[cut(n, parts_, p)], first[p - 1], cells);
    // Each part counts and scatters the keys in its cells. Last frame's order leaves the keys
    // nearly sorted, so most of a part's keys lie in its own slice of the input; the few that
    // do not (strays: bodies that crossed into another part's cells) are listed, and each
    // part then takes the strays aimed at it. A part reads about n / parts keys, not all n.
    std::array<std::uint32_t, kMaxParts> counted{};
    if (one_part) {
        counted[0] = static_cast<std::uint32_t>(n);
        strays_[0].clear();
    } else {
        for_each_part(parts_, [&](std::size_t p) {
            const std::size_t lo = first[p], span = first[p + 1] - lo;
            std::vector<std::uint32_t>& strays = strays_[p];
            strays.clear();
            std::uint32_t count = 0;
            const std::uint32_t* const key = keys;
            std::uint32_t* const counts = start;
            const std::size_t end = cut(n, parts_, p + 1);
            for (std::size_t k = cut(n, parts_, p); k < end; ++k) {
                if (key[k] - lo < span) {
                    ++counts[key[k]], ++count;
                } else {
                    strays.push_back(static_cast<std::uint32_t>(k));
                }
            }
            counted[p] = count;
        });
    }
    for_each_part(parts_, [&](std::size_t p) {  // after every part listed its strays
        const std::size_t lo = first[p], span = first[p + 1] - lo;
        for (std::size_t q = 0; q < parts_; ++q) {
            if (q == p) continue;
            for (const std::uint32_t k : strays_[q]) {
                if (keys[k] - lo < span) ++start[keys[k]], ++counted[p];
            }
        }
    });
    // Counts to cell ends (each part after those before it), and the occupied cells.
    std::array<std::array<std::uint32_t, kMaxLevels>, kMaxParts> occupied_of{};
    for_each_part(parts_, [&](std::size_t p) {
        std::uint32_t end = 0;
        for (std::size_t q = 0; q < p; ++q) end += counted[q];
        for (int k = 0; k < kMaxLevels; ++k) {
            const Level& level = levels_[k];
            const std::size_t from = std::max(first[p], level.first_cell);
            const std::size_t to = std::min(first[p + 1], level.first_cell + level.cells);
            std::uint32_t occupied = 0;
            for (std::size_t c = from; c < to; ++c) {
                occupied += start[c] != 0;
                end += start[c];
                start[c] = end;
            }
            occupied_of[p][k] = occupied;
        }
    });
    start[cells] = static_cast<std::uint32_t>(n);
    ids_.resize(n);
    static_.resize(n);
    for (int a = 0; a < D; ++a) {
        lo_[a].resize(n + kPad);
        hi_[a].resize(n + kPad);
    }
    // The scatter, from the back, moves each cell's end back to its start: a part's keys in
    // descending input order (the strays from later slices, its own, those from earlier
    // ones), so each cell keeps its bodies in input order, whatever the number of parts.
    for_each_part(parts_, [&](std::size_t p) {
        const std::size_t lo = first[p], span = first[p + 1] - lo;
        BodyId* ids = ids_.data();
        std::uint8_t* fixed = static_.data();
        std::array<float*, D> low, high;
        for (int a = 0; a < D; ++a) low[a] = lo_[a].data(), high[a] = hi_[a].data();
        // Captured by value: the byte store to `fixed` may alias anything.
        std::uint32_t* const ends = start;
        const std::uint32_t* const key = keys;
        const BodyId* const input = order;
        const Aabb<D>* const box = boxes.data();
        const std::uint8_t* const input_static = is_static.data();
        // The boxes are gathered again here, not staged in input order by the key pass: the
        // staged copy held n more boxes (16 MB at 1M in 2D) and moved more memory than this
        // second gather (cachegrind, 32 MB last level, 2D uniform 1M: the sort's last-level
        // misses 1.21M -> 0.66M a frame); the time was the same within the VM's noise.
        const auto place = [=](std::size_t k) {
            if (k >= kGatherAhead) prefetch_read(&box[input[k - kGatherAhead]]);
            const std::uint32_t e = --ends[key[k]];
            const BodyId id = input[k];
            ids[e] = id;
            fixed[e] = input_static[id];
            for (int a = 0; a < D; ++a) {
                low[a][e] = box[id].lo[a];
                high[a][e] = box[id].hi[a];
            }
        };
        const auto take_strays = [&](std::size_t q) {
            const std::vector<std::uint32_t>& strays = strays_[q];
            for (auto k = strays.rbegin(); k != strays.rend(); ++k) {
                if (key[*k] - lo < span) place(*k);
            }
        };
        if (sweep_as_placed) {
            // Block by block from the back: once the inputs from block b on are placed, the
            // cells past every key before it are final, and so are the entries in them.
            for (std::size_t b = n / kFinalBlock + 1; b-- > 0;) {
                const std::size_t end = std::min(n, (b + 1) * kFinalBlock);
                for (std::size_t k = end; k-- > b * kFinalBlock;) place(k);
                sweep_final_entries(key_bound_[b]);
            }
            return;
        }
        for (std::size_t q = parts_; q-- > p + 1;) take_strays(q);
        const std::size_t begin = cut(n, parts_, p);
        for (std::size_t k = cut(n, parts_, p + 1); k-- > begin;) {
            if (key[k] - lo < span) place(k);
        }
        for (std::size_t q = p; q-- > 0;) take_strays(q);
    });
    // A level whose bodies crowd into few cells (more than kCrowded a cell on average) is
    // folded from the next frame on, until its number of bodies changes much.
    occupied_ = 0;
    for (int k = 0; k < kMaxLevels; ++k) {
        std::uint32_t occupied = 0;
        for (std::size_t p = 0; p < parts_; ++p) occupied += occupied_of[p][k];
        occupied_ += occupied;
        const Level& level = levels_[k];
        if (level.folded) {
            const std::uint32_t was = crowded_bodies_[k];
            crowded_[k] = level.bodies <= 2 * was && was <= 2 * level.bodies;
        } else {
            crowded_[k] = level.bodies > kCrowded * occupied;
            crowded_bodies_[k] = level.bodies;
        }
    }
}

template <int D>
void SortedGrid<D>::sweep_final_entries(std::size_t cell) {
    // A folded level's forward runs wrap round to its first slots: its cells are final for
    // the sweep only when all of them are.
    for (const Level& level : levels_) {
        if (level.folded && cell > level.first_cell && cell < level.first_cell + level.cells)
            cell = level.first_cell + level.cells;
    }
    // The scatter moves each cell's start down to its final place, so start_ stays sorted and
    // is exact from `cell` on.
    within_.sweep_tail(start_[cell], sweep_within());
}

template <int D>
bool SortedGrid<D>::overlaps(std::size_t e, const Aabb<D>& b) const {
    for (int a = 0; a < D; ++a) {
        if (lo_[a][e] > b.hi[a] || b.lo[a] > hi_[a][e]) return false;
    }
    return true;
}

template <int D>
Aabb<D> SortedGrid<D>::entry_box(std::size_t e) const {
    Aabb<D> b;
    for (int a = 0; a < D; ++a) {
        b.lo[a] = lo_[a][e];
        b.hi[a] = hi_[a][e];
    }
    return b;
}

template <int D>
template <bool kTrack>
[[gnu::always_inline]] inline void SortedGrid<D>::test_run(const Probe& p, std::size_t from,
                                                           std::size_t to, PairList& out,
                                                           std::uint64_t& tests) const {
    tests += to - from;
    const BodyId* ids = ids_.data();
    const std::uint8_t* fixed_of = static_.data();
    const auto emit = [&](std::size_t e) {
        if (!(p.fixed && fixed_of[e])) out.push_back(make_pair(p.id, ids[e]));
    };
    if constexpr (kTrack) {
        for (std::size_t e = from; e < to; ++e) costs_.add_pair(p.id, ids[e]);
    }
#if defined(__SSE2__)
    // Four entries at a time (the arrays are padded by kPad, so reading past `to` is safe;
    // those lanes are masked off). A run is a few cells of about one body each, so most
    // runs take one predictable iteration. Separated on an axis: lo > other hi, the same
    // test as Aabb::overlaps (a NaN separates nothing).
    for (std::size_t j = from; j < to; j += 4) {
        __m128 apart = _mm_setzero_ps();
        for (int a = 0; a < D; ++a) {
            apart = _mm_or_ps(apart, _mm_cmpgt_ps(_mm_loadu_ps(lo_[a].data() + j), p.hi4[a]));
            apart = _mm_or_ps(apart, _mm_cmpgt_ps(p.lo4[a], _mm_loadu_ps(hi_[a].data() + j)));
        }
        unsigned hits = ~static_cast<unsigned>(_mm_movemask_ps(apart)) & 0xFu;
        if (to - j < 4) hits &= (1u << (to - j)) - 1u;
        for (; hits != 0; hits &= hits - 1) emit(j + static_cast<unsigned>(std::countr_zero(hits)));
    }
#else
    for (std::size_t e = from; e < to; ++e) {
        if (overlaps(e, p.box)) emit(e);
    }
#endif
}

#if defined(COLLIDE_AVX2_PATH)
// test_run's loop eight entries at a time. Runs in dense cells (`clusters`, 3D) are long
// enough to fill eight lanes, and a short run costs one step either way: one thread, against
// four lanes, 2D clusters 100k 7.0 -> 6.1 ms, 3D clusters 21.4 -> 17.2, 3D uniform 9.7 -> 8.1,
// 2D uniform unchanged (docs/algorithms/grids-and-hashing.md).
template <int D>
template <bool kTrack>
[[gnu::target("avx2")]] void SortedGrid<D>::test_runs_avx2(std::size_t e, std::span<const Run> runs,
                                                           PairList& out,
                                                           std::uint64_t& tests) const {
    const BodyId id = ids_[e];
    const bool fixed = static_[e] != 0;
    __m256 lo8[D], hi8[D];
    const float* lo[D];
    const float* hi[D];
    for (int a = 0; a < D; ++a) {
        lo8[a] = _mm256_set1_ps(lo_[a][e]);
        hi8[a] = _mm256_set1_ps(hi_[a][e]);
        lo[a] = lo_[a].data();
        hi[a] = hi_[a].data();
    }
    const BodyId* ids = ids_.data();
    const std::uint8_t* fixed_of = static_.data();
    for (const auto& [from, to] : runs) {
        tests += to - from;
        if constexpr (kTrack) {
            for (std::size_t j = from; j < to; ++j) costs_.add_pair(id, ids[j]);
        }
        for (std::size_t j = from; j < to; j += 8) {
            // Ordered compares: a NaN separates nothing, as in Aabb::overlaps.
            __m256 apart = _mm256_setzero_ps();
            for (int a = 0; a < D; ++a) {
                apart = _mm256_or_ps(apart,
                                     _mm256_cmp_ps(_mm256_loadu_ps(lo[a] + j), hi8[a], _CMP_GT_OQ));
                apart = _mm256_or_ps(apart,
                                     _mm256_cmp_ps(lo8[a], _mm256_loadu_ps(hi[a] + j), _CMP_GT_OQ));
            }
            unsigned hits = ~static_cast<unsigned>(_mm256_movemask_ps(apart)) & 0xFFu;
            if (to - j < 8) hits &= (1u << (to - j)) - 1u;
            for (; hits != 0; hits &= hits - 1) {
                const std::size_t k = j + static_cast<unsigned>(std::countr_zero(hits));
                if (!(fixed && fixed_of[k])) out.push_back(make_pair(id, ids[k]));
            }
        }
    }
}
#endif

template <int D>
typename SortedGrid<D>::Probe SortedGrid<D>::probe(std::size_t e) const {
    Probe p;
    p.box = entry_box(e);
    p.id = ids_[e];
    p.fixed = static_[e] != 0;
#if defined(__SSE2__)
    for (int a = 0; a < D; ++a) {
        p.lo4[a] = _mm_set1_ps(p.box.lo[a]);
        p.hi4[a] = _mm_set1_ps(p.box.hi[a]);
    }
#endif
    return p;
}

template <int D>
void SortedGrid<D>::pairs_within(std::size_t e0, std::size_t e1, PairList& out,
                                 std::uint64_t& tests) const {
    // Two copies of the loop, so the timed path has no cost counting in it at all.
    const bool track = costs_.on();
#if defined(COLLIDE_AVX2_PATH)
    if (eight_lanes()) {
        if (track) {
            pairs_within_avx2<true>(e0, e1, out, tests);
        } else {
            pairs_within_avx2<false>(e0, e1, out, tests);
        }
        return;
    }
#endif
    if (track) {
        pairs_within_runs<true, false>(e0, e1, out, tests);
    } else {
        pairs_within_runs<false, false>(e0, e1, out, tests);
    }
}

#if defined(COLLIDE_AVX2_PATH)
// `flatten` inlines the loop and its calls into this AVX2 function: a call to test_runs_avx2
// for each entry instead made 2D uniform 100k 7% slower than four lanes.
template <int D>
template <bool kTrack>
[[gnu::target("avx2"), gnu::flatten]] void SortedGrid<D>::pairs_within_avx2(
    std::size_t e0, std::size_t e1, PairList& out, std::uint64_t& tests) const {
    pairs_within_runs<kTrack, true>(e0, e1, out, tests);
}
#endif

template <int D>
template <bool kTrack, bool kEightLanes>
void SortedGrid<D>::pairs_within_runs(std::size_t e0, std::size_t e1, PairList& out,
                                      std::uint64_t& tests) const {
    // Cell by cell: every entry of a cell tests the same runs of neighbours (the rest of its
    // own cell, the next one along x and the three cells above in 2D; three runs of three
    // more in 3D), each run split in two where a folded level wraps.
    const std::uint32_t* start = start_.data();
    std::size_t level_index = 0;
    std::size_t c = static_cast<std::size_t>(
        std::upper_bound(start_.begin(), start_.end(), static_cast<std::uint32_t>(e0)) -
        start_.begin() - 1);
    // runs[0]: the rest of the own cell (and the next along x), set for each entry.
    std::array<Run, D == 2 ? 5 : 11> runs;
    for (std::size_t i = e0; i < e1;) {
        while (start[c + 1] <= i) ++c;
        while (c >= levels_[level_index].first_cell + levels_[level_index].cells) ++level_index;
        const Level& level = levels_[level_index];
        const std::size_t w = static_cast<std::size_t>(level.dims[0]);
        const std::size_t slot = c - level.first_cell;
        std::size_t used = 1;
        const auto add = [&](std::size_t from, std::size_t to) {
            if (from < to) runs[used++] = {from, to};
        };
        visit_slots(level, slot + w - 1, 3, add);  // x - 1 .. x + 1, one row up
        if constexpr (D == 3) {
            const std::size_t plane = w * static_cast<std::size_t>(level.dims[1]);
            // and the three rows y - 1 .. y + 1 of the plane above.
            visit_slots(level, slot + plane - w - 1, 3, add);
            visit_slots(level, slot + plane - 1, 3, add);
            visit_slots(level, slot + plane + w - 1, 3, add);
        }
        const std::size_t own_end = start[c + 1];
        const std::size_t cell_end = std::min<std::size_t>(own_end, e1);
        // The rest of the own cell and the next cell along x are one run, unless the fold
        // wraps between them.
        std::size_t own_to = own_end;
        visit_slots(level, slot + 1, 1, [&](std::size_t from, std::size_t to) {
            if (from == own_end) {
                own_to = to;
            } else {
                add(from, to);
            }
        });
        for (; i < cell_end; ++i) {
            runs[0] = {i + 1, own_to};
            if constexpr (kEightLanes) {
                test_runs_avx2<kTrack>(i, std::span(runs.data(), used), out, tests);
            } else {
                const Probe p = probe(i);
                for (std::size_t r = 0; r < used; ++r)
                    test_run<kTrack>(p, runs[r].first, runs[r].second, out, tests);
            }
        }
    }
}

template <int D>
template <typename Fn>
void SortedGrid<D>::for_each_run(const Level& level, const Aabb<D>& box, Runs& slots,
                                 const Fn& visit) const {
    Cell lo, hi;
    double footprint = 1;
    for (int k = 0; k < D; ++k) {
        lo[k] = axis_cell(level, box.lo[k] - level.cell, k);
        hi[k] = axis_cell(level, box.hi[k], k);
        footprint *= double(hi[k] - lo[k] + 1);
    }
    const std::size_t base = level.first_cell;
    if (footprint >= double(level.cells)) {
        visit_slots(level, 0, level.cells, visit);  // every slot once
        return;
    }
    const auto count = static_cast<std::size_t>(hi[0] - lo[0] + 1);
    // Rows far apart in a folded level can share slots: then the runs are merged first, so
    // that no slot (and no pair) is visited twice.
    std::int64_t span = hi[D - 1] - lo[D - 1];
    for (int k = D - 2; k >= 0; --k) span = span * level.dims[k] + hi[k] - lo[k];
    const bool merge = level.folded && span + 1 >= static_cast<std::int64_t>(level.cells);
    slots.clear();
    Cell c = lo;
    for (;;) {
        c[0] = lo[0];
        const std::size_t first = cell_index(level, c) - base;
        if (merge) {
            const std::size_t end = first + count;
            if (end <= level.cells) {
                slots.push_back({first, end});
            } else {
                slots.push_back({first, level.cells});
                slots.push_back({0, end - level.cells});
            }
        } else {
            visit_slots(level, first, count, visit);
        }
        int k = 1;
        while (k < D && ++c[k] > hi[k]) c[k] = lo[k], ++k;
        if (k == D) break;
    }
    if (!merge) return;
    std::sort(slots.begin(), slots.end());
    std::size_t from = slots[0].first, to = slots[0].second;
    for (const auto& [a, b] : slots) {
        if (a > to) {
            visit(start_[base + from], start_[base + to]);
            from = a;
        }
        to = std::max(to, b);
    }
    visit(start_[base + from], start_[base + to]);
}

template <int D>
void SortedGrid<D>::pairs_across(std::size_t e0, std::size_t e1, PairList& out,
                                 std::uint64_t& tests) const {
    const bool track = costs_.on();
    Runs slots;  // for_each_run's scratch, one per chunk
#if defined(COLLIDE_AVX2_PATH)
    if (eight_lanes()) {
        Runs runs;
        for (std::size_t i = e0; i < e1; ++i) {
            runs.clear();
            const Aabb<D> box = entry_box(i);
            for (std::uint32_t scans = levels_[level_of_[ids_[i]]].scans; scans != 0;
                 scans &= scans - 1) {
                for_each_run(levels_[std::countr_zero(scans)], box, slots,
                             [&](std::size_t from, std::size_t to) {
                                 runs.push_back({from, to});
                             });
            }
            if (track) {
                test_runs_avx2<true>(i, runs, out, tests);
            } else {
                test_runs_avx2<false>(i, runs, out, tests);
            }
        }
        return;
    }
#endif
    for (std::size_t i = e0; i < e1; ++i) {
        const Probe p = probe(i);
        for (std::uint32_t scans = levels_[level_of_[p.id]].scans; scans != 0; scans &= scans - 1) {
            for_each_run(levels_[std::countr_zero(scans)], p.box, slots,
                         [&](std::size_t from, std::size_t to) {
                             if (track) {
                                 test_run<true>(p, from, to, out, tests);
                             } else {
                                 test_run<false>(p, from, to, out, tests);
                             }
                         });
        }
    }
}

template <int D>
void SortedGrid<D>::update_whole(std::span<const Aabb<D>> boxes,
                                 std::span<const std::uint8_t> is_static, PairList& out) {
    out.clear();
    parts_ = parts_for(boxes.size());
    choose_levels(boxes);
    size_grids();
    choose_scans();
    const std::size_t n = boxes.size();
    costs_.reset(n);
    // On one thread the sort sweeps most chunks itself, each right after its entries are
    // placed, while they are in cache (at 1M, 2D uniform: 10% less memory traffic a frame).
    const bool serial = !parallel() || threads_allowed() == 1;
    within_.begin_from_back(n, kEntriesPerChunk, serial, out);
    sort_bodies(boxes, is_static, serial);
    // The entries of the levels that scan others, a contiguous range (levels sort in order).
    std::size_t first = n, last = 0;
    for (const Level& level : levels_) {
        if (level.scans == 0) continue;
        first = std::min<std::size_t>(first, start_[level.first_cell]);
        last = start_[level.first_cell + level.cells];
    }
    const auto across = [this, first](std::size_t b, std::size_t e, PairList& p, std::uint64_t& t) {
        pairs_across(first + b, first + e, p, t);
    };
    within_.finish(sweep_within(), out);
    across_.run(parallel(), last > first ? last - first : 0, kEntriesPerChunk / 8, across, out);
    this->validate_in_debug();
}

template <int D>
void SortedGrid<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                           QueryTrace<D>* /*trace*/) const {
    out.clear();
    Runs slots;
    for (const Level& level : levels_) {
        if (level.bodies == 0) continue;
        for_each_run(level, region, slots, [&](std::size_t from, std::size_t to) {
            for (std::size_t e = from; e < to; ++e) {
                if (overlaps(e, region)) out.push_back(ids_[e]);
            }
        });
    }
}

template <int D>
Aabb<D> SortedGrid<D>::cell_box(const Level& level, const Cell& c) const {
    Aabb<D> b;
    for (int k = 0; k < D; ++k) {
        b.lo[k] = level.origin[k] + static_cast<float>(c[k]) * level.cell;
        b.hi[k] = b.lo[k] + level.cell;
    }
    return b;
}

template <int D>
BroadPhaseStats SortedGrid<D>::stats() const {
    std::size_t bytes =
        (order_.capacity() + keys_.capacity() + ids_.capacity() + start_.capacity()) * 4 +
        static_.capacity() + level_of_.capacity() + sample_.capacity() * 4 + within_.bytes() +
        across_.bytes() + levels_.capacity() * sizeof(Level);
    for (int a = 0; a < D; ++a) bytes += (lo_[a].capacity() + hi_[a].capacity()) * 4;
    for (const auto& strays : strays_) bytes += strays.capacity() * 4;
    return {.candidate_tests = within_.tests() + across_.tests(),
            .structure_bytes = bytes,
            .nodes = occupied_,
            .depth = static_cast<int>(std::count_if(levels_.begin(), levels_.end(),
                                                    [](const Level& l) { return l.bodies > 0; }))};
}

// The levels' layout (consecutive slices of the cell numbering; a folded level's odd rows
// and reach under half its slots), the cell table (a partition of the entries, each in the
// cell of its lower corner at the level its size picks, inside the padding), each body
// once, the bodies per level, and each pair of occupied levels scanned from one side only.
template <int D>
void SortedGrid<D>::validate() const {
    const InvariantFail fail("sorted-grid");
    const std::size_t n = ids_.size();
    if (levels_.empty()) {  // no update yet
        if (n != 0) fail(str(n) + " entries but no levels");
        return;
    }
    if (levels_.size() != kMaxLevels) fail(str(levels_.size()) + " levels, not " + str(kMaxLevels));
    if (level_of_.size() != n || static_.size() != n)
        fail(str(n) + " entries but " + str(level_of_.size()) + " levels of bodies and " +
             str(static_.size()) + " static flags");
    for (int a = 0; a < D; ++a) {
        if (lo_[a].size() != n + kPad || hi_[a].size() != n + kPad)
            fail("axis " + str(a) + "'s bounds hold " + str(lo_[a].size()) + " and " +
                 str(hi_[a].size()) + " floats for " + str(n) + " entries (+" + str(kPad) + ")");
    }
    std::size_t total = 0;
    for (int k = 0; k < kMaxLevels; ++k) {
        const Level& l = levels_[k];
        const auto name = [&] { return "level " + str(k); };
        if (l.first_cell != total)
            fail(name() + " starts at cell " + str(l.first_cell) + ", not " + str(total));
        if (l.bodies == 0) {
            if (l.cells != 0 || l.scans != 0)
                fail(name() + " has no bodies but " + str(l.cells) + " cells, scans " +
                     str(l.scans));
            continue;
        }
        if (!(l.cell > 0.0f)) fail(name() + " has cell side " + str(l.cell));
        // Memory stays linear in n: a few slots per body (a fold rounds up to a power of 2).
        const double limit = std::max(kCellsPerBody * l.bodies, kMinCells);
        if (double(l.cells) >= 2.0 * limit)
            fail(name() + " has " + str(l.cells) + " cells for " + str(l.bodies) + " bodies");
        if (l.folded) {
            // Odd rows spread a line over all slots; the farthest forward neighbour under
            // half the slots keeps two neighbour offsets from meeting modulo the slots.
            if (!std::has_single_bit(l.cells))
                fail(name() + " is folded into " + str(l.cells) + " slots, not a power of 2");
            double reach = 2;
            for (int a = 0; a + 1 < D; ++a) {
                if (l.dims[a] % 2 == 0)
                    fail(name() + " is folded with an even length " + str(l.dims[a]) + " on axis " +
                         str(a));
                reach = reach * double(l.dims[a]) + 1;
            }
            if (!(2.0 * reach < double(l.cells)))
                fail(name() + " is folded into " + str(l.cells) + " slots, but its forward " +
                     "neighbours reach " + str(reach));
        } else {
            double cells = 1;
            for (int a = 0; a < D; ++a) cells *= double(l.dims[a]);
            if (cells != double(l.cells))
                fail(name() + " has " + str(l.cells) + " cells but its dims make " + str(cells));
        }
        total += l.cells;
    }
    if (start_.size() != total + 1)
        fail("the cell table has " + str(start_.size()) + " ends for " + str(total) + " cells");
    if (start_[0] != 0 || start_[total] != n)
        fail("the cell table runs from " + str(start_[0]) + " to " + str(start_[total]) +
             ", not over the " + str(n) + " entries");
    // The level each body's size picks: the first whose nominal side (before size_grids()
    // coarsens it) holds its box, as choose_levels() computes it.
    std::array<float, kMaxLevels> nominal;
    for (int k = 0; k < kMaxLevels; ++k)
        nominal[k] = base_cell_ * std::pow(kLevelRatio, static_cast<float>(k));
    std::array<std::uint32_t, kMaxLevels> bodies{};
    std::vector<std::uint8_t> seen(n, 0);
    std::size_t occupied = 0;
    int k = 0;  // the level of cell c
    for (std::size_t c = 0; c < total; ++c) {
        if (start_[c] > start_[c + 1] || start_[c + 1] > n)
            fail("cell " + str(c) + " runs from entry " + str(start_[c]) + " to " +
                 str(start_[c + 1]) + " of " + str(n));
        while (c >= levels_[k].first_cell + levels_[k].cells) ++k;
        const Level& l = levels_[k];
        occupied += start_[c] < start_[c + 1];
        for (std::size_t e = start_[c]; e < start_[c + 1]; ++e) {
            const BodyId id = ids_[e];
            const auto entry = [&] { return "entry " + str(e) + " (body " + str(id) + ")"; };
            if (id >= n || seen[id]) fail(entry() + " is out of range or a second one");
            seen[id] = 1;
            const Aabb<D> box = entry_box(e);
            const float side = box.largest_side();
            int want = 0;
            while (side > nominal[want] && want + 1 < kMaxLevels) ++want;
            if (level_of_[id] != k || want != k)
                fail(entry() + " is in level " + str(k) + " and marked level " +
                     str(int(level_of_[id])) + ", but its size " + str(side) + " gives level " +
                     str(want));
            // The pairs rely on it: a box no larger than its cell.
            if (side > l.cell)
                fail(entry() + " has size " + str(side) + " beyond its level's cell " +
                     str(l.cell));
            ++bodies[k];
            if (!l.lows.contains(box.lo))
                fail(entry() + "'s lower corner is outside level " + str(k) + "'s bounds of them");
            const Cell at = cell_of(l, box.lo);
            const std::size_t key = cell_index(l, at);
            if (key != c)
                fail(entry() + " is in cell " + str(c) + " but its box gives cell " + str(key));
            // The padding: forward runs never wrap onto bodies. A NaN or infinite corner, or
            // any corner in a level whose cell an infinite side made infinite, is clamped to
            // an edge column (axis_cell): such bodies' pairs are not defined.
            const bool finite_cell = std::isfinite(l.cell);
            for (int a = 0; a < D; ++a) {
                if (finite_cell && std::isfinite(box.lo[a]) && (at[a] < 1 || at[a] > l.dims[a] - 2))
                    fail(entry() + " is in column " + str(at[a]) + " of 0.." + str(l.dims[a] - 1) +
                         " on axis " + str(a) + " of level " + str(k) + ", in the padding");
            }
        }
    }
    for (k = 0; k < kMaxLevels; ++k) {
        const Level& l = levels_[k];
        if (bodies[k] != l.bodies)
            fail("level " + str(k) + " counts " + str(l.bodies) + " bodies but holds " +
                 str(bodies[k]));
        // Each pair of occupied levels is scanned from exactly one side, or its pairs
        // would come twice or never.
        for (int j = 0; j < kMaxLevels; ++j) {
            const bool down = (l.scans >> j) & 1u;
            const bool up = (levels_[j].scans >> k) & 1u;
            const bool both = l.bodies > 0 && levels_[j].bodies > 0 && j != k;
            if (both ? j < k && down == up : down)
                fail("level " + str(k) + (down ? " scans" : " does not scan") + " level " + str(j) +
                     (up ? ", which scans it" : ", which does not scan it"));
        }
    }
    if (occupied != occupied_)
        fail(str(occupied) + " occupied cells but stats() says " + str(occupied_));
}

template class SortedGrid<2>;
template class SortedGrid<3>;

}  // namespace collide
