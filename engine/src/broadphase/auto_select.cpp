#include "broadphase/auto_select.hpp"

#include <algorithm>
#include <array>
#include <chrono>

namespace collide {

namespace {

// For a handful of bodies nothing beats testing every pair.
constexpr std::string_view kForFew = "brute-force";

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

template <int D>
AutoSelect<D>::AutoSelect(Factory make, std::vector<std::string_view> candidates)
    : make_(make),
      candidates_(std::move(candidates)),
      measured_ms_(candidates_.size(), 0.0),
      against_ms_(candidates_.size(), 0.0),
      settled_of_(candidates_.size(), 0.0) {}

template <int D>
void AutoSelect<D>::start_probe(bool all) {
    if (!algorithm_) {  // nothing chosen yet, or just more than a few bodies
        algorithm_ = make_(candidates_.front());
        algorithm_->set_cost_tracking(track_costs_);
        current_ = candidates_.front();
    }
    const std::size_t current = static_cast<std::size_t>(
        std::find(candidates_.begin(), candidates_.end(), current_) - candidates_.begin());
    racers_.clear();
    probe_all_ = all;
    const double settled = recent_median();
    for (std::size_t k = 0; k < candidates_.size(); ++k) {
        const std::size_t c = (next_challenger_ + k) % candidates_.size();
        if (c == current) continue;
        // One that took over kHopeless times the current's time when last measured is left
        // until the next race of all (its probe would cost more than it could win).
        if (!all && measured_ms_[c] > kHopeless * settled) continue;
        racers_.push_back(Racer{.candidate = c, .algorithm = make_(candidates_[c])});
        if (!all) break;
    }
    if (!all && !racers_.empty())
        next_challenger_ = (racers_.front().candidate + 1) % candidates_.size();
    probe_frame_ = 0;
    before_probe_ms_ = settled;
    if (racers_.empty()) until_challenge_ = kProbeEvery;  // none worth a probe now
}

template <int D>
void AutoSelect<D>::finish_probe() {
    const double timed = kProbeFrames - 1;
    Racer* best = nullptr;
    for (Racer& r : racers_) {
        measured_ms_[r.candidate] = r.ms / timed;
        against_ms_[r.candidate] = r.rival_ms / timed;
        if (!best || r.ms < best->ms) best = &r;  // all raced on the same frames
    }
    const std::size_t current = static_cast<std::size_t>(
        std::find(candidates_.begin(), candidates_.end(), current_) - candidates_.begin());
    if (best) measured_ms_[current] = best->rival_ms / timed;
    // The first choice takes the fastest; later a challenger must be clearly faster, since
    // two frames are a small sample and a switch starts a structure afresh.
    double kept_ms = best ? best->rival_ms / timed : 0.0;
    bool switch_to_best = false;
    if (probe_all_) {
        // The work is new: what each ran settled before says nothing now.
        std::fill(settled_of_.begin(), settled_of_.end(), 0.0);
        switch_to_best = best && best->ms < best->rival_ms;
    } else if (best) {
        // A challenger against the current's settled time (before the probe); its own probe
        // frames are fresh, so it counts at no less than what it took settled when it last
        // ran (a tree's first updates are cheaper than its settled ones), and it must be
        // clearly faster, since a switch starts a structure afresh.
        const double challenger = std::max(best->ms / timed, settled_of_[best->candidate]);
        switch_to_best = challenger < kSwitchBelow * before_probe_ms_;
    }
    if (switch_to_best) {
        algorithm_ = std::move(best->algorithm);
        algorithm_->set_cost_tracking(track_costs_);
        current_ = candidates_[best->candidate];
        kept_ms = best->ms / timed;
    }
    if (!probe_all_ && !switch_to_best) kept_ms = before_probe_ms_;
    recent_ms_.fill(kept_ms);
    settled_ms_ = 0;
    until_challenge_ = probe_all_ ? kFirstChallenge : kProbeEvery;
    racers_.clear();
    since_probe_ = 0;
    ++probes_;
}

template <int D>
std::size_t AutoSelect<D>::current_index() const {
    return static_cast<std::size_t>(std::find(candidates_.begin(), candidates_.end(), current_) -
                                    candidates_.begin());
}

template <int D>
double AutoSelect<D>::recent_median() const {
    std::array<double, kRecent> v = recent_ms_;
    std::nth_element(v.begin(), v.begin() + kRecent / 2, v.end());
    return v[kRecent / 2];
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
    n_ = boxes.size();
    const bool was_few = few_;
    few_ = few_ ? n_ <= kTinyAbove : n_ < kTinyBelow;
    if (few_ || candidates_.empty()) {
        if (!was_few || !algorithm_) {
            algorithm_ = make_(kForFew);
            algorithm_->set_cost_tracking(track_costs_);
            current_ = kForFew;
            racers_.clear();
        }
        algorithm_->update(boxes, is_static, out);
        return;
    }
    if (was_few) algorithm_.reset();  // more than a few now: probe afresh
    if (racers_.empty()) {
        ++since_probe_;
        const bool new_count = !algorithm_ || 4 * n_ > 5 * probed_n_ || 5 * n_ < 4 * probed_n_;
        if (new_count) {
            probed_n_ = n_;
            start_probe(true);
        } else if (candidates_.size() > 1 && --until_challenge_ <= 0) {
            start_probe(false);
        } else if (since_probe_ == kDriftAfter) {
            settled_ms_ = recent_median();
            settled_of_[current_index()] = settled_ms_;
        } else if (candidates_.size() > 1 && since_probe_ > kDriftAfter &&
                   recent_median() > std::max(kDrift * settled_ms_, kDriftAboveMs)) {
            start_probe(true);  // the work changed (bodies began to move, piled up): race all
        }
    }
    const auto t0 = Clock::now();
    algorithm_->update(boxes, is_static, out);
    const double ms = ms_since(t0);
    recent_ms_[recent_at_++ % recent_ms_.size()] = ms;
    if (racers_.empty()) return;
    for (Racer& r : racers_) {
        const auto r0 = Clock::now();
        r.algorithm->update(boxes, is_static, scratch_);
        if (probe_frame_ > 0) {  // the first is a cold build, for both
            r.ms += ms_since(r0);
            r.rival_ms += ms;
        }
    }
    if (++probe_frame_ == kProbeFrames) finish_probe();
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
