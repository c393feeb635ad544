#include "ui/frame_stats.hpp"

#include <algorithm>
#include <cstdio>

namespace collidoscope {
namespace {

// snprintf into a string of the right size (scene names can be long CSV paths).
template <typename... Args>
std::string format(const char* pattern, Args... args) {
    const int n = std::snprintf(nullptr, 0, pattern, args...);
    if (n <= 0) return {};
    std::string out(static_cast<std::size_t>(n) + 1, '\0');
    std::snprintf(out.data(), out.size(), pattern, args...);
    out.resize(static_cast<std::size_t>(n));
    return out;
}

double ms_between(FrameClock::Clock::time_point a, FrameClock::Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

const char* phase_name(Phase p) {
    switch (p) {
        case Phase::kIntegrate: return "integrate";
        case Phase::kBroad: return "broad phase";
        case Phase::kNarrow: return "narrow phase";
        case Phase::kResolve: return "resolve";
        case Phase::kCount: break;
    }
    return "?";
}

const char* part_name(Part p) {
    switch (p) {
        case Part::kStep: return "step";
        case Part::kRace: return "race";
        case Part::kUi: return "UI build";
        case Part::kOverlays: return "overlay build";
        case Part::kDraw: return "draw submission";
        case Part::kPresent: return "present / wait";
        case Part::kOther: return "other";
        case Part::kCount: break;
    }
    return "?";
}

const char* part_help(Part p) {
    switch (p) {
        case Part::kStep:
            return "The simulation step (integrate, broad phase, narrow phase, resolve) and its "
                   "rewind snapshot; zero while paused";
        case Part::kRace:
            return "Every algorithm on this frame's boxes, when the race runs, and the compare "
                   "panes' algorithms";
        case Part::kUi:
            return "ImGui's new frame, the panels, the labels and ImGui::Render (CPU only)";
        case Part::kOverlays:
            return "The CPU building what is drawn: the bodies' instances or arrays and their "
                   "upload, overlay lines and fills (the algorithm's draw()), implicit surfaces";
        case Part::kDraw:
            return "The CPU issuing the GL calls and uploads for the world and the panels; the "
                   "GPU may still be working when it ends";
        case Part::kPresent:
            return "SwapWindow: waiting for the GPU to finish and, with vsync, for the display";
        case Part::kOther: return "Events, input, the query region, screenshots, the state report";
        case Part::kCount: break;
    }
    return "";
}

void History::push(float v) {
    values_[next_] = v;
    next_ = (next_ + 1) % values_.size();
    ++pushed_;
}

float History::max() const {
    return *std::max_element(values_.begin(), values_.end());
}

float History::mean(std::size_t n) const {
    const std::size_t capacity = values_.size();
    n = std::min(n, capacity);
    if (n == 0) return 0.0f;
    double sum = 0.0;
    for (std::size_t i = 1; i <= n; ++i) sum += values_[(next_ + capacity - i) % capacity];
    return static_cast<float>(sum / static_cast<double>(n));
}

void FrameClock::start_frame() {
    frame_start_ = last_;
    parts_.fill(0.0);
}

void FrameClock::lap(Part p) {
    const Clock::time_point now = Clock::now();
    parts_[static_cast<std::size_t>(p)] += ms_between(last_, now);
    last_ = now;
}

void FrameClock::move(Part from, Part to, double ms) {
    parts_[static_cast<std::size_t>(from)] -= ms;
    parts_[static_cast<std::size_t>(to)] += ms;
}

double FrameClock::frame_ms() const {
    return ms_between(frame_start_, last_);
}

void FrameStats::record(double frame_ms, const std::array<double, kPartCount>& parts,
                        std::optional<double> gpu_ms, bool stepped,
                        const collide::StepTimings& step, const FrameFacts& facts) {
    frame_ms_.push(static_cast<float>(frame_ms));
    total_frame_ms_ += frame_ms;
    every_frame_ms_.push_back(static_cast<float>(frame_ms));
    for (std::size_t i = 0; i < kPartCount; ++i) {
        parts_[i].push(static_cast<float>(parts[i]));
        total_part_ms_[i] += parts[i];
    }
    // While paused the step's phases hold still instead of dropping to zero.
    if (stepped) {
        const std::array<double, kPhaseCount> ms = {step.integrate_ms, step.broad_ms,
                                                    step.narrow_ms, step.resolve_ms};
        for (std::size_t i = 0; i < kPhaseCount; ++i) {
            phases_[i].push(static_cast<float>(ms[i]));
            total_phase_ms_[i] += ms[i];
        }
        broad_trend_.push(static_cast<float>(step.broad_ms));
        moving_trend_.push(static_cast<float>(facts.moving));
        ++steps_;
    }
    if (gpu_ms) {
        gpu_ms_.push(static_cast<float>(*gpu_ms));
        total_gpu_ms_ += *gpu_ms;
        ++gpu_frames_;
    }
    last_ = facts;
    ++frames_;
}

void FrameStats::restart_recent() {
    frame_ms_ = History();
    for (History& h : parts_) h = History();
    for (History& h : phases_) h = History();
    gpu_ms_ = History();
    broad_trend_ = History(kTrendSteps);
    moving_trend_ = History(kTrendSteps);
}

// The recent histories are restarted with the world, so how full they are is how many
// frames, steps and GPU results the means are over.
std::size_t FrameStats::seen() const {
    return static_cast<std::size_t>(frame_ms_.filled());
}

float FrameStats::fps() const {
    const float mean = frame_ms_.mean(seen());
    return mean > 0.0f ? 1000.0f / mean : 0.0f;
}

FrameBreakdown FrameStats::breakdown() const {
    FrameBreakdown b;
    b.frames = seen();
    b.frame = frame_ms_.mean(b.frames);
    for (std::size_t i = 0; i < kPartCount; ++i) b.parts[i] = parts_[i].mean(b.frames);
    b.steps = static_cast<std::size_t>(phases_[0].filled());
    for (std::size_t i = 0; i < kPhaseCount; ++i) b.phases[i] = phases_[i].mean(b.steps);
    if (gpu_ms_.filled() > 0) {
        b.gpu = gpu_ms_.mean(static_cast<std::size_t>(gpu_ms_.filled()));
    }
    return b;
}

std::string FrameStats::summary(const std::string& algorithm, int dim, const std::string& scene,
                                std::size_t bodies) const {
    const auto per = [](double total, std::uint64_t n) {
        return n ? total / static_cast<double>(n) : 0.0;
    };
    const auto phase = [&](Phase p) {
        return per(total_phase_ms_[static_cast<std::size_t>(p)], steps_);
    };
    const auto part = [&](Part p) {
        return per(total_part_ms_[static_cast<std::size_t>(p)], frames_);
    };
    const double fps =
        total_frame_ms_ > 0 ? 1000.0 * static_cast<double>(frames_) / total_frame_ms_ : 0.0;
    const std::string gpu =
        gpu_frames_ ? format("%.3f ms", per(total_gpu_ms_, gpu_frames_)) : std::string("n/a");
    std::vector<float> sorted = every_frame_ms_;
    std::sort(sorted.begin(), sorted.end());
    const auto percentile = [&](std::size_t p) {
        return sorted.empty() ? 0.0 : double(sorted[(sorted.size() - 1) * p / 100]);
    };
    return format(
        "collidoscope: %s, %dD scene %s with %zu bodies: %llu frames (%llu steps) at "
        "%.2f fps on average (frame median %.3f ms, p99 %.3f ms). Per step: integrate %.3f ms, "
        "broad phase %.3f ms, narrow "
        "phase %.3f ms, resolve %.3f ms. Per frame (%.3f ms): step %.3f, race %.3f, UI build "
        "%.3f, overlay build %.3f, draw submission %.3f, present/wait %.3f, other %.3f ms; "
        "GPU %s alongside. Last frame: %zu pairs (%zu contacts) from %llu candidate tests, "
        "%d draw calls.\n",
        algorithm.c_str(), dim, scene.c_str(), bodies, static_cast<unsigned long long>(frames_),
        static_cast<unsigned long long>(steps_), fps, percentile(50), percentile(99),
        phase(Phase::kIntegrate), phase(Phase::kBroad), phase(Phase::kNarrow),
        phase(Phase::kResolve), per(total_frame_ms_, frames_), part(Part::kStep), part(Part::kRace),
        part(Part::kUi), part(Part::kOverlays), part(Part::kDraw), part(Part::kPresent),
        part(Part::kOther), gpu.c_str(), last_.pairs, last_.contacts,
        static_cast<unsigned long long>(last_.candidate_tests), last_.draw_calls);
}

}  // namespace collidoscope
