#include "broadphase/auto_select.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace collide {

namespace {

// Spread and motion are estimated from at most this many boxes, spaced evenly over the ids.
constexpr std::size_t kSample = 4096;

// For a handful of bodies nothing beats testing every pair.
constexpr std::string_view kForFew = "brute-force";

}  // namespace

template <int D>
std::string_view AutoSelect<D>::choose(std::size_t n, float motion, std::string_view current) {
    const bool tiny = current == kForFew ? n <= kTinyAbove : n < kTinyBelow;
    if (tiny) return kForFew;
    const bool fast = current == "radix-chunks" ? motion > kSlowBelow : motion > kFastAbove;
    return fast ? "radix-chunks" : "dynamic-aabb-tree";
}

template <int D>
void AutoSelect<D>::measure(std::span<const Aabb<D>> boxes) {
    const std::size_t n = boxes.size();
    const std::size_t step = std::max<std::size_t>(1, n / kSample);
    const bool same_bodies = n == n_ && !centres_.empty();
    extents_.clear();
    double moved = 0;
    std::size_t s = 0;
    centres_.resize((n + step - 1) / step);
    for (std::size_t i = 0; i < n; i += step, ++s) {
        extents_.push_back(boxes[i].largest_side());
        const Vec<D> c = boxes[i].center();
        if (same_bodies) moved += glm::length(c - centres_[s]);
        centres_[s] = c;
    }
    n_ = n;
    spread_ = 1.0f;
    motion_ = 0.0f;
    if (extents_.empty()) return;
    const auto mid = extents_.begin() + static_cast<std::ptrdiff_t>(extents_.size() / 2);
    std::nth_element(extents_.begin(), mid, extents_.end());
    const float median = *mid;
    const float largest = *std::max_element(extents_.begin(), extents_.end());
    if (!(median > 0.0f)) return;  // points (or NaN): no scale to measure against
    if (largest / median > 1.0f) spread_ = largest / median;
    const float m = static_cast<float>(moved / static_cast<double>(extents_.size())) / median;
    if (std::isfinite(m)) motion_ = m;
}

template <int D>
void AutoSelect<D>::set_cost_tracking(bool on) {
    track_costs_ = on;
    if (algorithm_) algorithm_->set_cost_tracking(on);
}

template <int D>
bool AutoSelect<D>::body_costs(std::span<std::uint32_t> out) const {
    return algorithm_ && algorithm_->body_costs(out);
}

template <int D>
void AutoSelect<D>::update(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                           PairList& out) {
    measure(boxes);
    const std::string_view want = choose(n_, motion_, current_);
    wanted_for_ = want == wanted_ ? wanted_for_ + 1 : 1;
    wanted_ = want;
    if (!algorithm_ || (want != current_ && wanted_for_ >= kPatience)) {
        algorithm_ = make_(want);
        algorithm_->set_cost_tracking(track_costs_);
        current_ = want;
    }
    algorithm_->update(boxes, is_static, out);
}

template <int D>
void AutoSelect<D>::query(const Aabb<D>& region, std::vector<BodyId>& out,
                      QueryTrace<D>* trace) const {
    out.clear();
    if (algorithm_) algorithm_->query(region, out, trace);
}

template <int D>
BroadPhaseStats AutoSelect<D>::stats() const {
    return algorithm_ ? algorithm_->stats() : BroadPhaseStats{};
}

template <int D>
std::span<Param> AutoSelect<D>::params() {
    return algorithm_ ? algorithm_->params() : std::span<Param>{};
}

template class AutoSelect<2>;
template class AutoSelect<3>;

}  // namespace collide
