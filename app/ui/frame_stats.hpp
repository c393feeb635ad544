// Per-frame measurements: a rolling history (for the stats panel) of the frame time and of
// the parts it is made of, and running totals for the summary that a timed run (--frames)
// prints at exit. The parts are measured back to back through the frame (FrameClock), so
// they add up to the frame's wall time; the GPU's time is measured apart (timer queries),
// since it runs alongside the CPU and its cost to the frame shows up as waiting in the
// present. The step's own phases (integrate, broad, narrow, resolve) are a breakdown of the
// step part.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collide/world.hpp"

namespace collidoscope {

// The step's phases, from World's StepTimings.
enum class Phase { kIntegrate, kBroad, kNarrow, kResolve, kCount };
// The parts of a frame, in the order they happen.
enum class Part { kStep, kRace, kUi, kOverlays, kDraw, kPresent, kOther, kCount };

inline constexpr std::size_t kPhaseCount = static_cast<std::size_t>(Phase::kCount);
inline constexpr std::size_t kPartCount = static_cast<std::size_t>(Part::kCount);
inline constexpr std::size_t kHistory = 120;

const char* phase_name(Phase p);
const char* part_name(Part p);
// What a part holds, one sentence for a tooltip.
const char* part_help(Part p);

// Steps the Stats panel's trend covers: 15 s at 60 steps a second, long enough to watch a
// pile settle and fall asleep.
inline constexpr std::size_t kTrendSteps = 900;

// A fixed-size ring of recent values, laid out for ImGui::PlotLines (values + offset).
class History {
public:
    explicit History(std::size_t capacity = kHistory) : values_(capacity, 0.0f) {}
    void push(float v);
    const float* data() const { return values_.data(); }
    int size() const { return static_cast<int>(values_.size()); }
    // The values pushed so far, up to the capacity: a plot of filled() values from offset()
    // (taken modulo the count) shows no zeros for the time before the first push.
    int filled() const { return static_cast<int>(std::min(pushed_, values_.size())); }
    int offset() const { return static_cast<int>(next_); }
    float latest() const { return values_[(next_ + values_.size() - 1) % values_.size()]; }
    float max() const;
    // The mean of the latest `n` values (at most the capacity).
    float mean(std::size_t n) const;

private:
    std::vector<float> values_;
    std::size_t next_ = 0;
    std::size_t pushed_ = 0;
};

// Times a frame as consecutive laps: each lap() charges the time since the previous one
// to a part, so every moment of the frame is charged to exactly one part.
class FrameClock {
public:
    using Clock = std::chrono::steady_clock;
    // Starts the next frame where the last one ended (no moment between frames is lost).
    void start_frame();
    void lap(Part p);
    // Charges `ms` already lapped to `from` to `to` instead (work done inside another part).
    void move(Part from, Part to, double ms);
    // The frame so far, in ms, and the parts.
    double frame_ms() const;
    const std::array<double, kPartCount>& parts() const { return parts_; }

private:
    Clock::time_point frame_start_ = Clock::now();
    Clock::time_point last_ = frame_start_;
    std::array<double, kPartCount> parts_{};
};

// Facts about the last frame that the summary repeats.
struct FrameFacts {
    std::size_t moving = 0;  // bodies the step moved (not static, not asleep)
    std::size_t pairs = 0;
    std::size_t contacts = 0;
    std::uint64_t candidate_tests = 0;
    int draw_calls = 0;
};

// Means over the recent frames (those in the history), in ms.
struct FrameBreakdown {
    std::size_t frames = 0;  // how many frames the means are over
    std::size_t steps = 0;   // how many steps the phases' means are over
    double frame = 0.0;
    std::array<double, kPartCount> parts{};
    std::array<double, kPhaseCount> phases{};  // per frame, over the frames that stepped
    std::optional<double> gpu;                 // none: no timer query result (yet)
};

class FrameStats {
public:
    // Records one frame. `stepped` says whether the world stepped (the step's phases are
    // only recorded then); `gpu_ms` is a timer query's result, if there is one.
    void record(double frame_ms, const std::array<double, kPartCount>& parts,
                std::optional<double> gpu_ms, bool stepped, const collide::StepTimings& step,
                const FrameFacts& facts);

    const History& frame_ms() const { return frame_ms_; }
    const History& part(Part p) const { return parts_[static_cast<std::size_t>(p)]; }
    // Per step, over the last kTrendSteps: the broad phase's ms and the bodies that moved.
    const History& broad_trend() const { return broad_trend_; }
    const History& moving_trend() const { return moving_trend_; }
    const FrameFacts& last() const { return last_; }
    float fps() const;  // over the recent history
    // Forgets the recent history and the trend (not the totals of the exit summary): what
    // the panel shows must be this world's, not a mean with the one it replaced.
    void restart_recent();
    FrameBreakdown breakdown() const;

    // One paragraph for stdout after a timed run.
    std::string summary(const std::string& algorithm, int dim, const std::string& scene,
                        std::size_t bodies) const;

private:
    std::size_t seen() const;

    History frame_ms_;
    std::array<History, kPartCount> parts_;
    std::array<History, kPhaseCount> phases_;
    History gpu_ms_;
    History broad_trend_{kTrendSteps}, moving_trend_{kTrendSteps};
    FrameFacts last_;
    // Since the start, for the summary (the panel's means go by the histories).
    std::uint64_t frames_ = 0;
    std::uint64_t steps_ = 0;
    std::uint64_t gpu_frames_ = 0;
    double total_frame_ms_ = 0;
    std::vector<float> every_frame_ms_;  // for the summary's percentiles
    double total_gpu_ms_ = 0;
    std::array<double, kPartCount> total_part_ms_{};
    std::array<double, kPhaseCount> total_phase_ms_{};
};

}  // namespace collidoscope
