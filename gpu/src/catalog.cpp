// The GPU rows and the table of every row. COLLIDOSCOPE_HAS_GPU is set by gpu/CMakeLists.txt:
// 1 with the GPU library, 0 without (the rows are absent), and in the browser build the rows
// are listed but making one throws why not (no_compute.cpp).
#include "collide/gpu/catalog.hpp"

#include <vector>

#if COLLIDOSCOPE_HAS_GPU && !defined(__EMSCRIPTEN__)
#include "gpu_grid.hpp"
#include "gpu_lbvh.hpp"
#elif COLLIDOSCOPE_HAS_GPU
#include "collide/gpu/compute_context.hpp"
#include "no_compute.hpp"
namespace collide::gpu {
template <int D>
class GpuGrid;  // not built: they need compute shaders
template <int D>
class GpuLbvh;
}  // namespace collide::gpu
#endif

namespace collide {

namespace {

#if COLLIDOSCOPE_HAS_GPU
#ifdef __EMSCRIPTEN__
template <int D>
std::unique_ptr<BroadPhase<D>> make_without_compute() {
    gpu::throw_no_compute();
}
template <template <int> class Algorithm>
constexpr BroadPhaseEntry gpu_row(std::string_view name, std::string_view description) {
    return {name, description, true, true, &make_without_compute<2>, &make_without_compute<3>};
}
#else
template <template <int> class Algorithm>
constexpr BroadPhaseEntry gpu_row(std::string_view name, std::string_view description) {
    return {
        name, description, true, true, &make_instance<Algorithm, 2>, &make_instance<Algorithm, 3>};
}
#endif

constexpr BroadPhaseEntry kGpuBroadPhases[] = {
    gpu_row<gpu::GpuGrid>("gpu-grid",
                          "GPU (OpenGL compute): grids of doubling cell size, each body in the "
                          "level that fits it, sorted by its cell's slot in a cell table; half "
                          "the neighbour cells searched per body"),
    gpu_row<gpu::GpuLbvh>("gpu-lbvh",
                          "GPU (OpenGL compute): linear BVH over Morton-sorted centres "
                          "(Karras 2012), built each frame; one traversal per body"),
};
#endif

}  // namespace

std::span<const BroadPhaseEntry> gpu_broadphases() {
#if COLLIDOSCOPE_HAS_GPU
    return kGpuBroadPhases;
#else
    return {};
#endif
}

std::span<const BroadPhaseEntry> all_broadphases() {
    static const std::vector<BroadPhaseEntry> all = [] {
        std::vector<BroadPhaseEntry> rows(broadphases().begin(), broadphases().end());
        rows.insert(rows.end(), gpu_broadphases().begin(), gpu_broadphases().end());
        return rows;
    }();
    return all;
}

bool runs_on_gpu(std::string_view name) {
    return find_entry(gpu_broadphases(), name) != nullptr;
}

std::optional<std::string> gpu_unavailable_reason(std::string_view name) {
    if (!runs_on_gpu(name)) return std::nullopt;
#if COLLIDOSCOPE_HAS_GPU
    try {
        gpu::shared_context();
    } catch (const gpu::GpuError& e) {
        return e.what();
    }
#endif
    return std::nullopt;
}

const BroadPhaseEntry* find_any_broadphase(std::string_view name) {
    return find_entry(all_broadphases(), name);
}

}  // namespace collide
