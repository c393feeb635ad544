#include "broadphase/zorder_sweep.hpp"

#include <algorithm>
#include <cassert>
#include <type_traits>

#include <tbb/parallel_sort.h>

namespace collide {

template <int D, typename Key>
void KeySweep<D, Key>::update(std::span<const Aabb<D>> boxes,
                              std::span<const std::uint8_t> is_static, PairList& out) {
    out.clear();
    assert(is_static.size() == boxes.size());
    const std::size_t n = boxes.size();
    bool rebuilt = frame_.refit(boxes) || !persistent();
    if (entries_.size() != n) {
        entries_.resize(n);
        for (std::size_t i = 0; i < n; ++i) entries_[i].id = BodyId(i);
        rebuilt = true;
    }
    for (Entry& e : entries_) {
        const Aabb<D>& b = boxes[e.id];
        e.lo_key = Key::template key<D>(frame_(b.lo));
        e.hi_key = Key::template key<D>(frame_(b.hi));
    }
    // Last frame's order is nearly right when bodies move little: insertion sort repairs it.
    const auto less = [](const Entry& a, const Entry& b) { return a.lo_key < b.lo_key; };
    if (rebuilt || !insertion_sort_within(entries_, 8 * n + 1024, less)) {
        if (parallel_sort()) {
            tbb::parallel_sort(entries_.begin(), entries_.end(), less);
        } else {
            std::sort(entries_.begin(), entries_.end(), less);
        }
    }

    sorted_.resize(n);
    static_.resize(n);
    max_size_ = Vec<D>(0.0f);
    for (std::size_t i = 0; i < n; ++i) {
        sorted_[i] = boxes[entries_[i].id];
        static_[i] = is_static[entries_[i].id];
        max_size_ = glm::max(max_size_, sorted_[i].size());
    }

    const auto sweep_rows = [&](std::size_t begin, std::size_t end, PairList& pairs,
                                std::uint64_t& tests) {
        for (std::size_t i = begin; i < end; ++i) {
            const Aabb<D>& a = sorted_[i];
            const std::uint64_t stop = entries_[i].hi_key;
            for (std::size_t j = i + 1; j < n && entries_[j].lo_key <= stop; ++j) {
                if (static_[i] && static_[j]) continue;
                ++tests;
                if (a.overlaps(sorted_[j])) {
                    pairs.push_back(make_pair(entries_[i].id, entries_[j].id));
                }
            }
        }
    };
    chunks_.run(n, 4096, sweep_rows, out);
}

template <int D, typename Key>
void KeySweep<D, Key>::query(const Aabb<D>& region, std::vector<BodyId>& out,
                      QueryTrace<D>* trace) const {
    out.clear();
    // A box overlapping the region has its min corner in [region.lo - max size, region.hi],
    // so its key lies between the keys of those two corners.
    const std::uint64_t first = Key::template key<D>(frame_(region.lo - max_size_));
    const std::uint64_t last = Key::template key<D>(frame_(region.hi));
    auto it = std::lower_bound(entries_.begin(), entries_.end(), first,
                               [](const Entry& e, std::uint64_t k) { return e.lo_key < k; });
    for (; it != entries_.end() && it->lo_key <= last; ++it) {
        const Aabb<D>& box = sorted_[it - entries_.begin()];
        if (box.overlaps(region)) {
            out.push_back(it->id);
        } else if (trace) {
            trace->add(box, TraceKind::kRejected);
        }
    }
}

template <int D, typename Key>
BroadPhaseStats KeySweep<D, Key>::stats() const {
    return sorted_sweep_stats(entries_, sorted_, static_, chunks_);
}

template class KeySweep<2, MortonKey>;
template class KeySweep<3, MortonKey>;
template class KeySweep<2, NormKey>;
template class KeySweep<3, NormKey>;

}  // namespace collide
