// Watch mode's state in the demo: open or not, the recorded update and its player, and when
// to record again: when the algorithm, its settings, the frame, the world or (at large n,
// where the recording keeps one body's events) the selection change.
#pragma once

#include <cstdint>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "sim/sim_world.hpp"
#include "sim/watch_tape.hpp"

namespace collidoscope {

class WatchMode {
public:
    bool open() const { return open_; }
    // Opening records on the next sync(); the caller pauses the simulation.
    void set_open(bool on);
    // Records again if what the tape shows is stale; call once a frame while open.
    // `world_id` tells worlds apart (Demo::worlds_built).
    void sync(SimWorld& world, const std::string& algorithm, collide::BodyId selected,
              std::uint64_t world_id, const std::optional<Box3>& query);
    // Where the player starts on the next recording (the command line's --watch-event), and
    // whether it asks before each test.
    struct Start {
        std::uint64_t event = 0;
        bool at_selection = false;                // the selection's first event
        std::optional<collide::WatchStep> at_step;  // the first event of this kind
    };
    void start_at(const Start& start, bool quiz) {
        start_ = start;
        player_.set_quiz(quiz);
    }
    // Records on the next sync() even if nothing changed.
    void record_again() { key_.reset(); }
    // Plays on by the frame's seconds.
    void advance(double seconds) { player_.advance(seconds); }

    const WatchTape& tape() const { return tape_; }
    WatchPlayer& player() { return player_; }
    const WatchPlayer& player() const { return player_; }

private:
    // Everything the recording depends on: a change in any records again.
    struct Key {
        std::string algorithm;
        std::uint64_t steps = 0, world = 0;
        std::size_t bodies = 0;
        bool gpu = false;
        collide::BodyId focus = collide::kNoBody;
        std::vector<float> params;
        std::optional<std::array<float, 6>> query;  // the region's corners
        bool operator==(const Key&) const = default;
    };
    bool open_ = false;
    std::optional<Key> key_;  // what the tape was recorded from; none: record
    WatchTape tape_;
    WatchPlayer player_;
    Start start_;
};

}  // namespace collidoscope
