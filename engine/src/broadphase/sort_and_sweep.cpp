#include "broadphase/sort_and_sweep.hpp"

#include <algorithm>
#include <cassert>

#include "broadphase/common/chunked_sweep.hpp"
#include "broadphase/common/nearly_sorted.hpp"
#include "broadphase/common/pair_test.hpp"

namespace collide {

template <int D>
int SortAndSweep<D>::choose_axis(std::span<const Aabb<D>> boxes) const {
    // Variance of the box centres per axis; stay on the current axis unless another is
    // clearly better, so the order is not thrown away for a marginal gain. Accumulated in
    // double around the first centre, so large or offset worlds do not cancel it away.
    if (boxes.empty()) return axis_;
    using DVec = glm::vec<D, double>;
    const DVec origin(boxes[0].center());
    DVec sum(0.0), sum2(0.0);
    for (const Aabb<D>& b : boxes) {
        const DVec c = DVec(b.center()) - origin;
        sum += c;
        sum2 += c * c;
    }
    const double n = static_cast<double>(boxes.size());
    const DVec var = sum2 / n - (sum / n) * (sum / n);
    int best = axis_;
    for (int k = 0; k < D; ++k) {
        if (var[k] > 1.5f * var[best]) best = k;
    }
    return best;
}

template <int D>
void SortAndSweep<D>::sort_entries(std::span<const Aabb<D>> boxes, bool rebuilt) {
    for (Entry& e : entries_) e.lo = boxes[e.id].lo[axis_];
    const auto less = [](const Entry& a, const Entry& b) { return a.lo < b.lo; };
    if (rebuilt || !insertion_sort_within(entries_, 8 * entries_.size() + 1024, less)) {
        std::sort(entries_.begin(), entries_.end(), less);
    }
}

template <int D>
void SortAndSweep<D>::build_and_search(std::span<const Aabb<D>> boxes,
                                       std::span<const std::uint8_t> is_static, PairList& out) {
    const std::size_t n = boxes.size();
    bool rebuilt = false;
    if (entries_.size() != n) {
        entries_.resize(n);
        for (std::size_t i = 0; i < n; ++i) entries_[i].id = BodyId(i);
        rebuilt = true;
    }
    WatchRecorder<D>* watch = this->watch_;
    if (watch) watch->phase("choose the axis");
    const int axis = choose_axis(boxes);
    rebuilt |= axis != axis_;
    axis_ = axis;
    if (watch) watch->phase("sort");
    sort_entries(boxes, rebuilt);

    sorted_.resize(n);
    static_.resize(n);
    extent_ = Aabb<D>::empty();
    for (std::size_t i = 0; i < n; ++i) {
        sorted_[i] = boxes[entries_[i].id];
        static_[i] = is_static[entries_[i].id];
        extent_.grow(sorted_[i]);
    }

    // One instantiation per sweep axis, and one that skips static-static candidates only
    // when there are static bodies.
    const bool any_static = std::find(static_.begin(), static_.end(), 1) != static_.end();
    if (watch) {
        watch->phase("sweep");
        sweep_on_axis<true>(out, any_static);
    } else {
        sweep_on_axis<false>(out, any_static);
    }
}

// Watch mode's sweep is an instantiation of its own, so the timed one has no recorder
// calls in its inner loop (a null test there can change how GCC compiles the loop).
template <int D>
template <bool Watched>
void SortAndSweep<D>::sweep_on_axis(PairList& out, bool any_static) {
    switch (axis_ * 2 + (any_static ? 1 : 0)) {
        case 0: sweep<0, false, Watched>(out); break;
        case 1: sweep<0, true, Watched>(out); break;
        case 2: sweep<1, false, Watched>(out); break;
        case 3: sweep<1, true, Watched>(out); break;
        case 4: sweep<2 % D, false, Watched>(out); break;
        default: sweep<2 % D, true, Watched>(out); break;
    }
}

// The sweep, with the axis known at compile time: the overlap test then skips the sweep
// axis (a box starting inside [lo, hi] overlaps it there) and unrolls.
template <int D>
template <int Axis, bool AnyStatic, bool Watched>
void SortAndSweep<D>::sweep(PairList& out) {
    const std::size_t n = sorted_.size();
    WatchRecorder<D>* const watch = Watched ? this->watch_ : nullptr;
    const auto sweep_rows = [&](std::size_t begin, std::size_t end, PairList& pairs,
                                std::uint64_t& tests) {
        for (std::size_t i = begin; i < end; ++i) {
            const Aabb<D>& a = sorted_[i];
            const float a_end = a.hi[Axis];
            if (watch) watch->cursor(entries_[i].id, Axis, a.lo[Axis]);
            for (std::size_t j = i + 1; j < n && sorted_[j].lo[Axis] <= a_end; ++j) {
                if (AnyStatic && static_[i] && static_[j]) continue;
                ++tests;
                costs_.add_pair(entries_[i].id, entries_[j].id);
                const Aabb<D>& b = sorted_[j];
                constexpr int k1 = (Axis + 1) % D;  // the other axes
                constexpr int k2 = (Axis + 2) % D;
                bool overlap = a.lo[k1] <= b.hi[k1] && b.lo[k1] <= a.hi[k1];
                if constexpr (D == 3)
                    overlap = overlap && a.lo[k2] <= b.hi[k2] && b.lo[k2] <= a.hi[k2];
                watch_test(watch, entries_[i].id, entries_[j].id, overlap);
                if (overlap) pairs.push_back(make_pair(entries_[i].id, entries_[j].id));
            }
        }
    };
    chunks_.run(n, 4096, sweep_rows, out);
}

template <int D>
void SortAndSweep<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                             QueryTrace<D>* /*trace*/) const {
    out.clear();
    // Only boxes that start before the region ends can overlap it.
    const auto end =
        std::upper_bound(sorted_.begin(), sorted_.end(), region.hi[axis_],
                         [this](float v, const Aabb<D>& b) { return v < b.lo[axis_]; });
    for (auto it = sorted_.begin(); it != end; ++it) {
        if (it->overlaps(region)) out.push_back(entries_[it - sorted_.begin()].id);
    }
}

