// Per-frame measurements: a rolling history (for the stats panel's plots) of the frame time
// and of each phase of the step plus rendering, and running totals for the summary that a
// timed run (--frames) prints at exit.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "collide/world.hpp"

namespace collidoscope {

enum class Phase { kIntegrate, kBroad, kNarrow, kResolve, kRender, kCount };

inline constexpr std::size_t kPhaseCount = static_cast<std::size_t>(Phase::kCount);
inline constexpr std::size_t kHistory = 120;

const char* phase_name(Phase p);

// A fixed-size ring of recent values, laid out for ImGui::PlotLines (values + offset).
class History {
public:
    void push(float v);
    const float* data() const { return values_.data(); }
    int size() const { return static_cast<int>(values_.size()); }
    int offset() const { return static_cast<int>(next_); }
    float latest() const { return values_[(next_ + kHistory - 1) % kHistory]; }
    float max() const;

private:
    std::array<float, kHistory> values_{};
    std::size_t next_ = 0;
};

// Facts about the last frame that the summary repeats.
struct FrameFacts {
    std::size_t pairs = 0;
    std::size_t contacts = 0;
    std::uint64_t candidate_tests = 0;
    int draw_calls = 0;
};

class FrameStats {
public:
    // Records one frame. `stepped` says whether the world stepped (the step's timings are
    // only recorded then); `frame_ms` is the wall time since the previous frame.
    void record(double frame_ms, bool stepped, const collide::StepTimings& step, double render_ms,
                const FrameFacts& facts);

    const History& frame_ms() const { return frame_ms_; }
    const History& phase(Phase p) const { return phases_[static_cast<std::size_t>(p)]; }
    const FrameFacts& last() const { return last_; }
    float fps() const;  // over the recent history

    // One paragraph for stdout after a timed run.
    std::string summary(const std::string& algorithm, int dim, const std::string& scene,
                        std::size_t bodies) const;

private:
    History frame_ms_;
    std::array<History, kPhaseCount> phases_;
    FrameFacts last_;
    std::uint64_t frames_ = 0;
    std::uint64_t steps_ = 0;
    double total_frame_ms_ = 0;
    std::array<double, kPhaseCount> total_phase_ms_{};
};

}  // namespace collidoscope
