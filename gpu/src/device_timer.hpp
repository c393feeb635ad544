// The GPU's own clock over the stretches of a frame that run on it (GL timestamp queries
// at each stretch's start and end), so the bench can report device-only time beside end-to-
// end time. A frame has several stretches because the host reads small results between them
// (bounds, counts), and the host's side of those reads is not the device's time. Each
// stretch belongs to a stage, so the time can also be told by stage.
#pragma once

#include <glad/gl.h>

#include <cstdint>
#include <span>
#include <vector>

namespace collide::gpu {

class DeviceTimer {
public:
    ~DeviceTimer() {
        if (!queries_.empty()) glDeleteQueries(GLsizei(queries_.size()), queries_.data());
    }
    void start_frame() {
        used_ = 0;
        stages_.clear();
    }
    // Starts a stretch of stage `stage` (an index into frame_ms's `by_stage`).
    void begin(std::size_t stage) {
        stages_.push_back(stage);
        stamp();
    }
    void end() { stamp(); }
    // Ends the open stretch and starts one of `stage` at the same moment.
    void next(std::size_t stage) {
        end();
        begin(stage);
    }
    // The frame's stretches added up, in milliseconds (waits for the GPU to finish them);
    // each stretch's time is also added to by_stage[its stage] where that is in range.
    double frame_ms(std::span<double> by_stage = {}) const {
        std::uint64_t ns = 0;
        for (std::size_t i = 0; i + 1 < used_; i += 2) {
            GLuint64 start = 0, stop = 0;
            glGetQueryObjectui64v(queries_[i], GL_QUERY_RESULT, &start);
            glGetQueryObjectui64v(queries_[i + 1], GL_QUERY_RESULT, &stop);
            ns += stop - start;
            const std::size_t stage = stages_[i / 2];
            if (stage < by_stage.size())
                by_stage[stage] += static_cast<double>(stop - start) * 1e-6;
        }
        return static_cast<double>(ns) * 1e-6;
    }

private:
    void stamp() {
        if (used_ == queries_.size()) {
            queries_.push_back(0);
            glGenQueries(1, &queries_.back());
        }
        glQueryCounter(queries_[used_++], GL_TIMESTAMP);
    }

    std::vector<GLuint> queries_;
    std::vector<std::size_t> stages_;  // of each stretch begun this frame
    std::size_t used_ = 0;
};

}  // namespace collide::gpu
