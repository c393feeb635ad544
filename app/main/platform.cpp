#include "main/platform.hpp"

#include <SDL.h>
#include <backends/imgui_impl_opengl3.h>
#include <backends/imgui_impl_sdl.h>
#include "render/gl_api.hpp"

#include <imgui.h>
#include "collide/gpu/compute_context.hpp"
#ifdef __EMSCRIPTEN__
#include "main/browser.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace collidoscope {

namespace {
// The GPU's name; in a browser the one behind WebGL, which hides it from GL_RENDERER.
std::string renderer_name() {
#ifdef __EMSCRIPTEN__
    if (std::string name = browser::unmasked_renderer(); !name.empty()) return name;
#endif
    const auto* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    return name ? name : "";
}

// Renderers that draw on the CPU, where multisampling costs more than it shows.
bool software_renderer(const char* renderer) {
    const std::string r = renderer ? renderer : "";
    return r.find("llvmpipe") != std::string::npos || r.find("softpipe") != std::string::npos ||
           r.find("SwiftShader") != std::string::npos;
}
}  // namespace

Platform::Platform(const std::string& title, int width, int height, std::optional<int> msaa,
                   bool vsync) {
    // The destructor does not run when a constructor throws, so each failure tears down
    // what exists so far before throwing.
    auto fail = [this](const std::string& what) {
        std::string message = what + ": " + SDL_GetError();
        shutdown();
        throw std::runtime_error(message);
    };
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0) fail("SDL_Init failed");
    sdl_ready_ = true;

#ifdef __EMSCRIPTEN__
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_ES);
    constexpr int kVersions[] = {30};  // WebGL2
#else
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, SDL_GL_CONTEXT_FORWARD_COMPATIBLE_FLAG);
    constexpr int kVersions[] = {43, 33};
#endif
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
    SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 8);

    // 4.3 core where the driver has it (the GPU broad phases compute in this context), else
    // 3.3 core for drawing alone. Multisampling smooths sphere silhouettes and lines; where
    // the display has no such visual, fall back to none rather than fail.
    const Uint32 flags = SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI;
    auto open = [&](int wanted_samples) {
        for (int version : kVersions) {
            SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, version / 10);
            SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, version % 10);
            for (int samples : {wanted_samples, 0}) {
                SDL_GL_SetAttribute(SDL_GL_MULTISAMPLEBUFFERS, samples > 0 ? 1 : 0);
                SDL_GL_SetAttribute(SDL_GL_MULTISAMPLESAMPLES, samples);
                window_ = SDL_CreateWindow(title.c_str(), SDL_WINDOWPOS_CENTERED,
                                           SDL_WINDOWPOS_CENTERED, width, height, flags);
                if (!window_) continue;
                gl_context_ = SDL_GL_CreateContext(window_);
                if (gl_context_) break;
                SDL_DestroyWindow(window_);
                window_ = nullptr;
            }
            if (window_) break;
        }
        if (!window_) {
            fail(gl::kEs ? "cannot create a WebGL2 context"
                         : "cannot create a window with an OpenGL 3.3 core context");
        }
        SDL_GL_MakeCurrent(window_, gl_context_);
#ifndef __EMSCRIPTEN__
        if (gladLoadGL(reinterpret_cast<GLADloadfunc>(SDL_GL_GetProcAddress)) == 0) {
            fail("cannot load the OpenGL functions");
        }
#endif
    };
#ifdef __EMSCRIPTEN__
    // A canvas keeps the attributes of its first context, so the renderer is asked first,
    // on a canvas of its own. SwiftShader draws a 4x frame four times over.
    const std::string renderer = renderer_name();
    const bool software = software_renderer(renderer.c_str());
    open(msaa.value_or(software ? 0 : 4));
    if (!msaa && software) msaa_note_ = "Software GL: no antialiasing (?)";
#else
    open(msaa.value_or(4));
    const std::string renderer = renderer_name();
    if (!msaa && software_renderer(renderer.c_str())) {
        // Measured on llvmpipe: 27-35 fps with 4x at 600-1,500 bodies, 73 without. The
        // window is opened again without it, unless --msaa asked for it.
        GLint samples = 0;
        glGetIntegerv(GL_SAMPLES, &samples);
        if (samples > 0) {
            SDL_GL_DeleteContext(gl_context_);
            SDL_DestroyWindow(window_);
            gl_context_ = nullptr;
            window_ = nullptr;
            open(0);
        }
        msaa_note_ = "Software GL: no antialiasing (?)";
    }
