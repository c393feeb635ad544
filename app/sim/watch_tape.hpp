// Watch mode's side of the app: one recorded update as the panel and the overlay read it
// (WatchTape, the engine's WatchRecord with its boxes in 3D coordinates, so nothing past
// SimWorld knows the dimension), and the player that walks it at the user's pace: step,
// back, play at a speed, seek, and the running totals and the sweep's active list at any
// point. The optional quiz asks before a test whether it will hit.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "collide/watch.hpp"
#include "common/geometry.hpp"

namespace collidoscope {

struct WatchTapeEvent {
    collide::WatchStep step = collide::WatchStep::kPhase;
    bool hit = false;
    std::uint8_t axis = 0;
    std::uint8_t phase = 0;
    collide::BodyId a = collide::kNoBody;  // recorded index (WatchTape::world_id maps back)
    collide::BodyId b = collide::kNoBody;
    float at = 0.0f;
    std::uint32_t count = 0;
    Box3 region{};
};

inline constexpr std::size_t kWatchSteps = std::size_t(collide::WatchStep::kCount);

struct WatchTape {
    std::string algorithm;
    int dim = 2;
    // Why nothing was recorded (a GPU row, the GPU world); empty when events were.
    std::string not_recorded;
    std::vector<WatchTapeEvent> events;
    std::vector<std::string> phases;
    std::array<std::uint64_t, kWatchSteps> made{};  // every event made, kept or not
    std::uint64_t not_kept = 0;
    bool everything = true;
    collide::BodyId focus = collide::kNoBody;  // world id; kNoBody when everything was kept
    std::size_t bodies = 0;
    std::size_t pairs = 0;  // what the recorded update returned
    collide::WatchScript script;
    std::vector<Box3> boxes;          // the recorded frame's boxes, by recorded index
    Box3 extent = Box3::empty();      // around them: where a sweep's cursor line is drawn
    std::vector<collide::BodyId> ids;  // recorded index -> world id; empty: the same
    double record_ms = 0.0;

    collide::BodyId world_id(collide::BodyId recorded) const {
        return ids.empty() || recorded >= ids.size() ? recorded : ids[recorded];
    }
    // The recording's number for a world id (they differ where bodies were removed);
    // kNoBody if it was not recorded.
    collide::BodyId recorded_index(collide::BodyId world) const;
    // The pseudocode line event i lights (-1: none).
    int line_of(std::size_t i) const;
    // One line on event i for the panel: "test #12 against #40: hit".
    std::string describe(std::size_t i) const;
};

// Running totals over the events shown so far.
struct WatchTotals {
    std::uint64_t tests = 0, hits = 0, pairs = 0, visits = 0, pruned = 0, placed = 0;
};

class WatchPlayer {
public:
    static constexpr float kMinSpeed = 1.0f;      // events a second
    static constexpr float kMaxSpeed = 10000.0f;

    // Starts `tape` from before its first event, paused. The tape must outlive its use.
    void load(const WatchTape* tape);
    const WatchTape* tape() const { return tape_; }

    // Events shown: the current one is position() - 1; 0 is before the first.
    std::size_t position() const { return position_; }
    std::size_t size() const { return tape_ ? tape_->events.size() : 0; }
    const WatchTapeEvent* current() const;
    bool at_end() const { return position_ >= size(); }

    // One event on (held while the quiz waits for an answer), one back, or to any position.
    void step();
    void back();
    void seek(std::size_t position);
    // To the next event after the current one that names body `recorded` (a or b); false,
    // not moving, when there is none.
    bool seek_next_of(collide::BodyId recorded);
    // To the next event of kind `step`; false, not moving, when there is none.
    bool seek_next_step(collide::WatchStep step);
    bool playing() const { return playing_; }
    void set_playing(bool on);
    float speed() const { return speed_; }
    void set_speed(float events_per_second);
    // Moves on by speed x seconds while playing (the fraction carried to the next call);
    // stops at the end and at a quiz question.
    void advance(double seconds);

    WatchTotals totals() const;
    // The sweep's active list after the events shown (recorded indices, in order added).
    const std::vector<collide::BodyId>& active() const;

    // The quiz: before a test is shown, ask whether it will hit.
    bool quiz() const { return quiz_; }
    void set_quiz(bool on) { quiz_ = on; }
    // True while the next event is a test awaiting the user's guess.
    bool question_pending() const;
    // The user's guess; shows the test and remembers whether the guess was right.
    void answer(bool will_hit);
    struct QuizScore {
        int asked = 0, right = 0;
        bool last_right = false;
        bool answered_last = false;  // the current event is a test the user guessed
    };
    const QuizScore& score() const { return score_; }

private:
    const WatchTape* tape_ = nullptr;
    std::size_t position_ = 0;
    bool playing_ = false;
    float speed_ = 10.0f;
    double carry_ = 0.0;
    bool quiz_ = false;
    QuizScore score_;
    std::vector<std::array<std::uint32_t, 6>> prefix_;  // totals before each event
    mutable std::vector<collide::BodyId> active_;
    mutable std::size_t active_at_ = SIZE_MAX;
};

}  // namespace collidoscope
