// The GPU's own clock over the stretches of a frame that run on it (GL_TIME_ELAPSED
// queries), so the bench can report device-only time beside end-to-end time. A frame has
// several stretches because the host reads small results between them (bounds, counts).
#pragma once

#include <glad/gl.h>

#include <cstdint>
#include <vector>

namespace collide::gpu {

class DeviceTimer {
public:
    ~DeviceTimer() {
        if (!queries_.empty()) glDeleteQueries(GLsizei(queries_.size()), queries_.data());
    }
    void start_frame() { used_ = 0; }
    void begin() {
        if (used_ == queries_.size()) {
            queries_.push_back(0);
            glGenQueries(1, &queries_.back());
        }
        glBeginQuery(GL_TIME_ELAPSED, queries_[used_++]);
    }
    void end() { glEndQuery(GL_TIME_ELAPSED); }
    // The frame's stretches added up, in milliseconds (waits for the GPU to finish them).
    double frame_ms() const {
        std::uint64_t ns = 0;
        for (std::size_t i = 0; i < used_; ++i) {
            GLuint64 t = 0;
            glGetQueryObjectui64v(queries_[i], GL_QUERY_RESULT, &t);
            ns += t;
        }
        return static_cast<double>(ns) * 1e-6;
    }

private:
    std::vector<GLuint> queries_;
    std::size_t used_ = 0;
};

}  // namespace collide::gpu
