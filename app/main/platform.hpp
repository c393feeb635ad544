// Platform: the SDL2 window, its OpenGL 3.3 core context, the glad loader and Dear ImGui's
// SDL2 + OpenGL3 backends, set up and torn down in the right order by one RAII object.
// Everything else in the app talks to the window through this class.
#pragma once

#include <optional>
#include <string>

#include <glm/glm.hpp>

struct SDL_Window;
struct ImDrawData;

namespace collidoscope {

class Platform {
public:
    // Opens the window; throws std::runtime_error naming what failed.
    // `msaa` is the wanted number of samples per pixel (0 = none); if the display cannot do
    // it, the window opens without.
    // `msaa` unset: 4 samples, or none on a software renderer (msaa_note() says so).
    Platform(const std::string& title, int width, int height, std::optional<int> msaa, bool vsync);
    Platform(const Platform&) = delete;
    Platform& operator=(const Platform&) = delete;
    ~Platform();

    SDL_Window* window() const { return window_; }
    glm::ivec2 window_size() const;       // points, the unit of mouse events
    glm::ivec2 framebuffer_size() const;  // pixels, the unit of GL (differs on HiDPI)

    // The UI scale the display's DPI suggests: its horizontal DPI over 96 (per point), in
    // quarter steps from 1 to 2 (1 where SDL cannot tell).
    float display_scale() const;

    void begin_imgui_frame();
    // Renders ImGui's draw data and returns how many draw calls it issued.
    int render_imgui(ImDrawData* data);
    void swap();

    // "OpenGL 4.5 (Core Profile) Mesa 22.3.6, llvmpipe (LLVM 15.0.6, 256 bits), 4x MSAA".
    const std::string& gl_description() const { return gl_description_; }
    // Why multisampling is off by default here (software GL), or empty.
    const std::string& msaa_note() const { return msaa_note_; }

private:
    void shutdown();

    SDL_Window* window_ = nullptr;
    void* gl_context_ = nullptr;
    bool sdl_ready_ = false;
    bool imgui_ready_ = false;
    std::string gl_description_;
    std::string msaa_note_;
};

}  // namespace collidoscope
