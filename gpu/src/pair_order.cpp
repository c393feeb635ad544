#include "pair_order.hpp"

#include <array>

#include "buffer_fill.hpp"
#include "shaders/gpu/pair_order.comp.hpp"

namespace collide::gpu {

namespace {
constexpr std::size_t kGroup = 256;
constexpr std::uint32_t kMaxRun = 64;  // pair_order.comp's: the longest run one thread sorts

// Runs pair_order.comp's stage `define` (built once as `key`) over `count` items, with the
// buffers bound.
void run_stage(ComputeContext& context, const char* key, const char* define, std::size_t count) {
    using namespace collidoscope::shaders;
    const GLuint p = context.program(key, 0, {define, kPairOrderComp});
    glUseProgram(p);
    set_uint(p, "u_count", static_cast<std::uint32_t>(count));
    dispatch(groups_for(count, kGroup));
}
}  // namespace

std::uint32_t PairOrder::count_runs(ComputeContext& context, StorageBuffer& a, std::size_t bodies,
                                    std::uint32_t pairs) {
    runs_.reserve(bodies * sizeof(std::uint32_t));
    fill_words(context, runs_, 0);
    longest_.reserve(4);
    longest_.fill(0);
    a.bind(2);
    runs_.bind(5);
    longest_.bind(6);
    run_stage(context, "pair_order_count", "#define COUNT\n", pairs);
    std::uint32_t longest = 0;
    longest_.download(std::span<std::uint32_t>(&longest, 1));
    return longest;
}

void PairOrder::order(ComputeContext& context, RadixSort& sort, StorageBuffer& a, StorageBuffer& b,
                      StorageBuffer& a_scratch, StorageBuffer& b_scratch, std::size_t bodies,
                      std::uint32_t pairs, std::uint32_t longest, StorageBuffer& out) {
    out.reserve(std::size_t{pairs} * 2 * sizeof(std::uint32_t));
    if (longest > kMaxRun) {
        const int bits = bits_below(bodies);
        const std::array<RadixSort::Field, 2> fields{{{1, bits}, {0, bits}}};
        const std::array<StorageBuffer*, 2> data{&a, &b};
        const std::array<StorageBuffer*, 2> scratch{&a_scratch, &b_scratch};
        sort.sort(context, data, scratch, pairs, fields);
        a.bind(2);
        b.bind(3);
        out.bind(4);
        run_stage(context, "pair_order_interleave", "#define INTERLEAVE\n", pairs);
        return;
    }
    sort.exclusive_scan(context, runs_, bodies);
    by_a_.reserve(std::size_t{pairs} * sizeof(std::uint32_t));
    a.bind(2);
    b.bind(3);
    out.bind(4);
    runs_.bind(5);
    by_a_.bind(7);
    run_stage(context, "pair_order_scatter", "#define SCATTER\n", pairs);
    run_stage(context, "pair_order_runs", "#define RUNS\n", bodies);
}

}  // namespace collide::gpu
