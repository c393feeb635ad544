#include "sim/watch_tape.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace collidoscope {

using collide::WatchStep;

collide::BodyId WatchTape::recorded_index(collide::BodyId world) const {
    if (ids.empty()) return world < boxes.size() ? world : collide::kNoBody;
    const auto it = std::find(ids.begin(), ids.end(), world);
    return it == ids.end() ? collide::kNoBody : collide::BodyId(it - ids.begin());
}

int WatchTape::line_of(std::size_t i) const {
    if (i >= events.size()) return -1;
    const WatchTapeEvent& e = events[i];
    return script.line_of(e.step, e.phase < phases.size() ? phases[e.phase] : std::string());
}

std::string WatchTape::describe(std::size_t i) const {
    if (i >= events.size()) return {};
    const WatchTapeEvent& e = events[i];
    const unsigned a = world_id(e.a), b = world_id(e.b);
    const char* const axis = &"x\0y\0z"[2 * std::min<int>(e.axis, 2)];
    char s[160];
    switch (e.step) {
        case WatchStep::kPhase:
            std::snprintf(s, sizeof s, "phase: %s", phases[e.phase].c_str());
            break;
        case WatchStep::kVisit:
            std::snprintf(s, sizeof s, "visit a region (a node, a cell, a scan's range)");
            break;
        case WatchStep::kEnter: std::snprintf(s, sizeof s, "enter a node (look inside)"); break;
        case WatchStep::kPrune:
            std::snprintf(s, sizeof s, "prune: skip a node or cell whole");
            break;
        case WatchStep::kPlace: std::snprintf(s, sizeof s, "place #%u in its node or cell", a); break;
        case WatchStep::kCursor:
            std::snprintf(s, sizeof s, "cursor at #%u (starts at %s = %.4g)", a, axis, e.at);
            break;
        case WatchStep::kActiveAdd:
            std::snprintf(s, sizeof s, "#%u joins the active list", a);
            break;
        case WatchStep::kActiveDrop:
            std::snprintf(s, sizeof s, "#%u leaves the active list (ends at %s = %.4g)", a, axis,
                          e.at);
            break;
        case WatchStep::kJump:
            if (e.b == collide::kNoBody) {
                std::snprintf(s, sizeof s, "the scan of #%u jumps past the end, skipping %u (BIGMIN)",
                              a, e.count);
            } else {
                std::snprintf(s, sizeof s, "jump from #%u to #%u, skipping %u entries (BIGMIN)", a,
                              b, e.count);
            }
            break;
        case WatchStep::kTest:
            std::snprintf(s, sizeof s, "test #%u against #%u: %s", a, b, e.hit ? "hit" : "miss");
            break;
        case WatchStep::kEmit: std::snprintf(s, sizeof s, "report the pair (#%u, #%u)", a, b); break;
        case WatchStep::kFound:
            std::snprintf(s, sizeof s, "the query returns #%u: its box meets the region", a);
            break;
        default: std::snprintf(s, sizeof s, "?"); break;
    }
    return s;
}

void WatchPlayer::load(const WatchTape* tape) {
    tape_ = tape;
    position_ = 0;
    playing_ = false;
    carry_ = 0.0;
    score_ = {};
    active_at_ = SIZE_MAX;
    prefix_.assign(1, {});
    if (tape_ == nullptr) return;
    prefix_.reserve(tape_->events.size() + 1);
    for (const WatchTapeEvent& e : tape_->events) {
        std::array<std::uint32_t, 6> t = prefix_.back();
        switch (e.step) {
            case WatchStep::kTest: ++t[0], t[1] += e.hit; break;
            case WatchStep::kEmit: ++t[2]; break;
            case WatchStep::kVisit:
            case WatchStep::kEnter: ++t[3]; break;
            case WatchStep::kPrune: ++t[4]; break;
            case WatchStep::kPlace: ++t[5]; break;
            default: break;
        }
        prefix_.push_back(t);
    }
}

const WatchTapeEvent* WatchPlayer::current() const {
    return position_ == 0 || tape_ == nullptr ? nullptr : &tape_->events[position_ - 1];
}

bool WatchPlayer::question_pending() const {
    return quiz_ && !at_end() && tape_->events[position_].step == WatchStep::kTest;
}

void WatchPlayer::step() {
    if (at_end() || question_pending()) return;
    ++position_;
    score_.answered_last = false;
}

void WatchPlayer::answer(bool will_hit) {
    if (!question_pending()) return;
    const bool hit = tape_->events[position_].hit;
    ++score_.asked;
    score_.last_right = will_hit == hit;
    score_.right += score_.last_right;
    ++position_;
    score_.answered_last = true;
}

void WatchPlayer::back() {
    if (position_ > 0) --position_;
    score_.answered_last = false;
    playing_ = false;
}

void WatchPlayer::seek(std::size_t position) {
    position_ = std::min(position, size());
    score_.answered_last = false;
}

bool WatchPlayer::seek_next_of(collide::BodyId recorded) {
    if (tape_ == nullptr || recorded == collide::kNoBody) return false;
    for (std::size_t i = position_; i < size(); ++i) {
        const WatchTapeEvent& e = tape_->events[i];
        if (e.a == recorded || e.b == recorded) {
            seek(i + 1);  // shown: the current event
            return true;
        }
    }
    return false;
}

bool WatchPlayer::seek_next_step(collide::WatchStep step) {
    for (std::size_t i = position_; tape_ != nullptr && i < size(); ++i) {
        if (tape_->events[i].step == step) {
            seek(i + 1);
            return true;
        }
    }
    return false;
}

void WatchPlayer::set_playing(bool on) {
    playing_ = on && !at_end();
    carry_ = 0.0;
}

void WatchPlayer::set_speed(float events_per_second) {
    speed_ = std::clamp(std::isfinite(events_per_second) ? events_per_second : kMinSpeed,
                        kMinSpeed, kMaxSpeed);
}

void WatchPlayer::advance(double seconds) {
    if (!playing_) return;
    carry_ += std::max(0.0, seconds) * speed_;
    while (carry_ >= 1.0 && !at_end() && !question_pending()) {
        carry_ -= 1.0;
        step();
    }
    if (at_end()) playing_ = false;
    if (question_pending()) carry_ = 0.0;  // wait for the answer, then go on at the speed
}

WatchTotals WatchPlayer::totals() const {
    if (prefix_.empty()) return {};
    const auto& t = prefix_[std::min(position_, prefix_.size() - 1)];
    return {t[0], t[1], t[2], t[3], t[4], t[5]};
}

const std::vector<collide::BodyId>& WatchPlayer::active() const {
    if (active_at_ == position_) return active_;
    active_.clear();
    for (std::size_t i = 0; i < position_; ++i) {
        const WatchTapeEvent& e = tape_->events[i];
        if (e.step == WatchStep::kActiveAdd) {
            active_.push_back(e.a);
        } else if (e.step == WatchStep::kActiveDrop) {
            const auto it = std::find(active_.begin(), active_.end(), e.a);
            if (it != active_.end()) active_.erase(it);
        } else if (e.step == WatchStep::kPhase) {
            active_.clear();  // a list lives within one phase
        }
    }
    active_at_ = position_;
    return active_;
}

}  // namespace collidoscope
