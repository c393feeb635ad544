// The dynamic AABB tree's average-size margin, steered by the frame's work: where it starts
// after a full rebuild, and how it moves from window to window of frames.
#include <algorithm>
#include <cmath>
#include <vector>

#include "broadphase/dynamic_aabb_tree.hpp"

namespace collide {

namespace {

// The median gap between the boxes of bodies next to each other in Morton order (0 where
// they overlap): about how far a body is from its nearest neighbours.
template <int D>
float median_neighbour_gap(std::span<const Aabb<D>> boxes, std::span<const BodyId> in_order) {
    std::vector<float> gaps;
    gaps.reserve(in_order.size());
    for (std::size_t i = 1; i < in_order.size(); ++i) {
        const Aabb<D>& a = boxes[in_order[i - 1]];
        const Aabb<D>& b = boxes[in_order[i]];
        float gap = 0.0f;
        for (int k = 0; k < D; ++k)
            gap = std::max(gap, std::max(a.lo[k], b.lo[k]) - std::min(a.hi[k], b.hi[k]));
        if (std::isfinite(gap)) gaps.push_back(gap);
    }
    if (gaps.empty()) return 0.0f;
    const auto middle = gaps.begin() + gaps.size() / 2;
    std::nth_element(gaps.begin(), middle, gaps.end());
    return *middle;
}

}  // namespace

// Bodies far apart for their size (powerlaw's small ones: 2D 100k, a median gap of 3.8
// against an average size of 0.69) take margins of a few average sizes, which the steering
// takes some 70 frames to reach from the default. So the first margin is a share of the
// median gap to a Morton neighbour, where that is more than the default: 2D powerlaw 100k
// at speed 0.05 went from 2.08 to 0.95 ms a frame (100 frames after 20), and the rows whose
// neighbours overlap or nearly so (clusters, centerline, uniform) start where they did.
template <int D>
void DynamicAabbTree<D>::first_margin_scale(std::span<const Aabb<D>> boxes) {
    constexpr float kGapShare = 0.4f;
    const float scale =
        kGapShare * median_neighbour_gap<D>(boxes, body_of_) / (margin_avg() * avg_extent_);
    if (std::isfinite(scale)) margin_scale_ = std::clamp(scale, 1.0f, kMaxMarginScale);
}

// The best average-size margin differs by tens of times between workloads (2D centerline
// 1M at 0.05: 0.05; 2D powerlaw 100k at 0.5: 2.5), so it is steered, by the frame's work in
// counts (deterministic on any threads): candidate tests plus kReinsertTests per
// re-insertion, per moving body and pair found (as bodies pile up the work grows with the
// pairs, whatever the margin). A new margin reaches only the bodies re-inserted after it, so
// a window ends once a quarter of the moving bodies were re-inserted (slow rows, where few
// are, keep their margin); the window after a step lets it take hold, the next judges it,
// and the margin keeps moving the way that made the work smaller.
template <int D>
void DynamicAabbTree<D>::steer_margin(std::size_t pairs) {
    constexpr double kReinsertTests = 16;
    if (!steer()) return;
    window_cost_ += double(tests_) + kReinsertTests * double(move_buffer_.size());
    window_reinserted_ += move_buffer_.size();
    ++window_frames_;
    const std::size_t movers = fat_.size() - statics_;
    window_size_ += double(pairs + movers);
    if (window_frames_ < 4 || 4 * window_reinserted_ < movers) return;
    const double cost = window_cost_ / window_size_;
    window_cost_ = window_size_ = 0;
    window_frames_ = window_reinserted_ = 0;
    // The window after a step mixes both margins: it only lets the new one take hold.
    settling_ = !settling_;
    if (!settling_) return;
    if (last_window_cost_ >= 0 && cost > last_window_cost_) {
        steer_step_ = 1.0f / steer_step_;  // back, and the other way from there
        last_window_cost_ = -1;            // judged afresh there
    } else {
        last_window_cost_ = cost;
    }
    margin_scale_ = std::clamp(margin_scale_ * steer_step_, kMinMarginScale, kMaxMarginScale);
}

// The members defined here; the class itself is instantiated in dynamic_aabb_tree.cpp.
template void DynamicAabbTree<2>::first_margin_scale(std::span<const Aabb<2>>);
template void DynamicAabbTree<2>::steer_margin(std::size_t);
template void DynamicAabbTree<3>::first_margin_scale(std::span<const Aabb<3>>);
template void DynamicAabbTree<3>::steer_margin(std::size_t);

}  // namespace collide
