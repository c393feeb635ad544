// Handing a world's bodies to the GPU world (collide/gpu/gpu_world.hpp: the same bodies
// stepped by compute shaders) and back, keeping every position and velocity to the float,
// the step count and the settings; and why a world may not go (implicit bodies, swept steps,
// the tunnelling check, removed bodies, no OpenGL 4.3 context, a software GPU).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "collide/world.hpp"

namespace collide::gpu {
template <int D>
class GpuWorld;
template <int D>
struct GpuWorldReadback;
}  // namespace collide::gpu

namespace collidoscope {

// The most bodies the GPU world takes on a software GPU (llvmpipe), which does the GPU's
// work on the CPU's cores: about 4 us a body a frame on the 2-core VM (30,000 bodies: 116 ms
// a frame; a million: 2.5 to 3.6 s), so past this a frame would take over a tenth of a
// second and the window would stop answering its clicks.
inline constexpr std::size_t kMaxSoftwareGpuWorldBodies = 30'000;
inline constexpr double kSoftwareGpuWorldSecondsPerBody = 4e-6;

// Why the GPU world would run no faster than the CPU here: no OpenGL 4.3 context, or a
// software one (llvmpipe) — or nothing, on a hardware GPU.
std::optional<std::string> no_hardware_gpu();

// The GPU side of one CPU world (a collide::World<D>, which stays: while the bodies are on
// the GPU it keeps the settings, the broad phase for the way back and the watched body).
template <int D>
class GpuHandover {
public:
    GpuHandover();
    ~GpuHandover();

    // The GPU world while the bodies live there, else null.
    collide::gpu::GpuWorld<D>* gpu() const { return gpu_.get(); }
    // Why `world` cannot go to the GPU world, or nothing.
    std::optional<std::string> refusal(const collide::World<D>& world) const;
    // A body was added: what the bodies allow is asked again (refusal() keeps the answer,
    // since the bodies never change kind and asking scans them all).
    void bodies_added() { bodies_refusal_.reset(); }
    // Uploads `world`'s bodies; returns why not when it cannot.
    std::optional<std::string> move_up(const collide::World<D>& world);
    // Reads the bodies back into `world` and leaves the GPU world.
    void move_down(collide::World<D>& world);
    // Leaves the GPU world without reading it back (`world` was restored meanwhile).
    void drop();
    // `world`'s snapshot with the GPU world's bodies and step count (reads them back).
    typename collide::World<D>::Snapshot snapshot(const collide::World<D>& world) const;
    // One GPU step; the watched body's latest state, as read back, goes into `world` so the
    // selection ring and the body panel follow it. Returns the newest readback.
    const collide::gpu::GpuWorldReadback<D>& step(collide::World<D>& world,
                                                  collide::BodyId watched);
    // The phases' device times of the newest readback.
    const collide::StepTimings& timings() const { return timings_; }

private:
    std::unique_ptr<collide::gpu::GpuWorld<D>> gpu_;
    collide::StepTimings timings_;
    mutable std::optional<std::optional<std::string>> bodies_refusal_;
};

}  // namespace collidoscope
