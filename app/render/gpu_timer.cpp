#include "render/gpu_timer.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten/html5.h>
#endif

namespace collidoscope {

namespace {
#ifdef __EMSCRIPTEN__
// WebGL2 times GPU work only through the EXT_disjoint_timer_query_webgl2 extension.
constexpr GLenum kTimeElapsed = 0x88BF;  // TIME_ELAPSED_EXT
constexpr GLenum kCounterBits = 0x8864;  // QUERY_COUNTER_BITS_EXT
bool timer_extension() {
    return emscripten_webgl_enable_extension(emscripten_webgl_get_current_context(),
                                             "EXT_disjoint_timer_query_webgl2");
}
// WebGL2 reads a query's result as a 32-bit word: nanoseconds up to 4 s, plenty for a frame.
void query_result_ns(GLuint id, GLuint64& ns) {
    GLuint low = 0;
    glGetQueryObjectuiv(id, GL_QUERY_RESULT, &low);
    ns = low;
}
#else
constexpr GLenum kTimeElapsed = GL_TIME_ELAPSED;
constexpr GLenum kCounterBits = GL_QUERY_COUNTER_BITS;
bool timer_extension() {
    return true;  // core since 3.3
}
void query_result_ns(GLuint id, GLuint64& ns) {
    glGetQueryObjectui64v(id, GL_QUERY_RESULT, &ns);
}
#endif
}  // namespace

GpuTimer::GpuTimer() {
    GLint bits = 0;
    if (timer_extension()) glGetQueryiv(kTimeElapsed, kCounterBits, &bits);
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
        GLuint available = 0;
        glGetQueryObjectuiv(id, GL_QUERY_RESULT_AVAILABLE, &available);
        if (available) {
            GLuint64 ns = 0;
            query_result_ns(id, ns);
            // The very first frame's figure is dropped: Mesa's llvmpipe gives it as the time
            // since the context began (hours), not the frame's.
            if (!first_) result_ = static_cast<double>(ns) * 1e-6;
            first_ = false;
        }
        pending_[next_] = false;
    }
    glBeginQuery(kTimeElapsed, id);
}

void GpuTimer::end() {
    if (!supported_) return;
    glEndQuery(kTimeElapsed);
    // Submits the frame's commands now. Where the swap submits nothing (SDL's offscreen
    // driver, it seems), the query's end waits for the next frame's first flush, after its
    // step, and the figure holds the step: on an H100, 124 ms of "GPU" at one thread against
    // 16 at 16 threads, for the same drawing.
    glFlush();
    pending_[next_] = true;
    next_ = (next_ + 1) % kInFlight;
}

}  // namespace collidoscope
