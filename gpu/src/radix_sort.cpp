#include "radix_sort.hpp"

#include <bit>
#include <cassert>
#include <utility>

#include "shaders/gpu/radix_count.comp.hpp"
#include "shaders/gpu/radix_scan.comp.hpp"
#include "shaders/gpu/radix_scatter.comp.hpp"

namespace collide::gpu {

namespace {
constexpr std::size_t kBlock = 1024;  // keys per work group (256 threads x 4)
constexpr int kDigitBits = 4;
}  // namespace

int bits_below(std::size_t n) {
    return n <= 1 ? 0 : static_cast<int>(std::bit_width(n - 1));
}

void RadixSort::sort(ComputeContext& context, std::span<StorageBuffer* const> data,
                     std::span<StorageBuffer* const> scratch, std::size_t count,
                     std::span<const Field> fields) {
    assert(data.size() == scratch.size() && !data.empty() && data.size() <= 3);
    if (count <= 1) return;
    using namespace collidoscope::shaders;
    const GLuint count_program = context.program("radix_count", 0, {kRadixCountComp});
    const GLuint scan_program = context.program("radix_scan", 0, {kRadixScanComp});
    const GLuint scatter_program = context.program("radix_scatter", 0, {kRadixScatterComp});
    const GLuint blocks = groups_for(count, kBlock);
    histogram_.reserve(std::size_t{16} * blocks * sizeof(std::uint32_t));
    unused_.reserve(16);
    const auto words = static_cast<GLuint>(data.size());
    for (StorageBuffer* s : scratch) s->reserve(count * sizeof(std::uint32_t));

    bool in_scratch = false;  // after an odd number of passes the records sit in scratch
    for (const Field& field : fields) {
        for (int shift = 0; shift < field.bits; shift += kDigitBits) {
            std::span<StorageBuffer* const> src = in_scratch ? scratch : data;
            std::span<StorageBuffer* const> dst = in_scratch ? data : scratch;
            glUseProgram(count_program);
            glUniform1ui(glGetUniformLocation(count_program, "u_count"), GLuint(count));
            glUniform1ui(glGetUniformLocation(count_program, "u_shift"), GLuint(shift));
            glUniform1ui(glGetUniformLocation(count_program, "u_blocks"), blocks);
            src[field.word]->bind(0);
            histogram_.bind(1);
            dispatch(blocks);

            glUseProgram(scan_program);
            glUniform1ui(glGetUniformLocation(scan_program, "u_count"), 16 * blocks);
            dispatch(1);

            glUseProgram(scatter_program);
            glUniform1ui(glGetUniformLocation(scatter_program, "u_count"), GLuint(count));
            glUniform1ui(glGetUniformLocation(scatter_program, "u_shift"), GLuint(shift));
            glUniform1ui(glGetUniformLocation(scatter_program, "u_blocks"), blocks);
            glUniform1ui(glGetUniformLocation(scatter_program, "u_words"), words);
            glUniform1ui(glGetUniformLocation(scatter_program, "u_key_word"), GLuint(field.word));
            for (GLuint w = 0; w < 3; ++w) {
                if (w < words) {
                    src[w]->bind(2 + w);
                    dst[w]->bind(5 + w);
                } else {
                    unused_.bind(2 + w);
                    unused_.bind(5 + w);
                }
            }
            dispatch(blocks);
            in_scratch = !in_scratch;
        }
    }
    if (in_scratch) {
        for (std::size_t w = 0; w < data.size(); ++w) std::swap(*data[w], *scratch[w]);
    }
}

}  // namespace collide::gpu
