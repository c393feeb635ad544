#include "collide/gpu/compute_context.hpp"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <glad/gl.h>

#include <cstring>
#include <vector>

namespace collide::gpu {

namespace {

std::string egl_error_text() {
    char buf[32];
    std::snprintf(buf, sizeof buf, "EGL error 0x%04X", static_cast<unsigned>(eglGetError()));
    return buf;
}

bool has_extension(const char* list, const char* name) {
    if (list == nullptr) return false;
    const std::size_t len = std::strlen(name);
    for (const char* p = std::strstr(list, name); p != nullptr; p = std::strstr(p + len, name)) {
        if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')) return true;
    }
    return false;
}

// A 4.3 core context on `display`, current with no surface; null (and `why` said) if not.
EGLContext make_context_on(EGLDisplay display, std::string& why) {
    EGLint major = 0, minor = 0;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor)) {
        why = "eglInitialize: " + egl_error_text();
        return EGL_NO_CONTEXT;
    }
    const char* extensions = eglQueryString(display, EGL_EXTENSIONS);
    if (!has_extension(extensions, "EGL_KHR_surfaceless_context")) {
        why = "no EGL_KHR_surfaceless_context";
        eglTerminate(display);
        return EGL_NO_CONTEXT;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        why = "eglBindAPI(OpenGL): " + egl_error_text();
        eglTerminate(display);
        return EGL_NO_CONTEXT;
    }
    EGLConfig config = nullptr;
    if (!has_extension(extensions, "EGL_KHR_no_config_context")) {
        const EGLint want[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
        EGLint found = 0;
        if (!eglChooseConfig(display, want, &config, 1, &found) || found == 0) {
            why = "no EGL config renders OpenGL";
            eglTerminate(display);
            return EGL_NO_CONTEXT;
        }
    }
    const EGLint attributes[] = {EGL_CONTEXT_MAJOR_VERSION,
                                 4,
                                 EGL_CONTEXT_MINOR_VERSION,
                                 3,
                                 EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                 EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                 EGL_NONE};
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, attributes);
    if (context == EGL_NO_CONTEXT) {
        why = "no OpenGL 4.3 core context: " + egl_error_text();
        eglTerminate(display);
        return EGL_NO_CONTEXT;
    }
    if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
        why = "eglMakeCurrent: " + egl_error_text();
        eglDestroyContext(display, context);
        eglTerminate(display);
        return EGL_NO_CONTEXT;
    }
    return context;
}

struct Installed {
    std::shared_ptr<ComputeContext> context;
    std::string why_none;  // set when the app said there is none to be had
};

Installed& installed() {
    // The process's one GL context for compute (GL itself is per-thread global state). Never
    // destroyed: at exit NVIDIA's EGL has torn itself down before static destructors run,
    // and destroying the context then crashed every process (exit code 139).
    static Installed& state = *new Installed;
    return state;
}

}  // namespace

std::shared_ptr<ComputeContext> ComputeContext::adopt_current() {
    std::shared_ptr<ComputeContext> c(new ComputeContext());
    c->origin_ = "the app's window";
    c->read_strings();
    return c;
}

std::shared_ptr<ComputeContext> ComputeContext::make_headless() {
    auto get_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
        eglGetProcAddress("eglGetPlatformDisplayEXT"));
    auto query_devices =
        reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    auto device_string = reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(
        eglGetProcAddress("eglQueryDeviceStringEXT"));
    std::string tried;
    auto note = [&](const std::string& where, const std::string& why) {
        tried += (tried.empty() ? "" : "; ") + where + ": " + why;
    };
    auto finish = [](EGLDisplay display, EGLContext context, std::string origin) {
        std::shared_ptr<ComputeContext> c(new ComputeContext());
        c->display_ = display;
        c->context_ = context;
        c->origin_ = std::move(origin);
        if (gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress)) == 0) {
            throw GpuError("cannot load the OpenGL functions through EGL");
        }
        c->read_strings();
        return c;
    };

    // The device platform first, hardware devices before Mesa's software one.
    if (get_display != nullptr && query_devices != nullptr) {
        EGLDeviceEXT devices[16];
        EGLint count = 0;
        if (query_devices(16, devices, &count) && count > 0) {
            std::vector<EGLDeviceEXT> order;
            for (int pass = 0; pass < 2; ++pass) {
                for (EGLint i = 0; i < count; ++i) {
                    const char* ext =
                        device_string ? device_string(devices[i], EGL_EXTENSIONS) : nullptr;
                    const bool software = has_extension(ext, "EGL_MESA_device_software");
                    if (software == (pass == 1)) order.push_back(devices[i]);
                }
            }
            for (std::size_t i = 0; i < order.size(); ++i) {
                EGLDisplay d = get_display(EGL_PLATFORM_DEVICE_EXT, order[i], nullptr);
                std::string why;
                if (EGLContext c = make_context_on(d, why); c != EGL_NO_CONTEXT) {
                    return finish(d, c, "headless EGL (device platform)");
                }
                note("EGL device " + std::to_string(i), why);
            }
        } else {
            note("EGL device platform", "no devices");
        }
    }
    if (get_display != nullptr) {
        EGLDisplay d = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
        std::string why;
        if (EGLContext c = make_context_on(d, why); c != EGL_NO_CONTEXT) {
            return finish(d, c, "headless EGL (surfaceless)");
        }
        note("EGL surfaceless platform", why);
    }
    throw GpuError("no OpenGL 4.3 core context for the GPU broad phases (" + tried + ")");
}

