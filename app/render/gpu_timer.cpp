#include "render/gpu_timer.hpp"

namespace collidoscope {

GpuTimer::GpuTimer() {
    GLint bits = 0;
    glGetQueryiv(GL_TIME_ELAPSED, GL_QUERY_COUNTER_BITS, &bits);
    supported_ = bits > 0;
    if (!supported_) return;
    for (GlQuery& q : queries_) {
        GLuint id = 0;
        glGenQueries(1, &id);
        q = GlQuery(id);
    }
}

void GpuTimer::begin() {
    result_.reset();
    if (!supported_) return;
    // The oldest slot: collect its result if it came back, else give up on it (a driver
    // that is four frames behind has a figure again on a later frame).
    const GLuint id = queries_[next_].get();
    if (pending_[next_]) {
        GLint available = 0;
        glGetQueryObjectiv(id, GL_QUERY_RESULT_AVAILABLE, &available);
        if (available) {
            GLuint64 ns = 0;
            glGetQueryObjectui64v(id, GL_QUERY_RESULT, &ns);
            // The very first frame's figure is dropped: Mesa's llvmpipe gives it as the time
            // since the context began (hours), not the frame's.
            if (!first_) result_ = static_cast<double>(ns) * 1e-6;
            first_ = false;
        }
        pending_[next_] = false;
    }
    glBeginQuery(GL_TIME_ELAPSED, id);
}

void GpuTimer::end() {
    if (!supported_) return;
    glEndQuery(GL_TIME_ELAPSED);
    // Submits the frame's commands now. Where the swap submits nothing (SDL's offscreen
    // driver, it seems), the query's end waits for the next frame's first flush, after its
    // step, and the figure holds the step: on an H100, 124 ms of "GPU" at one thread against
    // 16 at 16 threads, for the same drawing.
    glFlush();
    pending_[next_] = true;
    next_ = (next_ + 1) % kInFlight;
}

}  // namespace collidoscope
