#include "radix_sort.hpp"

#include <bit>
#include <cassert>
#include <utility>

#include "shaders/gpu/radix_count.comp.hpp"
#include "shaders/gpu/radix_scan.comp.hpp"
#include "shaders/gpu/radix_scan_tiles.comp.hpp"
#include "shaders/gpu/radix_scatter.comp.hpp"

namespace collide::gpu {

namespace {
constexpr std::size_t kBlock = 1024;  // keys per work group (256 threads x 4)
constexpr int kDigitBits = 8;
constexpr std::size_t kDigits = std::size_t{1} << kDigitBits;
constexpr std::size_t kScanTile = 2048;  // counts per group of the multi-group scan
}  // namespace

int bits_below(std::size_t n) {
    return n <= 1 ? 0 : static_cast<int>(std::bit_width(n - 1));
}

void RadixSort::exclusive_scan(ComputeContext& context, StorageBuffer& values, std::size_t count) {
    using namespace collidoscope::shaders;
    if (count == 0) return;
    // Each tile's total, the totals scanned in one group, then each tile from its start.
    const GLuint tile_sums_program =
        context.program("radix_scan_tile_sums", 0, {"#define TILE_SUMS\n", kRadixScanTilesComp});
    const GLuint one_group_scan = context.program("radix_scan", 0, {kRadixScanComp});
    const GLuint tiles_program = context.program("radix_scan_tiles", 0, {kRadixScanTilesComp});
    const GLuint tiles = groups_for(count, kScanTile);
    tiles_.reserve(std::size_t{tiles} * sizeof(std::uint32_t));
    glUseProgram(tile_sums_program);
    set_uint(tile_sums_program, "u_count", GLuint(count));
    values.bind(1);
    tiles_.bind(2);
    dispatch(tiles);
    glUseProgram(one_group_scan);
    set_uint(one_group_scan, "u_count", tiles);
    tiles_.bind(1);
    dispatch(1);
    glUseProgram(tiles_program);
    set_uint(tiles_program, "u_count", GLuint(count));
    values.bind(1);
    tiles_.bind(2);
    dispatch(tiles);
}

void RadixSort::sort(ComputeContext& context, std::span<StorageBuffer* const> data,
                     std::span<StorageBuffer* const> scratch, std::size_t count,
                     std::span<const Field> fields) {
    assert(data.size() == scratch.size() && !data.empty() && data.size() <= 3);
    if (count <= 1) return;
    using namespace collidoscope::shaders;
    const GLuint count_program = context.program("radix_count", 0, {kRadixCountComp});
    const GLuint scatter_program = context.program("radix_scatter", 0, {kRadixScatterComp});
    const GLuint blocks = groups_for(count, kBlock);
    const auto counts = static_cast<GLuint>(kDigits * blocks);
    histogram_.reserve(std::size_t{counts} * sizeof(std::uint32_t));
    unused_.reserve(16);
    const auto words = static_cast<GLuint>(data.size());
    for (StorageBuffer* s : scratch) s->reserve(count * sizeof(std::uint32_t));

    bool in_scratch = false;  // after an odd number of passes the records sit in scratch
    for (const Field& field : fields) {
        for (int shift = 0; shift < field.bits; shift += kDigitBits) {
            std::span<StorageBuffer* const> src = in_scratch ? scratch : data;
            std::span<StorageBuffer* const> dst = in_scratch ? data : scratch;
            glUseProgram(count_program);
            set_uint(count_program, "u_count", GLuint(count));
            set_uint(count_program, "u_shift", GLuint(shift));
            set_uint(count_program, "u_blocks", blocks);
            src[field.word]->bind(0);
            histogram_.bind(1);
            dispatch(blocks);

            exclusive_scan(context, histogram_, counts);

            glUseProgram(scatter_program);
            histogram_.bind(1);  // the scanned counts: each (digit, block)'s first slot
            set_uint(scatter_program, "u_count", GLuint(count));
            set_uint(scatter_program, "u_shift", GLuint(shift));
            set_uint(scatter_program, "u_blocks", blocks);
            set_uint(scatter_program, "u_words", words);
            set_uint(scatter_program, "u_key_word", GLuint(field.word));
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
