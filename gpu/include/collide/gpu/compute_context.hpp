// The OpenGL 4.3 core context the GPU broad phases compute in, and the compute programs
// compiled in it. The app lends its own window's context (adopt_current); the bench and the
// tests, which have no window, get a headless EGL context: the EGL device platform (NVIDIA, or
// Mesa's software device), else Mesa's surfaceless platform (llvmpipe, no display and no GPU).
// Shaders use no subgroup extension, so llvmpipe runs every path.
#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace collide::gpu {

// No GL 4.3 context could be had, or a program did not build: the message says what was
// tried and what failed (the driver's log for a program).
class GpuError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class ComputeContext {
public:
    // Wraps the context current on this thread, whose functions glad has already loaded (the
    // app's). Throws GpuError if it is older than 4.3.
    static std::shared_ptr<ComputeContext> adopt_current();
    // A new headless EGL context, current on this thread. Throws GpuError.
    static std::shared_ptr<ComputeContext> make_headless();
    ~ComputeContext();
    ComputeContext(const ComputeContext&) = delete;
    ComputeContext& operator=(const ComputeContext&) = delete;

    // Makes this context current on the calling thread (a no-op when it already is).
    void make_current() const;
    // GL_RENDERER and GL_VERSION, as the driver names them ("NVIDIA H100 ...", "llvmpipe ...").
    const std::string& renderer() const { return renderer_; }
    const std::string& version() const { return version_; }
    // A software rasteriser (Mesa's llvmpipe or softpipe, SwiftShader): OpenGL 4.3 computed
    // on the CPU, correct but no faster than the CPU's own code.
    bool software() const;
    // "headless EGL (device platform)", "headless EGL (surfaceless)" or "the app's window".
    const std::string& origin() const { return origin_; }

    // The compute program built from `parts` (concatenated after a #version line and
    // `#define DIM dim`), compiled once per key. Throws GpuError with the driver's log.
    unsigned program(std::string_view key, int dim, std::initializer_list<std::string_view> parts);

private:
    ComputeContext() = default;
    void read_strings();

    void* display_ = nullptr;  // EGLDisplay, EGLContext: null for an adopted context
    void* context_ = nullptr;
    std::string renderer_, version_, origin_;
    std::map<std::string, unsigned, std::less<>> programs_;
};

// The context every GPU broad phase of this process uses: the one installed (the app's),
// else a headless one made on first use and kept for the life of the process (compiling the
// programs again for each new broad phase would cost more than the tests themselves).
std::shared_ptr<ComputeContext> shared_context();
// Makes `context` the one shared_context() returns (the app installs its window's). A null
// context with a reason makes shared_context() throw that reason rather than make a headless
// one (the app's window context must stay current).
void install_context(std::shared_ptr<ComputeContext> context, std::string why_none = {});

}  // namespace collide::gpu
