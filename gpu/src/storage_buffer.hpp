// A GL shader storage buffer that grows as asked and never shrinks, so a steady workload
// allocates nothing per frame. Uploads and downloads are plain glBufferSubData and
// glGetBufferSubData: the download is the frame's one synchronisation point.
#pragma once

#include <glad/gl.h>

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

namespace collide::gpu {

class StorageBuffer {
public:
    StorageBuffer() = default;
    ~StorageBuffer() {
        if (id_ != 0) glDeleteBuffers(1, &id_);
    }
    StorageBuffer(StorageBuffer&& o) noexcept
        : id_(std::exchange(o.id_, 0)), bytes_(std::exchange(o.bytes_, 0)) {}
    StorageBuffer& operator=(StorageBuffer&& o) noexcept {
        std::swap(id_, o.id_);
        std::swap(bytes_, o.bytes_);
        return *this;
    }

    // At least `bytes` (never zero, so every binding is valid); the contents are lost on growth.
    void reserve(std::size_t bytes) {
        bytes = std::max<std::size_t>(bytes, 16);
        if (id_ != 0 && bytes <= bytes_) return;
        if (id_ == 0) glGenBuffers(1, &id_);
        // Grow by half again, so a slowly rising count does not reallocate every frame, and
        // in whole 16-byte units: glClearBufferData clears nothing (GL_INVALID_VALUE) where
        // the size is not a multiple of its 4-byte format, and fill() relies on it.
        bytes_ = (std::max(bytes, bytes_ + bytes_ / 2) + 15) / 16 * 16;
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, id_);
        glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(bytes_), nullptr,
                     GL_DYNAMIC_COPY);
    }
    template <class T>
    void upload(std::span<const T> data, std::size_t offset_bytes = 0) {
        reserve(offset_bytes + data.size_bytes());
        if (data.empty()) return;
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, id_);
        glBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(offset_bytes),
                        static_cast<GLsizeiptr>(data.size_bytes()), data.data());
    }
    template <class T>
    void download(std::span<T> out, std::size_t offset_bytes = 0) const {
        assert(offset_bytes + out.size_bytes() <= bytes_);
        if (out.empty()) return;
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, id_);
        glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(offset_bytes),
                           static_cast<GLsizeiptr>(out.size_bytes()), out.data());
    }
    // Sets every 32-bit word to `value`.
    void fill(std::uint32_t value) {
        assert(bytes_ % 4 == 0);  // else GL clears nothing
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, id_);
        glClearBufferData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT,
                          &value);
    }
    // Sets the 32-bit word at `offset_bytes` to `value` on the GPU's side, in order with the
    // other commands (an upload there could wait for the GPU to finish with the buffer).
    void fill_word(std::size_t offset_bytes, std::uint32_t value) {
        assert(offset_bytes + 4 <= bytes_);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, id_);
        glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, GLintptr(offset_bytes), 4,
                             GL_RED_INTEGER, GL_UNSIGNED_INT, &value);
    }
    void bind(GLuint binding) const { glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, id_); }
    std::size_t bytes() const { return bytes_; }
    GLuint id() const { return id_; }

private:
    GLuint id_ = 0;
    std::size_t bytes_ = 0;
};

// Groups of `group` threads covering `n` items.
inline GLuint groups_for(std::size_t n, std::size_t group) {
    return static_cast<GLuint>((n + group - 1) / group);
}

// Groups of `group` threads for a grid-stride loop over `n` items: at least one, and no more
// than one dispatch takes (the kernel loops over the rest).
inline GLuint stride_groups(std::size_t n, std::size_t group) {
    constexpr std::size_t kMaxGroups = 65535;
    return static_cast<GLuint>(std::clamp<std::size_t>(groups_for(n, group), 1, kMaxGroups));
}

// Uniform `name` of `program`, which must be the one in use.
inline void set_uint(GLuint program, const char* name, std::uint32_t value) {
    glUniform1ui(glGetUniformLocation(program, name), value);
}
inline void set_float(GLuint program, const char* name, float value) {
    glUniform1f(glGetUniformLocation(program, name), value);
}

// Runs `program` over `groups` work groups, after the previous passes' writes to storage
// buffers are visible (each pass reads what the one before it wrote).
inline void dispatch(GLuint groups) {
    if (groups == 0) return;
    glDispatchCompute(groups, 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
}

}  // namespace collide::gpu
