#include "collide/gpu/dot_splat.hpp"

#include <algorithm>
#include <cassert>

#include "buffer_fill.hpp"
#include "collide/gpu/compute_context.hpp"
#include "shaders/gpu/dot_splat.comp.hpp"
#include "storage_buffer.hpp"

namespace collide::gpu {

namespace {
constexpr std::size_t kGroup = 256;  // dot_splat.comp's local_size_x
}  // namespace

struct DotSplat::Impl {
    GLuint program = 0;
    StorageBuffer pixels;
};

DotSplat::DotSplat() : context_(shared_context()), impl_(std::make_unique<Impl>()) {
    impl_->program = context_->program("dot_splat", 2, {collidoscope::shaders::kDotSplatComp});
}

DotSplat::~DotSplat() = default;

void DotSplat::splat(unsigned positions, std::size_t count, const float* view_proj, int width,
                     int height) {
    assert(width > 0 && height > 0);
    context_->make_current();
    const GLuint program = impl_->program;
    StorageBuffer& pixels = impl_->pixels;
    pixels.reserve(std::size_t(width) * std::size_t(height) * 4);
    // The last frame's draw read these pixels; the clear and the marks come after it.
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    fill_words(*context_, pixels, 0);
    glUseProgram(program);
    set_uint(program, "u_count", static_cast<std::uint32_t>(count));
    glUniform2i(glGetUniformLocation(program, "u_size"), width, height);
    glUniformMatrix4fv(glGetUniformLocation(program, "u_view_proj"), 1, GL_FALSE, view_proj);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, positions);
    pixels.bind(1);
    dispatch(stride_groups(count, kGroup));
    // The renderer reads the pixels through a buffer texture.
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);
}

unsigned DotSplat::pixels() const {
    return impl_->pixels.id();
}

}  // namespace collide::gpu
