// What every GPU broad phase does around its own structure: upload the boxes and static
// flags, reduce the scene's bounds and size spread, let the algorithm build and find pairs,
// run the pair kernel again over the searches it left unfinished (pair_emit.glsl's step
// budget) until none is left, redo it all at the counted size if the buffer overflowed,
// sort the pairs by (a, b) and download them. The algorithm supplies build() and
// bind_pair_inputs(); the base keeps the timing (end to end by the caller, device-only by
// GL timer queries) and the statistics.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collide/broadphase.hpp"
#include "collide/broadphase_view.hpp"
#include "collide/gpu/compute_context.hpp"
#include "device_timer.hpp"
#include "pair_order.hpp"
#include "radix_sort.hpp"
#include "storage_buffer.hpp"

namespace collide::gpu {

// Binding points every kernel agrees on (common.glsl, pair_emit.glsl).
inline constexpr GLuint kBoxBinding = 0;
inline constexpr GLuint kStaticBinding = 1;
inline constexpr GLuint kPairCounterBinding = 6;
inline constexpr GLuint kPairABinding = 7;
inline constexpr GLuint kPairBBinding = 8;
inline constexpr GLuint kResumeInBinding = 11;
inline constexpr GLuint kResumeOutBinding = 12;
inline constexpr GLuint kResumeCountBinding = 13;

// The stages a frame's device time is told by; status() gives each one's mean.
enum Stage : std::size_t {
    kStageBounds,     // the scene's bounds and size spread
    kStageKeys,       // each body's sort key (cell, or Morton code)
    kStageKeySort,    // the radix sort of the keys
    kStageStructure,  // what is built on the sorted keys (cell starts, tree, node boxes)
    kStagePairs,      // the pair search, resumed passes included
    kStagePairSort,   // the pairs into (a, b) order
    kStageCount
};
inline constexpr std::array<const char*, kStageCount> kStageNames{
    "bounds", "keys", "key sort", "structure", "pairs", "pair sort"};

// The scene as the bounds pass measured it.
template <int D>
struct SceneBounds {
    Aabb<D> box;
    float min_side = 0;  // smallest and largest "largest side" of a body's box
    float max_side = 0;
};

// validate()'s box helpers: every coordinate finite; two boxes equal coordinate by
// coordinate.
template <int D>
bool finite_box(const Aabb<D>& b) {
    for (int k = 0; k < D; ++k) {
        if (!std::isfinite(b.lo[k]) || !std::isfinite(b.hi[k])) return false;
    }
    return true;
}
template <int D>
bool same_box(const Aabb<D>& a, const Aabb<D>& b) {
    return a.lo == b.lo && a.hi == b.hi;
}

template <int D>
class GpuBroadPhase : public BroadPhase<D>, public BroadPhaseView<D> {
public:
    void update_whole(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                      PairList& out) final;
    BroadPhaseStats stats() const override;
    std::string status() const override;
    // Watch mode's hooks are CPU code in the engine's loops; here the build and the pair
    // search are shader invocations, thousands at once, so set_watch() stays false.
    std::string why_not_recorded() const override {
        return "it runs on the GPU: its build and pair search are thousands of shader "
               "invocations at once, and Watch mode's hooks are CPU code in the engine's loops";
    }

protected:
    GpuBroadPhase();
    ~GpuBroadPhase() override;

    // Builds the structure over the uploaded boxes (n >= 1).
    virtual void build(const SceneBounds<D>& bounds) = 0;
    // Binds what the pair kernel reads beyond the boxes and static flags, and sets its own
    // uniforms, with the pair program in use. The base binds the pair output and the
    // resume lists, sets the common uniforms and dispatches the passes.
    virtual void bind_pair_inputs() = 0;
    // The pair program (built from common.glsl, pair_emit.glsl and the algorithm's kernel).
    virtual GLuint pair_program() = 0;
    // Structure statistics beyond the base's (nodes, depth, bytes of the structure).
    virtual BroadPhaseStats structure_stats() const = 0;

    // Ends the device timer's current stage and starts `stage` (build() starts in
    // kStageKeys and moves on through kStageKeySort and kStageStructure).
    void next_stage(Stage stage) { timer_.next(stage); }

    // The boxes of the last update, read back from the GPU when a view or query asks.
    const std::vector<Aabb<D>>& boxes_on_host() const;
    // One body's box of the last update (from the host copy if there is one, else read alone).
    Aabb<D> box_on_host(BodyId id) const;
    // validate()'s shared checks, throwing InvariantError("ALGORITHM: ..."): `ids` (the
    // sorted order the GPU left) holds every body of the last update exactly once.
    void check_permutation(std::string_view algorithm, std::span<const std::uint32_t> ids) const;

    std::shared_ptr<ComputeContext> context_;
    RadixSort sort_;
    StorageBuffer boxes_, statics_;
    std::size_t count_ = 0;
    SceneBounds<D> bounds_;

private:
    void bind_common() const;
    std::uint32_t run_pair_pass(std::uint32_t capacity, std::uint32_t& tests);

    StorageBuffer bounds_buffer_, counters_;
    StorageBuffer resume_in_, resume_out_, resume_count_;
    StorageBuffer pair_a_, pair_b_, pair_a_scratch_, pair_b_scratch_, interleaved_;
    PairOrder order_;
    std::uint32_t pair_capacity_ = 1024;
    DeviceTimer timer_;
    BroadPhaseStats stats_;
    int resume_passes_ = 0;  // passes after the first in the last update, for status()
    // The last kRecentUpdates updates' device ms by stage (status() gives their means: the
    // bench's timed frames, not its warm-up, whose first frame compiles the kernels).
    static constexpr std::size_t kRecentUpdates = 16;
    std::array<std::array<double, kStageCount>, kRecentUpdates> recent_stage_ms_{};
    std::size_t timed_updates_ = 0;
    mutable std::vector<Aabb<D>> host_boxes_;
    mutable bool host_boxes_fresh_ = false;
};

extern template class GpuBroadPhase<2>;
extern template class GpuBroadPhase<3>;

}  // namespace collide::gpu