template <int D>
BroadPhaseStats SortAndSweep<D>::stats() const {
    return sorted_sweep_stats(entries_, sorted_, static_, chunks_);
}

// Every body once, each entry's key the lower bound of its box copy on the sweep axis,
// the entries in order of it, and the bounds of the boxes current.
template <int D>
void SortAndSweep<D>::validate() const {
    const InvariantFail fail("sort-and-sweep");
    const std::size_t n = entries_.size();
    if (axis_ < 0 || axis_ >= D) fail("sweep axis " + str(axis_));
    if (sorted_.size() != n || static_.size() != n)
        fail(str(n) + " entries but " + str(sorted_.size()) + " boxes and " + str(static_.size()) +
             " static flags");
    std::vector<std::uint8_t> seen(n, 0);
    Aabb<D> extent = Aabb<D>::empty();
    for (std::size_t i = 0; i < n; ++i) {
        const Entry& e = entries_[i];
        const auto entry = [&] { return "entry " + str(i) + " (body " + str(e.id) + ")"; };
        if (e.id >= n || seen[e.id]) fail(entry() + " is out of range or a second one");
        seen[e.id] = 1;
        if (!same_value(e.lo, sorted_[i].lo[axis_]))
            fail(entry() + " has key " + str(e.lo) + " but its box starts at " +
                 str(sorted_[i].lo[axis_]) + " on axis " + str(axis_));
        if (i > 0 && e.lo < entries_[i - 1].lo)
            fail(entry() + " has key " + str(e.lo) + ", below entry " + str(i - 1) + "'s " +
                 str(entries_[i - 1].lo));
        extent.grow(sorted_[i]);
    }
    if (!same_box(extent, extent_)) fail("the bounds of the boxes are stale");
}

template class SortAndSweep<2>;
template class SortAndSweep<3>;

}  // namespace collide
