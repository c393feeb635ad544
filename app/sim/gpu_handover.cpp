#include "sim/gpu_handover.hpp"

#include <cstdio>

#include "collide/gpu/catalog.hpp"
#include "collide/gpu/gpu_world.hpp"

namespace collidoscope {

std::optional<std::string> no_hardware_gpu() {
    if (auto why = collide::gpu_unavailable_reason("gpu-grid")) return "no GPU: " + *why;
    const auto context = collide::gpu::shared_context();
    if (context->software()) {
        return "no GPU: OpenGL here is " + context->renderer() + ", which renders in software";
    }
    return std::nullopt;
}

// Out of line, where GpuWorld is complete.
template <int D>
GpuHandover<D>::GpuHandover() = default;
template <int D>
GpuHandover<D>::~GpuHandover() = default;

template <int D>
std::optional<std::string> GpuHandover<D>::refusal(const collide::World<D>& world) const {
    const auto& s = world.settings();
    // The bodies never change kind: what they allow is asked once (it scans them all).
    if (!bodies_refusal_) {
        collide::WorldSettings<D> unswept = s;
        unswept.swept = false;
        bodies_refusal_ = collide::gpu::GpuWorld<D>::unsupported(unswept, world.bodies());
    }
    if (*bodies_refusal_) return *bodies_refusal_;
    if (world.present_count() != world.bodies().size())
        return "bodies were removed here, and the GPU world takes every slot as a body";
    if (s.swept) return collide::gpu::GpuWorld<D>::unsupported(s, {});
    if (s.count_tunnelling) return "the tunnelling check watches the CPU world's steps only";
    // The GPU world needs the GPU broad phases' context.
    if (auto why = collide::gpu_unavailable_reason("gpu-grid")) return "no GPU: " + *why;
    const std::size_t n = world.bodies().size();
    if (n > kMaxSoftwareGpuWorldBodies) {
        const auto context = collide::gpu::shared_context();
        if (context->software()) {
            char cost[160];
            std::snprintf(cost, sizeof cost,
                          ": a frame of %zu bodies would take about %.1f s (it takes at most %zu)",
                          n, static_cast<double>(n) * kSoftwareGpuWorldSecondsPerBody,
                          kMaxSoftwareGpuWorldBodies);
            return "OpenGL here is " + context->renderer() + ", which renders in software" + cost;
        }
    }
    return std::nullopt;
}

template <int D>
std::optional<std::string> GpuHandover<D>::move_up(const collide::World<D>& world) {
    if (auto why = refusal(world)) return why;
    try {
        gpu_ = std::make_unique<collide::gpu::GpuWorld<D>>(world.settings(), world.bodies(),
                                                           world.steps());
    } catch (const collide::gpu::GpuError& e) {  // shaders or buffers the GPU refused
        return std::string(e.what());
    }
    timings_ = {};
    return std::nullopt;
}

template <int D>
void GpuHandover<D>::move_down(collide::World<D>& world) {
    world.restore(snapshot(world));
    gpu_.reset();
}

template <int D>
void GpuHandover<D>::drop() {
    gpu_.reset();
}

template <int D>
typename collide::World<D>::Snapshot GpuHandover<D>::snapshot(
    const collide::World<D>& world) const {
    typename collide::World<D>::Snapshot s = world.snapshot();
    gpu_->download(s.pos, s.vel);
    s.steps = gpu_->steps();
    // What the last GPU step found stays on the GPU: the CPU world starts its solve cold.
    s.warm_start = {};
    s.contacts.clear();
    s.impact_pairs.clear();
    const auto& r = world.bodies().radius;
    for (std::size_t i = 0; i < s.pos.size(); ++i)
        s.boxes[i] = collide::Aabb<D>::around(s.pos[i], r[i]);
    return s;
}

template <int D>
const collide::gpu::GpuWorldReadback<D>& GpuHandover<D>::step(collide::World<D>& world,
                                                              collide::BodyId watched) {
    gpu_->step(watched);
    const collide::gpu::GpuWorldReadback<D>& r = gpu_->readback();
    timings_.integrate_ms = r.times.integrate_ms;
    timings_.broad_ms = r.times.broad_ms;
    timings_.narrow_ms = r.times.narrow_ms;
    timings_.resolve_ms = r.times.resolve_ms;
    if (r.watched != collide::kNoBody && r.watched == watched)
        world.move_body(r.watched, r.pos, r.vel);
    return r;
}

template class GpuHandover<2>;
template class GpuHandover<3>;

}  // namespace collidoscope
