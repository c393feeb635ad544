// The sorted grid's pair kernels: each sorted entry tested against runs of entries four at a
// time (SSE2) or eight (AVX2, where the CPU has it), within its level's cell and forward
// neighbours (pairs_within) and across levels (pairs_across). Watch mode records on the
// cost-counting copy, one entry at a time.
#include <algorithm>
#include <array>
#include <bit>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define COLLIDE_AVX2_PATH 1
#endif

#include "broadphase/sorted_grid_cells.hpp"

namespace collide {

template <int D>
bool SortedGrid<D>::eight_lanes() const {
#if defined(COLLIDE_AVX2_PATH)
    static const bool has_avx2 = __builtin_cpu_supports("avx2");
    return has_avx2 && params_[Setting::kAvx2].is_on();
#else
    return false;
#endif
}

template <int D>
template <bool kTrack>
[[gnu::always_inline]] inline void SortedGrid<D>::test_run(const Probe& p, std::size_t from,
                                                           std::size_t to, PairList& out,
                                                           std::uint64_t& tests,
                                                           WatchRecorder<D>* watch) const {
    tests += to - from;
    const BodyId* ids = ids_.data();
    const std::uint8_t* fixed_of = static_.data();
    const auto emit = [&](std::size_t e) {
        if (!(p.fixed && fixed_of[e])) out.push_back(make_pair(p.id, ids[e]));
    };
    if constexpr (kTrack) {
        for (std::size_t e = from; e < to; ++e) costs_.add_pair(p.id, ids[e]);
        // Watch mode: one entry at a time, each test recorded (the same test as the lanes').
        if (watch) {
            for (std::size_t e = from; e < to; ++e) {
                const bool hit = overlaps(e, p.box);
                watch->test(p.id, ids[e], hit);
                if (hit && !(p.fixed && fixed_of[e])) {
                    out.push_back(make_pair(p.id, ids[e]));
                    watch->emit(p.id, ids[e]);
                }
            }
            return;
        }
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

// Inline: pairs_within_runs makes one for every entry, and GCC left the call in once this
// moved to a source of its own.
template <int D>
inline typename SortedGrid<D>::Probe SortedGrid<D>::probe(std::size_t e) const {
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
    // Two copies of the loop, so the timed path has no cost counting in it at all. Watch mode
    // takes the counting copy, never eight lanes: test_run records each test there, one entry
    // at a time.
    const bool watching = this->watch_ != nullptr;
    const bool track = costs_.on() || watching;
#if defined(COLLIDE_AVX2_PATH)
    if (eight_lanes() && !watching) {
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
    // Watch mode's recorder: on the counting copy only (pairs_within never picks eight lanes
    // with it).
    WatchRecorder<D>* const watch = kTrack && !kEightLanes ? this->watch_ : nullptr;
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
        if constexpr (kTrack && !kEightLanes) {
            if (watch) watch_runs(*watch, level, entry_box(i).lo);
        }
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
                if constexpr (kTrack) {
                    if (watch) watch->cursor(p.id, 0, p.box.lo[0]);
                }
                for (std::size_t r = 0; r < used; ++r)
                    test_run<kTrack>(p, runs[r].first, runs[r].second, out, tests, watch);
            }
        }
    }
}

template <int D>
void SortedGrid<D>::pairs_across(std::size_t e0, std::size_t e1, PairList& out,
                                 std::uint64_t& tests) const {
    // Watch mode takes the loop below, never eight lanes: test_run records each test there.
    WatchRecorder<D>* const watch = this->watch_;
    const bool track = costs_.on() || watch != nullptr;
    Runs slots;  // for_each_run's scratch, one per chunk
#if defined(COLLIDE_AVX2_PATH)
    if (eight_lanes() && watch == nullptr) {
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
        if (watch) watch->cursor(p.id, 0, p.box.lo[0]);
        for (std::uint32_t scans = levels_[level_of_[p.id]].scans; scans != 0; scans &= scans - 1) {
            const Level& level = levels_[std::countr_zero(scans)];
            if (watch) watch->visit(reach_box(level, p.box));
            for_each_run(level, p.box, slots, [&](std::size_t from, std::size_t to) {
                if (track) {
                    test_run<true>(p, from, to, out, tests, watch);
                } else {
                    test_run<false>(p, from, to, out, tests);
                }
            });
        }
    }
}

template <int D>
Aabb<D> SortedGrid<D>::cells_box(const Level& level, Cell lo, Cell hi) const {
    Aabb<D> b = cell_box(level, lo);
    b.grow(cell_box(level, hi));
    return b;
}

template <int D>
Aabb<D> SortedGrid<D>::reach_box(const Level& level, const Aabb<D>& box) const {
    // The cells for_each_run visits: from the box's lower corner less a cell to its upper.
    Cell lo, hi;
    for (int k = 0; k < D; ++k) {
        lo[k] = axis_cell(level, box.lo[k] - level.cell, k);
        hi[k] = axis_cell(level, box.hi[k], k);
    }
    return cells_box(level, lo, hi);
}

template <int D>
void SortedGrid<D>::watch_runs(WatchRecorder<D>& watch, const Level& level,
                               const Vec<D>& lower) const {
    // In cells about the lower corner's: the rest of its own and the next along x, then the
    // row above (x - 1 .. x + 1), and in 3D the three rows of the plane above. In a folded
    // level the runs' slots are shared with far cells, whose bodies are tested too.
    const Cell c = cell_of(level, lower);
    const auto run = [&](std::int64_t x0, std::int64_t x1, std::int64_t dy, std::int64_t dz) {
        Cell lo = c, hi = c;
        lo[0] += x0;
        hi[0] += x1;
        lo[1] += dy;
        hi[1] += dy;
        if constexpr (D == 3) {
            lo[2] += dz;
            hi[2] += dz;
        }
        watch.visit(cells_box(level, lo, hi));
    };
    run(0, 1, 0, 0);
    run(-1, 1, 1, 0);
    if constexpr (D == 3) {
        for (std::int64_t dy = -1; dy <= 1; ++dy) run(-1, 1, dy, 1);
    }
}

// The members defined here; the class itself is instantiated in sorted_grid.cpp.
template bool SortedGrid<2>::eight_lanes() const;
template void SortedGrid<2>::pairs_within(std::size_t, std::size_t, PairList&,
                                          std::uint64_t&) const;
template void SortedGrid<2>::pairs_across(std::size_t, std::size_t, PairList&,
                                          std::uint64_t&) const;
template bool SortedGrid<3>::eight_lanes() const;
template void SortedGrid<3>::pairs_within(std::size_t, std::size_t, PairList&,
                                          std::uint64_t&) const;
template void SortedGrid<3>::pairs_across(std::size_t, std::size_t, PairList&,
                                          std::uint64_t&) const;

}  // namespace collide
