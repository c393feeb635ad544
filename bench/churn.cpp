#include "churn.hpp"

#include <algorithm>
#include <cmath>

namespace collide::bench {

template <int D>
Churn<D>::Churn(double share, std::vector<std::uint8_t> still, std::uint64_t seed)
    : per_frame_(static_cast<std::size_t>(std::llround(share * static_cast<double>(still.size())))),
      still_(std::move(still)),
      present_(still_.size(), 1),
      in_moving_(still_.size(), 0),
      back_at_(still_.size(), -1),
      rng_(seed ^ 0xc4u) {}

template <int D>
void Churn<D>::leave(BodyId id) {
    present_[id] = 0;
    if (still_[id]) {
        left_.push_back(id);
        return;
    }
    // Swap-remove: the moving list's order is free (BodyChanges), its cost is not.
    const std::uint32_t at = in_moving_[id];
    moving_[at] = moving_.back();
    in_moving_[moving_[at]] = at;
    moving_.pop_back();
}

template <int D>
void Churn<D>::come_back(BodyId id, BallisticMotion<D>& motion) {
    const Aabb<D>& world = motion.bounds();
    const float r = motion.bodies().radius[id];
    Vec<D> lo = world.lo + r, hi = world.hi - r;
    for (int k = 0; k < D; ++k)
        if (lo[k] > hi[k]) lo[k] = hi[k] = 0.5f * (world.lo[k] + world.hi[k]);
    motion.place(id, rng_.in_box<D>(lo, hi));
    present_[id] = 1;
    back_at_[id] = frame_;
    if (still_[id]) {
        stilled_.push_back(id);
        return;
    }
    in_moving_[id] = static_cast<std::uint32_t>(moving_.size());
    moving_.push_back(id);
}

template <int D>
void Churn<D>::frame(int f, BallisticMotion<D>& motion) {
    stilled_.clear();
    left_.clear();
    frame_ = f;
    const std::size_t n = still_.size();
    if (f == 0) {
        moving_.clear();
        for (BodyId id = 0; id < n; ++id) {
            if (still_[id]) {
                stilled_.push_back(id);
            } else {
                in_moving_[id] = static_cast<std::uint32_t>(moving_.size());
                moving_.push_back(id);
            }
        }
        return;
    }
    for (const BodyId id : gone_) come_back(id, motion);
    gone_.clear();
    // This frame's departures: distinct bodies present since before this frame.
    const std::size_t k = std::min(per_frame_, n);
    while (gone_.size() < k) {
        const auto id = static_cast<BodyId>(std::min<std::size_t>(
            n - 1, static_cast<std::size_t>(rng_.uniform() * static_cast<float>(n))));
        if (!present_[id] || back_at_[id] == f) continue;  // gone, or just came back
        leave(id);
        gone_.push_back(id);
    }
}

template class Churn<2>;
template class Churn<3>;

}  // namespace collide::bench
