#include "frame_stats.hpp"

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

}  // namespace

const char* phase_name(Phase p) {
    switch (p) {
        case Phase::kIntegrate: return "integrate";
        case Phase::kBroad: return "broad phase";
        case Phase::kNarrow: return "narrow phase";
        case Phase::kResolve: return "resolve";
        case Phase::kRender: return "render";
        case Phase::kCount: break;
    }
    return "?";
}

void History::push(float v) {
    values_[next_] = v;
    next_ = (next_ + 1) % kHistory;
}

float History::max() const {
    return *std::max_element(values_.begin(), values_.end());
}

void FrameStats::record(double frame_ms, bool stepped, const collide::StepTimings& step,
                        double render_ms, const FrameFacts& facts) {
    const std::array<double, kPhaseCount> ms = {step.integrate_ms, step.broad_ms, step.narrow_ms,
                                                step.resolve_ms, render_ms};
    frame_ms_.push(static_cast<float>(frame_ms));
    for (std::size_t i = 0; i < kPhaseCount; ++i) {
        // While paused the step's plots hold still instead of dropping to zero.
        const bool is_step_phase = static_cast<Phase>(i) != Phase::kRender;
        if (is_step_phase && !stepped) continue;
        phases_[i].push(static_cast<float>(ms[i]));
        total_phase_ms_[i] += ms[i];
    }
    last_ = facts;
    ++frames_;
    if (stepped) ++steps_;
    total_frame_ms_ += frame_ms;
}

float FrameStats::fps() const {
    // Frames not yet recorded are zeros; average only over what has been seen.
    const std::size_t seen = std::min<std::uint64_t>(frames_, kHistory);
    if (seen == 0) return 0.0f;
    float sum = 0.0f;
    for (std::size_t i = 0; i < seen; ++i) {
        sum += frame_ms_.data()[(frame_ms_.offset() + kHistory - 1 - i) % kHistory];
    }
    return sum > 0.0f ? 1000.0f * static_cast<float>(seen) / sum : 0.0f;
}

std::string FrameStats::summary(const std::string& algorithm, int dim, const std::string& scene,
                                std::size_t bodies) const {
    auto per_step = [&](Phase p) {
        return steps_ ? total_phase_ms_[static_cast<std::size_t>(p)] / static_cast<double>(steps_)
                      : 0.0;
    };
    const double fps =
        total_frame_ms_ > 0 ? 1000.0 * static_cast<double>(frames_) / total_frame_ms_ : 0.0;
    const double render = frames_ ? total_phase_ms_[static_cast<std::size_t>(Phase::kRender)] /
                                        static_cast<double>(frames_)
                                  : 0.0;
    return format(
        "collidoscope: %s, %dD scene %s with %zu bodies: %llu frames (%llu steps) at "
        "%.2f fps on average. Per step: integrate %.3f ms, broad phase %.3f ms, narrow "
        "phase %.3f ms, resolve %.3f ms; render %.3f ms per frame. Last frame: %zu "
        "pairs (%zu contacts) from %llu candidate tests, %d draw calls.\n",
        algorithm.c_str(), dim, scene.c_str(), bodies, static_cast<unsigned long long>(frames_),
        static_cast<unsigned long long>(steps_), fps, per_step(Phase::kIntegrate),
        per_step(Phase::kBroad), per_step(Phase::kNarrow), per_step(Phase::kResolve), render,
        last_.pairs, last_.contacts, static_cast<unsigned long long>(last_.candidate_tests),
        last_.draw_calls);
}

}  // namespace collidoscope
