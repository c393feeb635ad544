// The rewind buffer: snapshots of the world after each step, oldest dropped first, within a
// memory cap and a step cap. The world is deterministic, so restoring the snapshot of step k
// and stepping on reproduces what the run did after k; the buffer holds one line of steps,
// and a step taken from an earlier one drops the stale future after it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>

#include "sim/sim_world.hpp"

namespace collidoscope {

inline constexpr std::size_t kHistoryBytes = std::size_t{64} << 20;
inline constexpr std::size_t kHistorySteps = 3600;  // a minute at 60 steps a second

class SessionHistory {
public:
    explicit SessionHistory(std::size_t max_bytes = kHistoryBytes,
                            std::size_t max_steps = kHistorySteps)
        : max_bytes_(max_bytes), max_steps_(max_steps) {}

    // Keeps the snapshot of `world` as its current step, after dropping every snapshot of
    // that step or later; a world too big for the cap is not kept at all.
    void record(const SimWorld& world);
    // Drops the snapshots after `step` (the world there changed: that future will not come).
    void drop_after(std::uint64_t step);
    void clear();

    // The snapshot of `step`, or null if it is not (or no longer) kept.
    const WorldSnapshot* find(std::uint64_t step) const;
    bool empty() const { return snapshots_.empty(); }
    std::uint64_t first_step() const { return empty() ? 0 : snapshots_.front()->step(); }
    std::uint64_t last_step() const { return empty() ? 0 : snapshots_.back()->step(); }
    std::size_t size() const { return snapshots_.size(); }
    std::size_t bytes() const { return bytes_; }
    std::size_t max_bytes() const { return max_bytes_; }

private:
    std::size_t max_bytes_;
    std::size_t max_steps_;
    std::deque<std::unique_ptr<WorldSnapshot>> snapshots_;  // consecutive steps, oldest first
    std::size_t bytes_ = 0;
};

}  // namespace collidoscope
