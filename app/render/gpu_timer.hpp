// The GPU's time for a frame's drawing, from OpenGL timer queries (GL_TIME_ELAPSED, core
// since 3.3; Mesa's llvmpipe has them). A result is read a few frames after its query, once
// the driver says it is available, so asking never stalls the CPU; until then, or where the
// driver has no timer (zero counter bits), there is no figure and the stats say "n/a".
#pragma once

#include <array>
#include <optional>

#include "render/gl_objects.hpp"

namespace collidoscope {

class GpuTimer {
public:
    // Needs a current GL context.
    GpuTimer();
    // Bracket the frame's GL work; at most one frame open at a time.
    void begin();
    void end();
    // The result that came back at this frame's begin() (an earlier frame's), in ms.
    std::optional<double> result() const { return result_; }

private:
    static constexpr int kInFlight = 4;
    std::array<GlQuery, kInFlight> queries_;
    std::array<bool, kInFlight> pending_{};
    int next_ = 0;
    bool supported_ = false;
    bool first_ = true;  // the first result is yet to come
    std::optional<double> result_;
};

}  // namespace collidoscope