#endif
    // The GPU broad phases use this context; where it is older than 4.3 they say so.
    try {
        collide::gpu::install_context(collide::gpu::ComputeContext::adopt_current());
    } catch (const collide::gpu::GpuError& e) {
        collide::gpu::install_context(nullptr, e.what());
    }
    GLint samples = 0;
    glGetIntegerv(GL_SAMPLES, &samples);
    gl_description_ = std::string("OpenGL ") +
                      reinterpret_cast<const char*>(glGetString(GL_VERSION)) + ", " +
                      renderer +
                      (samples > 1 ? ", " + std::to_string(samples) + "x MSAA" : ", no MSAA");
    // Adaptive vsync where the driver has it, plain vsync otherwise; timed runs go flat out.
    if (vsync && SDL_GL_SetSwapInterval(-1) != 0) SDL_GL_SetSwapInterval(1);
    if (!vsync) SDL_GL_SetSwapInterval(0);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout is the app's; do not litter the working folder
    ImGui::StyleColorsDark();
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 4.0f;
    style.FrameRounding = 3.0f;
    style.GrabRounding = 3.0f;
    style.Colors[ImGuiCol_WindowBg].w = 0.88f;
    ImGui_ImplSDL2_InitForOpenGL(window_, gl_context_);
    ImGui_ImplOpenGL3_Init(gl::kEs ? "#version 300 es" : "#version 330 core");
    imgui_ready_ = true;
}

Platform::~Platform() {
    shutdown();
}

void Platform::shutdown() {
    if (imgui_ready_) {
        ImGui_ImplOpenGL3_Shutdown();
        ImGui_ImplSDL2_Shutdown();
        ImGui::DestroyContext();
        imgui_ready_ = false;
    }
    if (gl_context_) SDL_GL_DeleteContext(gl_context_);
    gl_context_ = nullptr;
    if (window_) SDL_DestroyWindow(window_);
    window_ = nullptr;
    if (sdl_ready_) SDL_Quit();
    sdl_ready_ = false;
}

glm::ivec2 Platform::window_size() const {
    glm::ivec2 s;
    SDL_GetWindowSize(window_, &s.x, &s.y);
    return s;
}

glm::ivec2 Platform::framebuffer_size() const {
    glm::ivec2 s;
    SDL_GL_GetDrawableSize(window_, &s.x, &s.y);
    return s;
}

float Platform::display_scale() const {
    constexpr float kBaseDpi = 96.0f;  // what a scale of 1 is drawn for
    float dpi = 0.0f;
    const int display = std::max(SDL_GetWindowDisplayIndex(window_), 0);
    if (SDL_GetDisplayDPI(display, nullptr, &dpi, nullptr) != 0 || !(dpi > 0.0f)) return 1.0f;
    // Where the window's points are already several pixels (macOS Retina), they carry
    // that part of the DPI.
    const float pixels_per_point =
        static_cast<float>(framebuffer_size().y) / static_cast<float>(std::max(window_size().y, 1));
    const float scale = dpi / kBaseDpi / std::max(pixels_per_point, 1.0f);
    return std::clamp(std::round(4.0f * scale) / 4.0f, 1.0f, 2.0f);
}

void Platform::begin_imgui_frame() {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplSDL2_NewFrame();
    ImGui::NewFrame();
}

int Platform::render_imgui(ImDrawData* data) {
    int calls = 0;
    for (int i = 0; i < data->CmdListsCount; ++i) {
        for (const ImDrawCmd& cmd : data->CmdLists[i]->CmdBuffer) {
            if (cmd.UserCallback == nullptr && cmd.ElemCount > 0) ++calls;
        }
    }
    ImGui_ImplOpenGL3_RenderDrawData(data);
    return calls;
}

void Platform::swap() {
    SDL_GL_SwapWindow(window_);
}

}  // namespace collidoscope
