// The GPU library where there are no compute shaders: the browser build (WebGL2 is OpenGL ES
// 3.0). The GPU rows stay in the catalog and the GPU world stays in the menus, and each says
// why it cannot run, as they do on a desktop driver older than OpenGL 4.3 (docs/web.md).
// Nothing here can be made, so nothing here computes.
#include "collide/gpu/compute_context.hpp"
#include "collide/gpu/dot_splat.hpp"
#include "collide/gpu/gpu_world.hpp"
#include "no_compute.hpp"

namespace collide::gpu {

namespace {

struct Installed {
    std::shared_ptr<ComputeContext> context;
    std::string why_none;
};

Installed& installed() {
    static Installed& state = *new Installed;
    return state;
}

}  // namespace

void throw_no_compute() {
    throw GpuError(std::string(kNoComputeReason));
}

// Making a context, a GPU world or a dot splat refuses; the members of objects that can
// never exist refuse too.
std::shared_ptr<ComputeContext> ComputeContext::adopt_current() {
    throw_no_compute();
}

std::shared_ptr<ComputeContext> ComputeContext::make_headless() {
    throw_no_compute();
}

ComputeContext::~ComputeContext() = default;
void ComputeContext::make_current() const {}
bool ComputeContext::software() const { return false; }
unsigned ComputeContext::program(std::string_view, int, std::initializer_list<std::string_view>) {
    throw_no_compute();
}

std::shared_ptr<ComputeContext> shared_context() {
    const Installed& state = installed();
    if (state.context) return state.context;
    throw_no_compute();
}

void install_context(std::shared_ptr<ComputeContext> context, std::string why_none) {
    installed() = {std::move(context), std::move(why_none)};
}

template <int D>
struct GpuWorld<D>::Impl {};

template <int D>
std::optional<std::string> GpuWorld<D>::unsupported(const WorldSettings<D>&, const Bodies<D>&) {
    return std::string(kNoComputeReason);
}

template <int D>
GpuWorld<D>::GpuWorld(const WorldSettings<D>&, const Bodies<D>&, std::uint64_t) {
    throw_no_compute();
}

template <int D>
GpuWorld<D>::~GpuWorld() = default;
template <int D>
void GpuWorld<D>::step(BodyId) { throw_no_compute(); }
template <int D>
void GpuWorld<D>::set_settings(const WorldSettings<D>&) { throw_no_compute(); }
template <int D>
const GpuWorldReadback<D>& GpuWorld<D>::readback() { throw_no_compute(); }
template <int D>
void GpuWorld<D>::download(std::vector<Vec<D>>&, std::vector<Vec<D>>&) const { throw_no_compute(); }
template <int D>
PairList GpuWorld<D>::pairs() const { throw_no_compute(); }
template <int D>
void GpuWorld<D>::move_body(BodyId, const Vec<D>&, const Vec<D>&) { throw_no_compute(); }
template <int D>
BodyBuffers GpuWorld<D>::buffers() const { throw_no_compute(); }

template class GpuWorld<2>;
template class GpuWorld<3>;

struct DotSplat::Impl {};
DotSplat::DotSplat() { throw_no_compute(); }
DotSplat::~DotSplat() = default;
void DotSplat::splat(unsigned, std::size_t, const float*, int, int) { throw_no_compute(); }
unsigned DotSplat::pixels() const { throw_no_compute(); }

}  // namespace collide::gpu
