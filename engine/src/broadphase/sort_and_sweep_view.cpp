// Sort and sweep as the viewer sees it: the sorted intervals on the sweep axis, drawn in a strip
// under the world.
#include "broadphase/sort_and_sweep.hpp"

#include <algorithm>
#include <cassert>
#include <sstream>

namespace collide {

template <int D>
void SortAndSweep<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    if (!which.flags.structure || sorted_.empty()) return;
    // The sorted intervals, drawn in a strip under the bodies: rank r goes to row r % rows,
    // coloured by rank, so the sort order reads as a gradient along the axis.
    const int other = (axis_ + 1) % D;
    const float span = std::max(extent_.hi[other] - extent_.lo[other], 1e-6f);
    constexpr int kRows = 24;
    const float row_height = 0.1f * span / kRows;
    const float base = extent_.lo[other] - 0.02f * span;
    const std::size_t n = sorted_.size();

    const std::size_t selected_rank = rank_of(which.selected);
    const std::size_t visited_end = window_end(selected_rank);

    auto at = [&](float along, float row_offset) {
        Vec<D> p = extent_.lo;
        p[axis_] = along;
        p[other] = base - row_offset;
        return p;
    };
    // Axis line with the direction of the sweep.
    draw.line(at(extent_.lo[axis_], 0.0f), at(extent_.hi[axis_], 0.0f), rgba(1, 1, 1, 0.6f));
    for (std::size_t i = 0; i < n && !draw.full(); ++i) {
        const Aabb<D>& b = sorted_[i];
        if (b.hi[axis_] < draw.view.lo[axis_] || b.lo[axis_] > draw.view.hi[axis_]) continue;
        const float y = row_height * static_cast<float>(1 + i % kRows);
        const bool visited = selected_rank < n && i > selected_rank && i <= visited_end;
        Color c = ramp_color(static_cast<float>(i) / static_cast<float>(n), 0.8f);
        if (i == selected_rank)
            c = rgba(1, 1, 1);
        else if (visited)
            c = rgba(1.0f, 0.4f, 1.0f);
        else if (selected_rank < n)
            c = (c & 0x00FFFFFFu) | 0x50000000u;  // dim the rest
        draw.line(at(b.lo[axis_], y), at(b.hi[axis_], y), c);
    }
    if (selected_rank < n) {
        // The sweep window of the selected body: everything starting in [lo, hi] is tested.
        const Aabb<D>& s = sorted_[selected_rank];
        for (float v : {s.lo[axis_], s.hi[axis_]}) {
            Vec<D> a = extent_.lo, b = extent_.hi;
            a[axis_] = b[axis_] = v;
            a[other] = base - row_height * (kRows + 1);
            for (int k = 0; k < D; ++k) {
                if (k != axis_ && k != other) b[k] = a[k];
            }
            draw.line(a, b, rgba(1.0f, 0.4f, 1.0f, 0.8f));
        }
    }
}

template <int D>
std::size_t SortAndSweep<D>::rank_of(BodyId id) const {
    for (std::size_t i = 0; i < entries_.size() && id != kNoBody; ++i) {
        if (entries_[i].id == id) return i;
    }
    return entries_.size();
}

template <int D>
std::size_t SortAndSweep<D>::window_end(std::size_t rank) const {
    if (rank >= sorted_.size()) return rank;
    std::size_t end = rank;
    const float hi = sorted_[rank].hi[axis_];
    while (end + 1 < sorted_.size() && sorted_[end + 1].lo[axis_] <= hi) ++end;
    return end;
}

template <int D>
std::string SortAndSweep<D>::describe(BodyId id) const {
    const std::size_t rank = rank_of(id);
    if (rank >= sorted_.size()) return {};
    const Aabb<D>& box = sorted_[rank];
    std::ostringstream s;
    s << "Interval on " << "xyz"[axis_] << ": [" << box.lo[axis_] << ", " << box.hi[axis_]
      << "]\nRank " << rank << " of " << sorted_.size() << " by its start\n"
      << "Tested against the " << window_end(rank) - rank
      << " intervals that start inside it";
    return s.str();
}

template <int D>
WatchScript SortAndSweep<D>::watch_script() const {
    return {{"axis = where the box centres spread most",
             "  (kept unless another spreads 1.5x more)",
             "sort the boxes by their low end on axis",
             "  (insertion sort: last order nearly holds;",
             "   a full sort when the axis changed)",
             "cut the sorted rows into chunks of 4096",
             "for each box a, in that order:",
             "  for each later b starting before a ends:",
             "    skip (a, b) if both are static",
             "    test a against b on the other axes",
             "    if they overlap: report (a, b)",
             "join the chunks' pairs in chunk order"},
            {{WatchStep::kPhase, "choose the axis", 0},
             {WatchStep::kPhase, "sort", 2},
             {WatchStep::kPhase, "sweep", 5},
             {WatchStep::kCursor, nullptr, 6},
             {WatchStep::kTest, nullptr, 9},
             {WatchStep::kEmit, nullptr, 10}},
            true};
}

// The members defined here; the class itself is instantiated in sort_and_sweep.cpp.
template void SortAndSweep<2>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template void SortAndSweep<3>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template std::string SortAndSweep<2>::describe(BodyId) const;
template std::string SortAndSweep<3>::describe(BodyId) const;
template WatchScript SortAndSweep<2>::watch_script() const;
template WatchScript SortAndSweep<3>::watch_script() const;

}  // namespace collide
