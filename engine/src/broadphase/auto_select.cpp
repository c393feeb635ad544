#include "broadphase/auto_select.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>

namespace collide {

namespace {

// For a handful of bodies nothing beats testing every pair.
constexpr std::string_view kForFew = "brute-force";

}  // namespace

template <int D>
double AutoSelect<D>::steady_ms() {
    const auto now = std::chrono::steady_clock::now().time_since_epoch();
    return std::chrono::duration<double, std::milli>(now).count();
}

template <int D>
AutoSelect<D>::AutoSelect(Factory make, std::vector<std::string_view> candidates, Clock clock)
    : make_(make),
      clock_(clock),
      candidates_(std::move(candidates)),
      measured_ms_(candidates_.size(), 0.0),
      settled_of_(candidates_.size(), 0.0),
      cold_ms_(candidates_.size(), 0.0) {}

template <int D>
std::unique_ptr<BroadPhase<D>> AutoSelect<D>::build(std::string_view name) const {
    auto a = make_(name);
    a->set_cost_tracking(track_costs_);
    return a;
}

template <int D>
void AutoSelect<D>::take(std::size_t candidate, std::unique_ptr<BroadPhase<D>> algorithm,
                         double ms) {
    algorithm_ = std::move(algorithm);
    current_ = candidate;
    name_ = candidates_[candidate];
    recent_.fill(ms);
    chosen_ms_ = ms;
    judge_after_ = 2;
    settled_ms_ = 0;
}

template <int D>
void AutoSelect<D>::start_race() {
    raced_n_ = n_;
    aside_.reset();
    waiting_.clear();
    racers_.clear();
    // The work is new: what each candidate took before says nothing now.
    std::fill(measured_ms_.begin(), measured_ms_.end(), 0.0);
    std::fill(settled_of_.begin(), settled_of_.end(), 0.0);
    for (std::size_t c = 0; c < candidates_.size(); ++c)
        racers_.push_back(Racer{.candidate = c, .algorithm = build(candidates_[c])});
    // The first racer's pairs are the output, and it is the one the viewer shows.
    algorithm_ = std::move(racers_.front().algorithm);
    name_ = candidates_.front();
    race_timed_ = n_ < kRaceFewBelow ? kRaceTimedFew : kRaceTimed;
    frame_ = 0;
}

template <int D>
void AutoSelect<D>::finish_race() {
    std::size_t best = 0;
    for (std::size_t i = 0; i < racers_.size(); ++i) {
        measured_ms_[racers_[i].candidate] = racers_[i].ms / race_timed_;
        cold_ms_[racers_[i].candidate] = racers_[i].cold_ms;
        if (racers_[i].ms < racers_[best].ms) best = i;
    }
    // A near tie (a tree's first updates are cheap, one frame may be preempted) goes to the
    // cheapest cold build, which is also what each later turn of it costs.
    const double best_ms = racers_[best].ms;
    for (std::size_t i = 0; i < racers_.size(); ++i)
        if (kSwitchBelow * racers_[i].ms <= best_ms && racers_[i].cold_ms < racers_[best].cold_ms)
            best = i;
    const Racer& b = racers_[best];
    if (raced_.size() == kRemembered) raced_.erase(raced_.begin());
    raced_.push_back({raced_n_, b.candidate, measured_ms_[b.candidate]});
    take(b.candidate, best == 0 ? std::move(algorithm_) : std::move(racers_[best].algorithm),
         measured_ms_[b.candidate]);
    racers_.clear();
    since_probe_ = 0;
    until_probe_ = kFirstTurn;
    ++probes_;
}

template <int D>
void AutoSelect<D>::start_turn(std::size_t challenger, double current_ms) {
    before_turn_ms_ = current_ms;
    aside_ = std::move(algorithm_);
    algorithm_ = build(candidates_[challenger]);
    name_ = candidates_[challenger];
    challenger_ = challenger;
    turn_ms_ = 0;
    frame_ = 0;
}

template <int D>
void AutoSelect<D>::finish_turn() {
    const double ms = turn_ms_ / std::max(frame_ - 1, 1);  // over its timed frames
    measured_ms_[challenger_] = ms;
    measured_ms_[current_] = before_turn_ms_;
    // Its turn began with a fresh structure, so it counts at no less than its recent time
    // when it last ran (a tree's first updates are cheaper than its settled ones).
    if (std::max(ms, settled_of_[challenger_]) < kSwitchBelow * before_turn_ms_) {
        settled_of_[current_] = before_turn_ms_;
        take(challenger_, std::move(algorithm_), ms);
        aside_.reset();
        until_probe_ = kProbeEvery;
    } else {
        // The current resumes at the next update, with the boxes as they are then: it
        // missed the turn's frames, so its structure would answer a query with old boxes
        // (and, fed compacted, old indices).
        chosen_ms_ = before_turn_ms_;  // chosen again at this time: no turn for a little more
        // Its first updates catch up on the frames it missed (a tree's bodies left their fat
        // boxes meanwhile) and say nothing of its cost: 2D powerlaw 100k at 0.05, the tree's
        // took 5.8 and 5.4 ms against 2.3 before the turn, and zorder-sweep (4.0) took over.
        judge_after_ = static_cast<int>(kRecent);
    }
    challenger_ = kNone;
    since_probe_ = 0;
    settled_ms_ = 0;
    ++probes_;
    ++turns_;
}

template <int D>
void AutoSelect<D>::between_probes() {
    ++since_probe_;
    const double recent = recent_ms();
    if (since_probe_ >= static_cast<int>(kRecent)) settled_of_[current_] = recent;
    if (since_probe_ == kSettleAfter) settled_ms_ = recent;
    if (candidates_.size() < 2) return;
    if (settled_ms_ > 0 && recent > std::max(kDrift * settled_ms_, kDriftAboveMs)) {
        // The work changed (bodies began to move, piled up): every challenger gets a turn.
        std::fill(measured_ms_.begin(), measured_ms_.end(), 0.0);
        std::fill(settled_of_.begin(), settled_of_.end(), 0.0);
        waiting_.clear();
        for (std::size_t c = candidates_.size(); c-- > 0;)
            if (c != current_) waiting_.push_back(c);
        settled_ms_ = 0;
    }
    // Between two turns the current runs two updates at least (kRecent for the turns that
    // judge it on its recent time, which must be its own by then).
    if (since_probe_ < 2) return;
    if (!waiting_.empty() && since_probe_ >= static_cast<int>(kRecent)) {
        const std::size_t c = waiting_.back();
        waiting_.pop_back();
        return start_turn(c, recent);
    }
    // A challenger measured clearly faster than the current's last two updates gets its turn
    // now, if those grew since the current was chosen, on cheap fresh frames: only before it
    // settles. A later rise is the work's, which every candidate shares (rain piling up: on
    // the 3D rain trace at 100k the sorted grid rose from 5.7 to 8.8 ms, and the tree,
    // measured at 7.0 on its own fresh frames, got a turn that cost 75 and 53 ms). Periodic
    // turns and the drift check see to those.
    std::size_t best = kNone;
    double best_ms = 0;
    for (std::size_t c = 0; c < candidates_.size(); ++c) {
        const double ms = std::max(measured_ms_[c], settled_of_[c]);
        if (c == current_ || measured_ms_[c] <= 0 || (best != kNone && ms >= best_ms)) continue;
        best = c;
        best_ms = ms;
    }
    // Judged on its last two updates (the smaller: one may have been preempted), so a
    // choice whose cost jumps is undone within two frames.
    const double latest = std::min(recent_[(recent_at_ + kRecent - 1) % kRecent],
                                   recent_[(recent_at_ + kRecent - 2) % kRecent]);
    if (since_probe_ >= judge_after_ && since_probe_ < kSettleAfter && best != kNone &&
        best_ms < kSwitchBelow * latest && latest > kRose * chosen_ms_)
        return start_turn(best, latest);
    if (since_probe_ < static_cast<int>(kRecent) || --until_probe_ > 0) return;
    until_probe_ = kProbeEvery;
    for (std::size_t k = 0; k < candidates_.size(); ++k) {
        const std::size_t c = (next_challenger_ + k) % candidates_.size();
        // One measured far slower, whose settled time could not win, or whose cold build
        // costs more than winning could save, would make its turn a stutter for nothing.
        if (c == current_ || measured_ms_[c] > kHopeless * recent ||
            settled_of_[c] >= kSwitchBelow * recent || cold_ms_[c] > kColdHopeless * recent)
            continue;
        next_challenger_ = c + 1;
        return start_turn(c, recent);
    }
}

template <int D>
double AutoSelect<D>::recent_ms() const {
    const double sum = std::accumulate(recent_.begin(), recent_.end(), 0.0);
    return (sum - *std::max_element(recent_.begin(), recent_.end())) / (kRecent - 1);
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
bool AutoSelect<D>::set_watch(WatchRecorder<D>* recorder) {
    if (recorder != nullptr) {
        if (algorithm_ && !view_of(*algorithm_).why_not_recorded().empty()) return false;
        watched_ = false;
    }
    watch_ = recorder;
    return true;
}

template <int D>
WatchScript AutoSelect<D>::watch_script() const {
    if (watched_) return watched_script_;
    return algorithm_ ? view_of(*algorithm_).watch_script() : WatchScript{};
}

template <int D>
std::string AutoSelect<D>::why_not_recorded() const {
    return algorithm_ ? view_of(*algorithm_).why_not_recorded() : std::string();
}

// The recorder is lent to `a` for this update only: the other racers' pairs are not the
// output, and the algorithm may be replaced before the next. A recorded update is slower,
// and its time counts like any other (a race or turn may judge `a` on it).
template <int D>
void AutoSelect<D>::update_output(BroadPhase<D>& a, std::span<const Aabb<D>> boxes,
                                  std::span<const std::uint8_t> is_static, PairList& out) {
    if (watch_ == nullptr) {
        a.update(boxes, is_static, out);
        return;
    }
    auto* view = dynamic_cast<BroadPhaseView<D>*>(&a);
    const bool on = view != nullptr && view->set_watch(watch_);
    a.update(boxes, is_static, out);
    if (!on) return;
    view->set_watch(nullptr);
    watched_script_ = view->watch_script();
    watched_ = true;
}

template <int D>
void AutoSelect<D>::validate() const {
    if (algorithm_) algorithm_->validate();
}

template <int D>
void AutoSelect<D>::update_whole(std::span<const Aabb<D>> boxes,
                                 std::span<const std::uint8_t> is_static, PairList& out) {
    n_ = boxes.size();
    const bool was_few = few_;
    few_ = few_ ? n_ <= kTinyAbove : n_ < kTinyBelow;
    if (few_ || candidates_.empty()) {
        if (!was_few || !algorithm_) {
            algorithm_ = build(kForFew);
            name_ = kForFew;
            current_ = kNone;
            racers_.clear();
            aside_.reset();
            challenger_ = kNone;
        }
        update_output(*algorithm_, boxes, is_static, out);
        return;
    }
    if (aside_ && challenger_ == kNone) {  // a lost turn: the current resumes
        algorithm_ = std::move(aside_);
        name_ = candidates_[current_];
    }
    if (racers_.empty() && challenger_ == kNone) {
        const auto near = [&](std::size_t raced) { return 4 * n_ <= 5 * raced && 5 * n_ >= 4 * raced; };
        if (current_ != kNone && near(raced_n_)) {
            between_probes();
        } else {
            const auto known = std::find_if(raced_.rbegin(), raced_.rend(),
                                            [&](const Raced& r) { return near(r.n); });
            if (current_ == kNone || known == raced_.rend()) {
                start_race();
            } else {  // raced at about this count lately: its winner, with no race
                raced_n_ = known->n;
                take(known->candidate, build(candidates_[known->candidate]), known->ms);
                aside_.reset();
                since_probe_ = 0;
                until_probe_ = kFirstTurn;
            }
        }
    }
    if (!racers_.empty()) {  // every candidate on the same frame, the first one's pairs out
        for (Racer& r : racers_) {
            BroadPhase<D>& a = r.algorithm ? *r.algorithm : *algorithm_;
            const double t0 = clock_();
            if (&r == &racers_.front()) {
                update_output(a, boxes, is_static, out);
            } else {
                a.update(boxes, is_static, scratch_);
            }
            (frame_ > 0 ? r.ms : r.cold_ms) += clock_() - t0;
        }
        if (++frame_ > race_timed_) finish_race();
        return;
    }
    const double t0 = clock_();
    update_output(*algorithm_, boxes, is_static, out);
    const double ms = clock_() - t0;
    if (challenger_ == kNone) {
        recent_[recent_at_++ % kRecent] = ms;
        return;
    }
    if (frame_ > 0)
        turn_ms_ += ms;
    else
        cold_ms_[challenger_] = ms;  // the first frame of a turn is a cold build
    // It ends as soon as its timed frames so far are no faster than it must be to win: each
    // further frame would be a stutter. A tree's frames grow after its build: on 2D powerlaw
    // 1M at speed 0.5 its two timed frames took 126 and 292 ms against the current's 85,
    // when the turn ended only once the two together could not win. A challenger whose
    // first timed frame is slow and later ones fast now loses a turn it might have won.
    ++frame_;
    if (frame_ == kTurnFrames ||
        (frame_ > 1 && turn_ms_ >= kSwitchBelow * before_turn_ms_ * (frame_ - 1)))
        finish_turn();
}

template <int D>
void AutoSelect<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
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
