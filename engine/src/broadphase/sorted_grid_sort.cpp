// The sorted grid's sort: a counting sort of the bodies by (level, cell) in five phases (the
// keys, each part's count of its own keys, the strays', the sums, the scatter), then the
// choice of the levels folded next frame from the cells the sort found occupied.
#include <algorithm>
#include <array>
#include <cassert>
#include <numeric>

#include "broadphase/common/gather_prefetch.hpp"
#include "broadphase/sorted_grid_cells.hpp"
#include "broadphase/sorted_grid_parts.hpp"

namespace collide {

using sorted_grid::cut;
using sorted_grid::for_each_part;

namespace {

constexpr std::uint32_t kCrowded = 4;
// The one-part scatter sweeps the final chunks after each block of this many inputs.
constexpr std::size_t kFinalBlock = 4096;

}  // namespace

// What each phase of the sort hands on to the next.
template <int D>
struct SortedGrid<D>::SortPass {
    std::size_t n = 0;
    // In one part every key is the part's own, so the keys are counted as they are made,
    // not read again from memory for it (at 1M, 4 bytes a body less to read).
    bool one_part = true;
    // Each part's cells [first[p], first[p + 1]).
    std::array<std::size_t, kMaxParts + 1> first{};
    // Each part's keys, and its occupied cells per level.
    std::array<std::uint32_t, kMaxParts> counted{};
    std::array<std::array<std::uint32_t, kMaxLevels>, kMaxParts> occupied_of{};
};

// A counting sort by global cell whose input is last frame's order: while bodies keep their
// cells, the scatter writes nearly in sequence. In parallel, each part of the cells
// (cut where last frame's order puts equal shares of the bodies) is counted, summed and
// filled by one thread that reads all the keys and keeps its own: no atomics, no merging.
template <int D>
void SortedGrid<D>::sort_bodies(std::span<const Aabb<D>> boxes,
                                std::span<const std::uint8_t> is_static, bool sweep_as_placed) {
    SortPass pass;
    pass.n = boxes.size();
    pass.one_part = parts_ == 1;
    // The scatter then sweeps each chunk of entries as soon as its cells are final.
    assert(!sweep_as_placed || pass.one_part);
    make_keys(boxes, pass, sweep_as_placed);
    count_keys(pass);
    count_strays(pass);
    sum_counts(pass);
    scatter(boxes, is_static, pass, sweep_as_placed);
    choose_folds(pass);
}

// Each body's key, its global cell, in last frame's sorted order.
template <int D>
void SortedGrid<D>::make_keys(std::span<const Aabb<D>> boxes, SortPass& pass,
                              bool sweep_as_placed) {
    const std::size_t n = pass.n;
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
    // Prefetched (gather_prefetch.hpp): 3-9% off the sorted grid at 1M (2D and 3D uniform,
    // 1 and 2 threads), nothing measurable at 100k.
    // Each phase's pass reads these pointers from copies of its own, which the compiler can
    // keep in registers: through the lambdas' references, every store that may alias them
    // (a byte, a vector's growth) would load them again.
    const bool one_part = pass.one_part;
    // With sweep_as_placed, key_bound_[b] is one past the largest key of the inputs before
    // block b.
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
}

// Each part counts the keys in its cells. Last frame's order leaves the keys nearly sorted,
// so most of a part's keys lie in its own slice of the input; the few that do not (strays:
// bodies that crossed into another part's cells) are listed, and each part then takes the
// strays aimed at it (count_strays). A part reads about n / parts keys, not all n.
template <int D>
void SortedGrid<D>::count_keys(SortPass& pass) {
    const std::size_t n = pass.n;
    const std::uint32_t* keys = keys_.data();
    std::uint32_t* start = start_.data();
    const std::size_t cells = start_.size() - 1;
    std::array<std::size_t, kMaxParts + 1>& first = pass.first;
    first[parts_] = cells;
    for (std::size_t p = 1; p < parts_; ++p)
        first[p] = std::clamp<std::size_t>(keys[cut(n, parts_, p)], first[p - 1], cells);
    std::array<std::uint32_t, kMaxParts>& counted = pass.counted;
    if (pass.one_part) {
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
}

template <int D>
void SortedGrid<D>::count_strays(SortPass& pass) {
    const std::uint32_t* keys = keys_.data();
    std::uint32_t* start = start_.data();
    const std::array<std::size_t, kMaxParts + 1>& first = pass.first;
    std::array<std::uint32_t, kMaxParts>& counted = pass.counted;
    for_each_part(parts_, [&](std::size_t p) {  // after every part listed its strays
        const std::size_t lo = first[p], span = first[p + 1] - lo;
        for (std::size_t q = 0; q < parts_; ++q) {
            if (q == p) continue;
            for (const std::uint32_t k : strays_[q]) {
                if (keys[k] - lo < span) ++start[keys[k]], ++counted[p];
            }
        }
    });
}

// Counts to cell ends (each part after those before it), and the occupied cells.
template <int D>
void SortedGrid<D>::sum_counts(SortPass& pass) {
    std::uint32_t* start = start_.data();
    const std::size_t cells = start_.size() - 1;
    const std::array<std::size_t, kMaxParts + 1>& first = pass.first;
    const std::array<std::uint32_t, kMaxParts>& counted = pass.counted;
    auto& occupied_of = pass.occupied_of;
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
    start[cells] = static_cast<std::uint32_t>(pass.n);
}

template <int D>
void SortedGrid<D>::scatter(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                            const SortPass& pass, bool sweep_as_placed) {
    const std::size_t n = pass.n;
    const BodyId* order = order_.data();
    const std::uint32_t* keys = keys_.data();
    std::uint32_t* start = start_.data();
    const std::array<std::size_t, kMaxParts + 1>& first = pass.first;
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
    // Watch mode: each body placed in the cell of its lower corner, in its level, in the order
    // the scatter placed them. A recorded update sorts in one part and sweeps after the sort
    // (build_and_search), so that order is the input's from the back. Told after the scatter,
    // not from place(): in place() the check cost 11 instructions a body on the timed path.
    if (WatchRecorder<D>* const watch = this->watch_) {
        assert(parts_ == 1 && !sweep_as_placed);
        for (std::size_t k = n; k-- > 0;) {
            const BodyId id = order[k];
            const Level& level = levels_[level_of_[id]];
            watch->place(id, cell_box(level, cell_of(level, boxes[id].lo)));
        }
    }
}

// A level whose bodies crowd into few cells (more than kCrowded a cell on average) is
// folded from the next frame on, until its number of bodies changes much.
template <int D>
void SortedGrid<D>::choose_folds(const SortPass& pass) {
    const auto& occupied_of = pass.occupied_of;
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

// The members defined here; the class itself is instantiated in sorted_grid.cpp.
template void SortedGrid<2>::sort_bodies(std::span<const Aabb<2>>, std::span<const std::uint8_t>,
                                         bool);
template void SortedGrid<2>::sweep_final_entries(std::size_t);
template void SortedGrid<3>::sort_bodies(std::span<const Aabb<3>>, std::span<const std::uint8_t>,
                                         bool);
template void SortedGrid<3>::sweep_final_entries(std::size_t);

}  // namespace collide
