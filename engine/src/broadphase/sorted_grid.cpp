// The sorted grid's frame: the level policy (sorted_grid_policy.cpp), the sort
// (sorted_grid_sort.cpp), then the pair kernels (sorted_grid_kernels.cpp) over its entries;
// and the search and stats over what they built.
#include "broadphase/sorted_grid.hpp"

#include <algorithm>

#include "broadphase/sorted_grid_cells.hpp"

namespace collide {

namespace {

constexpr std::size_t kEntriesPerChunk = 8192;

}  // namespace

template <int D>
std::size_t SortedGrid<D>::parts_for(std::size_t n) const {
    if (!parallel() || n < kParallelFrom) return 1;
    return std::clamp<std::size_t>(threads_allowed(), 1, kMaxParts);
}

template <int D>
void SortedGrid<D>::build_and_search(std::span<const Aabb<D>> boxes,
                                     std::span<const std::uint8_t> is_static, PairList& out) {
    WatchRecorder<D>* const watch = this->watch_;
    if (watch) watch->phase("choose levels");
    parts_ = parts_for(boxes.size());
    choose_levels(boxes);
    size_grids();
    choose_scans();
    const std::size_t n = boxes.size();
    // On one thread the sort sweeps most chunks itself, each right after its entries are
    // placed, while they are in cache (at 1M, 2D uniform: 10% less memory traffic a frame).
    // Watch mode sweeps them after the sort, as on several threads, so that its recording
    // places every body before the sweep (the same chunks, tests and pairs; under 4,096
    // bodies, one block, the order is the same too).
    const bool serial = (!parallel() || threads_allowed() == 1) && watch == nullptr;
    within_.begin_from_back(n, kEntriesPerChunk, serial, out);
    if (watch) watch->phase("place bodies in cells");
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
    if (watch) watch->phase("forward neighbour runs");
    within_.finish(sweep_within(), out);
    if (watch) watch->phase("across levels");
    across_.run(parallel(), last > first ? last - first : 0, kEntriesPerChunk / 8, across, out);
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

template class SortedGrid<2>;
template class SortedGrid<3>;

}  // namespace collide
