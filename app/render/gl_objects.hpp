// Small owning wrappers for OpenGL objects (buffer, vertex array, program, texture), so GL
// resources are released exactly once, in the right order, without new/delete or manual
// cleanup paths. They need a current GL context to be constructed and destroyed.
#pragma once

#include "render/gl_api.hpp"

#include <string>
#include <utility>

namespace collidoscope {

// Move-only owner of one GL name; `Deleter` releases it.
template <void (*Deleter)(GLuint)>
class GlName {
public:
    GlName() = default;
    explicit GlName(GLuint id) : id_(id) {}
    GlName(GlName&& o) noexcept : id_(std::exchange(o.id_, 0)) {}
    GlName& operator=(GlName&& o) noexcept {
        if (this != &o) {
            reset();
            id_ = std::exchange(o.id_, 0);
        }
        return *this;
    }
    GlName(const GlName&) = delete;
    GlName& operator=(const GlName&) = delete;
    ~GlName() { reset(); }

    GLuint get() const { return id_; }
    void reset() {
        if (id_ != 0) Deleter(id_);
        id_ = 0;
    }

private:
    GLuint id_ = 0;
};

void delete_buffer(GLuint id);
void delete_vertex_array(GLuint id);
void delete_program(GLuint id);
void delete_query(GLuint id);
void delete_texture(GLuint id);

using GlBuffer = GlName<delete_buffer>;
using GlVertexArray = GlName<delete_vertex_array>;
using GlProgram = GlName<delete_program>;
using GlQuery = GlName<delete_query>;
using GlTexture = GlName<delete_texture>;

GlBuffer make_buffer();
GlVertexArray make_vertex_array();
GlTexture make_texture();

// Compiles and links a program; throws std::runtime_error with the driver's log.
GlProgram make_program(const char* name, const char* vertex_source, const char* fragment_source);

// A GL_ARRAY_BUFFER for data rewritten every frame. Uploads orphan the old storage, so the
// driver never stalls waiting for the GPU to finish reading last frame's copy.
class StreamBuffer {
public:
    StreamBuffer() : buffer_(make_buffer()) {}
    GLuint get() const { return buffer_.get(); }
    // Binds the buffer to GL_ARRAY_BUFFER and replaces its contents. One glBufferSubData,
    // also for a million bodies: the driver stages the copy. Writing through a mapped
    // pointer instead took 16-20 s a frame at 1M bodies on one H100 virtual machine, likely
    // a store trapped at a time (docs/gpu-world.md).
    void upload(const void* data, std::size_t bytes);

private:
    GlBuffer buffer_;
    std::size_t capacity_ = 0;
};

}  // namespace collidoscope
