// GpuWorld<D>: the world of circles (D = 2) or spheres (D = 3) living in GPU buffers and
// stepped entirely by compute shaders: integrate with gravity and the walls, boxes, the
// levelled grid (gpu-grid's kernels, laid out once from the walls and the radii, so nothing
// is read back to build it), the pair list sorted by (a, b), the narrow phase, and contact
// resolution with the CPU world's settings (dt, substeps, iterations, restitution, position
// correction). Each body sums its contacts' impulses in the pair list's order, and there are
// no float atomics, so two runs on one GPU give the same bits. The solve differs from the
// CPU's sequential impulses, as a parallel one must:
// - without gravity every contact is a two-body collision, as on the CPU; a body takes one
//   per iteration (its fastest approach, when the other body picked the same), which keeps
//   the energy as exactly as the CPU does;
// - with gravity, Jacobi iterations with mass splitting (each body's mass shared among its
//   contacts), warm-started from the last step's impulses; since Jacobi carries support up
//   a pile one contact per iteration, a penetration beyond 2% of the radius also gets a
//   separation speed, so the support builds up over the next steps.
// The panels' figures come back asynchronously (fences over a ring of small copies), so a
// step never waits on a readback. Left out: implicit bodies, swept steps and the tunnelling
// check; unsupported() says which a world has.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collide/bodies.hpp"
#include "collide/broadphase.hpp"
#include "collide/gpu/compute_context.hpp"

namespace collide::gpu {

// The GL buffer names the renderer draws from: D floats of position and of velocity a
// body, one float radius, one float inverse mass (0 = static; the second float of each pair
// is the body's contact count).
struct BodyBuffers {
    unsigned pos = 0, vel = 0, radius = 0, mass = 0;
    std::size_t count = 0;
};

// Device milliseconds of each phase of one step (GL timer queries), summed over substeps.
struct GpuStepTimes {
    double integrate_ms = 0, broad_ms = 0, narrow_ms = 0, resolve_ms = 0;
    double total_ms() const { return integrate_ms + broad_ms + narrow_ms + resolve_ms; }
};

// What the panels read, as of a recent step (`step`): it arrives a frame or two late.
template <int D>
struct GpuWorldReadback {
    std::uint64_t step = 0;      // 0: nothing has come back yet
    std::uint32_t pairs = 0;     // found by the broad phase (all, also past the capacity)
    std::uint32_t tests = 0;     // candidate box tests
    std::uint32_t contacts = 0;  // touching pairs in the last substep
    std::uint32_t capacity = 0;  // pair slots then: pairs beyond it were dropped that step
    BodyId watched = kNoBody;    // the body asked for, and its state
    Vec<D> pos{0.0f};
    Vec<D> vel{0.0f};
    GpuStepTimes times;
    // The speeds of an even sample of the moving bodies (at most kSpeedSamples), for the
    // colour scale.
    std::vector<float> speeds;
};

inline constexpr std::size_t kSpeedSamples = 4096;

template <int D>
class GpuWorld {
public:
    // Why this world cannot run on the GPU (implicit bodies, swept steps), or nothing.
    static std::optional<std::string> unsupported(const WorldSettings<D>& settings,
                                                  const Bodies<D>& bodies);

    // Uploads the bodies; `steps` continues the count of the world they come from. Throws
    // GpuError (no GL 4.3 context, or too many bodies) or std::invalid_argument (unsupported).
    GpuWorld(const WorldSettings<D>& settings, const Bodies<D>& bodies, std::uint64_t steps = 0);
    ~GpuWorld();
    GpuWorld(const GpuWorld&) = delete;
    GpuWorld& operator=(const GpuWorld&) = delete;

    // One step. `watched` is the body whose state the next readback carries.
    void step(BodyId watched = kNoBody);
    // Restitution, gravity and dt may change live; the walls and the bodies may not.
    void set_settings(const WorldSettings<D>& settings);
    const WorldSettings<D>& settings() const { return settings_; }
    std::uint64_t steps() const { return steps_; }
    std::size_t size() const { return count_; }

    // The newest readback that has arrived (polls the fences, never waits).
    const GpuWorldReadback<D>& readback();
    // The newest readback polled so far.
    const GpuWorldReadback<D>& latest() const { return latest_; }
    // Steps whose pair list overflowed its buffer (pairs dropped); the buffer grows after.
    std::uint64_t overflowed_steps() const { return overflowed_steps_; }

    // Synchronous reads, for tests, switching back to the CPU world, and picking.
    void download(std::vector<Vec<D>>& pos, std::vector<Vec<D>>& vel) const;
    // The last step's broad-phase pairs, sorted by (a, b).
    PairList pairs() const;
    // Puts one body somewhere (a drag); it takes effect at the next step.
    void move_body(BodyId id, const Vec<D>& pos, const Vec<D>& vel);

    BodyBuffers buffers() const;
    const ComputeContext& context() const { return *context_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::shared_ptr<ComputeContext> context_;
    WorldSettings<D> settings_;
    std::size_t count_ = 0;
    std::uint64_t steps_ = 0;
    std::uint64_t overflowed_steps_ = 0;
    GpuWorldReadback<D> latest_;
};

extern template class GpuWorld<2>;
extern template class GpuWorld<3>;

}  // namespace collide::gpu
