#include "gpu_broadphase.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdio>
#include <cstring>

#include "shaders/gpu/bounds.comp.hpp"
#include "shaders/gpu/common.glsl.hpp"

namespace collide::gpu {

namespace {

constexpr std::size_t kGroup = 256;  // threads per group in every per-body kernel
// A dispatch has at most 65,535 groups in x (GL's guaranteed minimum).
constexpr std::size_t kMaxBodies = kGroup * 65535;
// Steps of a body's pair search per pass (pair_emit.glsl): the first pass's budget is far
// above what an ordinary body needs, and each further pass doubles it, up to a cap that
// keeps a thread well under llvmpipe's 65,535 loop iterations.
constexpr std::uint32_t kFirstStepBudget = 1024;
constexpr std::uint32_t kMaxStepBudget = 8192;
constexpr std::size_t kResumeEntry = 4 * sizeof(std::uint32_t);  // a uvec4

float from_ordered(std::uint32_t u) {
    const std::uint32_t bits = (u & 0x80000000u) != 0 ? (u & 0x7FFFFFFFu) : ~u;
    return std::bit_cast<float>(bits);
}

}  // namespace

template <int D>
GpuBroadPhase<D>::GpuBroadPhase() : context_(shared_context()) {
    static_assert(sizeof(Aabb<D>) == 2 * D * sizeof(float), "boxes upload as they are");
    static_assert(sizeof(Pair) == 2 * sizeof(std::uint32_t), "pairs download as they are");
}

template <int D>
GpuBroadPhase<D>::~GpuBroadPhase() {
    // The buffers die with this object: their context must be current.
    context_->make_current();
}

template <int D>
void GpuBroadPhase<D>::bind_common() const {
    boxes_.bind(kBoxBinding);
    statics_.bind(kStaticBinding);
}

template <int D>
std::uint32_t GpuBroadPhase<D>::run_pair_pass(std::uint32_t capacity, std::uint32_t& tests) {
    const std::array<std::uint32_t, 2> zero{0, 0};
    counters_.upload(std::span<const std::uint32_t>(zero));
    pair_a_.reserve(std::size_t{capacity} * 4);
    pair_b_.reserve(std::size_t{capacity} * 4);
    // A pass leaves at most one entry a thread, so count_ entries always hold them.
    resume_in_.reserve(count_ * kResumeEntry);
    resume_out_.reserve(count_ * kResumeEntry);
    resume_count_.reserve(4);
    const GLuint program = pair_program();
    glUseProgram(program);
    set_uint(program, "u_count", static_cast<std::uint32_t>(count_));
    set_uint(program, "u_pair_capacity", capacity);
    bind_common();
    counters_.bind(kPairCounterBinding);
    pair_a_.bind(kPairABinding);
    pair_b_.bind(kPairBBinding);
    resume_count_.bind(kResumeCountBinding);
    bind_pair_inputs();
    auto jobs = static_cast<std::uint32_t>(count_);
    std::uint32_t budget = kFirstStepBudget;
    resume_passes_ = 0;
    for (bool resuming = false; jobs > 0; resuming = true) {
        resume_count_.fill(0);
        set_uint(program, "u_jobs", jobs);
        set_uint(program, "u_resuming", resuming ? 1u : 0u);
        set_uint(program, "u_step_budget", budget);
        resume_in_.bind(kResumeInBinding);
        resume_out_.bind(kResumeOutBinding);
        timer_.begin(kStagePairs);
        dispatch(groups_for(jobs, kGroup));
        timer_.end();
        resume_count_.download(std::span<std::uint32_t>(&jobs, 1));
        assert(jobs <= count_);
        std::swap(resume_in_, resume_out_);
        budget = std::min(2 * budget, kMaxStepBudget);
        if (jobs > 0) ++resume_passes_;
    }
    std::array<std::uint32_t, 2> counted{};
    counters_.download(std::span<std::uint32_t>(counted));
    tests = counted[1];
    return counted[0];
}

template <int D>
void GpuBroadPhase<D>::update_whole(std::span<const Aabb<D>> boxes,
                                    std::span<const std::uint8_t> is_static, PairList& out) {
    assert(boxes.size() == is_static.size());
    if (boxes.size() > kMaxBodies) {
        throw GpuError("the GPU broad phases take at most " + std::to_string(kMaxBodies) +
                       " bodies; this scene has " + std::to_string(boxes.size()));
    }
    context_->make_current();
    out.clear();
    count_ = boxes.size();
    host_boxes_fresh_ = false;
    timer_.start_frame();
    stats_ = {};
    boxes_.upload(boxes);
    // The kernels read the flags a word at a time: whole words, even past the last body.
    statics_.reserve((count_ + 3) / 4 * 4);
    statics_.upload(is_static);
    if (count_ == 0) {
        stats_.device_ms = 0;
        return;
    }

    // The bounds and the size spread: the host needs them to lay out the grid's levels and
    // to scale the Morton codes, so they come back before the build.
    using namespace collidoscope::shaders;
    const std::array<std::uint32_t, 8> start{~0u, ~0u, ~0u, 0, 0, 0, ~0u, 0};
    bounds_buffer_.upload(std::span<const std::uint32_t>(start));
    const GLuint bounds_program = context_->program("bounds", D, {kCommonGlsl, kBoundsComp});
    glUseProgram(bounds_program);
    set_uint(bounds_program, "u_count", static_cast<std::uint32_t>(count_));
    bind_common();
    bounds_buffer_.bind(2);
    timer_.begin(kStageBounds);
    dispatch(groups_for(count_, kGroup));
    timer_.end();
    std::array<std::uint32_t, 8> measured{};
    bounds_buffer_.download(std::span<std::uint32_t>(measured));
    for (int k = 0; k < D; ++k) {
        bounds_.box.lo[k] = from_ordered(measured[k]);
        bounds_.box.hi[k] = from_ordered(measured[3 + k]);
    }
    bounds_.min_side = from_ordered(measured[6]);
    bounds_.max_side = from_ordered(measured[7]);

    timer_.begin(kStageKeys);
    build(bounds_);
    timer_.end();
    std::uint32_t tests = 0;
    std::uint32_t found = 0;
    if (count_ >= 2) {
        found = run_pair_pass(pair_capacity_, tests);
        if (found > pair_capacity_) {
            // Never truncated: the pass runs again with room for every pair it counted.
            pair_capacity_ = found;
            const std::uint32_t again = run_pair_pass(pair_capacity_, tests);
            assert(again == found);
            (void)again;
        }
    }
    if (found > 0) {
        // One order, whatever order the threads found them in: by a, then by b.
        timer_.begin(kStagePairSort);
        const std::uint32_t longest = order_.count_runs(*context_, pair_a_, count_, found);
        timer_.end();  // count_runs read back: the device idled
        timer_.begin(kStagePairSort);
        order_.order(*context_, sort_, pair_a_, pair_b_, pair_a_scratch_, pair_b_scratch_, count_,
                     found, longest, interleaved_);
        timer_.end();
        out.resize(found);
        interleaved_.download(std::span<Pair>(out));
    }
    stats_ = structure_stats();
    stats_.candidate_tests = tests;
    std::array<double, kStageCount>& stages = recent_stage_ms_[timed_updates_ % kRecentUpdates];
    stages.fill(0.0);
    stats_.device_ms = timer_.frame_ms(stages);
    ++timed_updates_;
    stats_.structure_bytes += boxes_.bytes() + statics_.bytes() + pair_a_.bytes() +
                              pair_b_.bytes() + pair_a_scratch_.bytes() + pair_b_scratch_.bytes() +
                              interleaved_.bytes() + sort_.bytes() + order_.bytes();
}

template <int D>
BroadPhaseStats GpuBroadPhase<D>::stats() const {
    return stats_;
}

template <int D>
std::string GpuBroadPhase<D>::status() const {
    std::string s = "GPU: " + context_->renderer() + " (" + context_->origin() + ")";
    if (timed_updates_ > 0) {
        const std::size_t frames = std::min(timed_updates_, kRecentUpdates);
        s += "; device ms a frame, mean of the last " + std::to_string(frames) + ":";
        for (std::size_t k = 0; k < kStageCount; ++k) {
            double sum = 0;
            for (std::size_t f = 0; f < frames; ++f) sum += recent_stage_ms_[f][k];
            char line[64];
            std::snprintf(line, sizeof line, "%s %s %.3f", k == 0 ? "" : ",", kStageNames[k],
                          sum / static_cast<double>(frames));
            s += line;
        }
    }
    if (resume_passes_ > 0) {
        s += "; pair search resumed over " + std::to_string(resume_passes_) +
             " more passes (bodies with very many neighbours)";
    }
    return s;
}

template <int D>
const std::vector<Aabb<D>>& GpuBroadPhase<D>::boxes_on_host() const {
    if (!host_boxes_fresh_) {
        context_->make_current();
        host_boxes_.resize(count_);
        boxes_.download(std::span<Aabb<D>>(host_boxes_));
        host_boxes_fresh_ = true;
    }
    return host_boxes_;
}

template <int D>
Aabb<D> GpuBroadPhase<D>::box_on_host(BodyId id) const {
    assert(id < count_);
    if (host_boxes_fresh_) return host_boxes_[id];
    context_->make_current();
    Aabb<D> box;
    boxes_.download(std::span<Aabb<D>>(&box, 1), std::size_t{id} * sizeof(Aabb<D>));
    return box;
}

template <int D>
void GpuBroadPhase<D>::check_permutation(std::string_view algorithm,
                                         std::span<const std::uint32_t> ids) const {
    const InvariantFail fail(algorithm);
    if (ids.size() != count_) {
        fail(std::to_string(ids.size()) + " ids for " + std::to_string(count_) + " bodies");
    }
    std::vector<std::uint32_t> seen_at(count_, ~0u);
    for (std::size_t p = 0; p < ids.size(); ++p) {
        const std::uint32_t id = ids[p];
        if (id >= count_) {
            fail("sorted position " + std::to_string(p) + " holds id " + std::to_string(id) +
                 ", past the " + std::to_string(count_) + " bodies");
        }
        if (seen_at[id] != ~0u) {
            fail("id " + std::to_string(id) + " at sorted positions " +
                 std::to_string(seen_at[id]) + " and " + std::to_string(p));
        }
        seen_at[id] = static_cast<std::uint32_t>(p);
    }
}

template class GpuBroadPhase<2>;
template class GpuBroadPhase<3>;

}  // namespace collide::gpu