ComputeContext::~ComputeContext() {
    if (context_ != nullptr) {
        make_current();
        for (const auto& [key, program] : programs_) glDeleteProgram(program);
        eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(display_, context_);
    }
}

void ComputeContext::make_current() const {
    if (context_ != nullptr && eglGetCurrentContext() != context_) {
        eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_);
    }
}

void ComputeContext::read_strings() {
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    const auto* renderer = glGetString(GL_RENDERER);
    const auto* version = glGetString(GL_VERSION);
    renderer_ = renderer ? reinterpret_cast<const char*>(renderer) : "unknown renderer";
    version_ = version ? reinterpret_cast<const char*>(version) : "unknown version";
    if (major < 4 || (major == 4 && minor < 3)) {
        throw GpuError("the GPU broad phases need OpenGL 4.3 compute shaders; " + renderer_ +
                       " gives OpenGL " + version_);
    }
}

bool ComputeContext::software() const {
    for (const char* name : {"llvmpipe", "softpipe", "SwiftShader", "swrast"}) {
        if (renderer_.find(name) != std::string::npos) return true;
    }
    return false;
}

unsigned ComputeContext::program(std::string_view key, int dim,
                                 std::initializer_list<std::string_view> parts) {
    std::string name = std::string(key) + "/" + std::to_string(dim);
    if (auto it = programs_.find(name); it != programs_.end()) return it->second;
    make_current();
    const std::string header = "#version 430 core\n#define DIM " + std::to_string(dim) + "\n";
    std::vector<const GLchar*> sources{header.c_str()};
    std::vector<GLint> lengths{static_cast<GLint>(header.size())};
    for (std::string_view p : parts) {
        sources.push_back(p.data());
        lengths.push_back(static_cast<GLint>(p.size()));
    }
    const GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(shader, static_cast<GLsizei>(sources.size()), sources.data(), lengths.data());
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    auto log_of = [](GLuint object, bool is_program) {
        char log[4096] = {};
        if (is_program) {
            glGetProgramInfoLog(object, sizeof log, nullptr, log);
        } else {
            glGetShaderInfoLog(object, sizeof log, nullptr, log);
        }
        return std::string(log);
    };
    if (!ok) {
        const std::string log = log_of(shader, false);
        glDeleteShader(shader);
        throw GpuError("compute shader " + name + " did not compile on " + renderer_ + ": " + log);
    }
    const GLuint prog = glCreateProgram();
    glAttachShader(prog, shader);
    glLinkProgram(prog);
    glDeleteShader(shader);
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        const std::string log = log_of(prog, true);
        glDeleteProgram(prog);
        throw GpuError("compute program " + name + " did not link on " + renderer_ + ": " + log);
    }
    programs_.emplace(std::move(name), prog);
    return prog;
}

std::shared_ptr<ComputeContext> shared_context() {
    Installed& state = installed();
    if (!state.context) {
        if (!state.why_none.empty()) throw GpuError(state.why_none);
        state.context = ComputeContext::make_headless();
    }
    state.context->make_current();
    return state.context;
}

void install_context(std::shared_ptr<ComputeContext> context, std::string why_none) {
    installed() = {std::move(context), std::move(why_none)};
}

}  // namespace collide::gpu
