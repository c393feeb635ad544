#include "buffer_fill.hpp"

#include <cassert>

#include "shaders/gpu/fill.comp.hpp"

namespace collide::gpu {

void fill_words(ComputeContext& context, const StorageBuffer& buffer, std::uint32_t value) {
    constexpr std::size_t kGroup = 256;  // fill.comp's local_size_x
    assert(buffer.bytes() % 16 == 0);    // StorageBuffer::reserve rounds to 16 bytes
    const GLuint program = context.program("fill", 0, {collidoscope::shaders::kFillComp});
    glUseProgram(program);
    const std::size_t vectors = buffer.bytes() / 16;
    set_uint(program, "u_count", static_cast<std::uint32_t>(vectors));
    set_uint(program, "u_value", value);
    buffer.bind(0);
    dispatch(stride_groups(vectors, kGroup));
}

}  // namespace collide::gpu
