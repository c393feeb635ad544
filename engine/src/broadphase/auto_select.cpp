#include "broadphase/auto_select.hpp"

#include <algorithm>
#include <cstdio>

#include "collide/registry.hpp"

namespace collide {

namespace {

// Spreads above this are "sizes spread widely" (powerlaw has about 1000).
constexpr float kWideSpread = 20.0f;
// The spread is estimated from at most this many boxes, spaced evenly over the ids.
constexpr std::size_t kSample = 4096;

}  // namespace

template <int D>
std::string_view AutoSelect<D>::choose(std::size_t n, float spread, std::string_view current) {
    const bool tiny = current == kReferenceBroadPhase ? n <= kTinyAbove : n < kTinyBelow;
    if (tiny) return kReferenceBroadPhase;
    return spread > kWideSpread ? "dynamic-aabb-tree" : "dynamic-aabb-tree";
}

template <int D>
float AutoSelect<D>::size_spread(std::span<const Aabb<D>> boxes) {
    const std::size_t n = boxes.size();
    if (n == 0) return 1.0f;
    const std::size_t step = std::max<std::size_t>(1, n / kSample);
    sample_.clear();
    for (std::size_t i = 0; i < n; i += step) {
        const Vec<D> s = boxes[i].size();
        float extent = s[0];
        for (int k = 1; k < D; ++k) extent = std::max(extent, s[k]);
        sample_.push_back(extent);
    }
    const auto mid = sample_.begin() + static_cast<std::ptrdiff_t>(sample_.size() / 2);
    std::nth_element(sample_.begin(), mid, sample_.end());
    const float median = *mid;
    const float largest = *std::max_element(sample_.begin(), sample_.end());
    // NaN extents compare false everywhere: such a sample counts as no spread.
    return median > 0.0f && largest / median > 1.0f ? largest / median : 1.0f;
}

template <int D>
void AutoSelect<D>::update(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                           PairList& out) {
    n_ = boxes.size();
    spread_ = size_spread(boxes);
    const std::string_view want = choose(n_, spread_, current_);
    wanted_for_ = want == wanted_ ? wanted_for_ + 1 : 1;
    wanted_ = want;
    if (!algorithm_ || (want != current_ && wanted_for_ >= kPatience)) {
        algorithm_ = make_broadphase<D>(want);
        current_ = want;
        switches_ += algorithm_ != nullptr;
    }
    algorithm_->update(boxes, is_static, out);
}

template <int D>
void AutoSelect<D>::query(const Aabb<D>& region, std::vector<BodyId>& out) const {
    out.clear();
    if (algorithm_) algorithm_->query(region, out);
}

template <int D>
void AutoSelect<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    if (algorithm_) algorithm_->draw(draw, which);
}

template <int D>
std::string AutoSelect<D>::describe(BodyId id) const {
    return algorithm_ ? algorithm_->describe(id) : std::string();
}

template <int D>
std::vector<std::string> AutoSelect<D>::layers() const {
    return algorithm_ ? algorithm_->layers() : std::vector<std::string>{};
}

template <int D>
BroadPhaseStats AutoSelect<D>::stats() const {
    return algorithm_ ? algorithm_->stats() : BroadPhaseStats{};
}

template <int D>
std::span<Param> AutoSelect<D>::params() {
    return algorithm_ ? algorithm_->params() : std::span<Param>{};
}

template <int D>
std::string AutoSelect<D>::status() const {
    if (!algorithm_) return "auto: nothing chosen before the first update";
    char text[160];
    std::snprintf(text, sizeof text, "auto chose %.*s (n = %zu, largest/median size %.3g)%s",
                  static_cast<int>(current_.size()), current_.data(), n_, spread_,
                  wanted_ != current_ ? ", about to switch" : "");
    return text;
}

template class AutoSelect<2>;
template class AutoSelect<3>;

}  // namespace collide
