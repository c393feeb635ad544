// Mouse and keyboard: camera control (pan, zoom, orbit, dolly), picking and dragging bodies,
// dragging out a query region, and the keyboard shortcuts, dispatched through the bindings
// table (controls.hpp). Events reach the app only when ImGui does not want them
// (io.WantCaptureMouse / WantCaptureKeyboard), so typing in a field or dragging a slider
// never moves the camera. The app hands events over after ImGui's new frame has seen them,
// so that those flags describe where this frame's mouse is, not where it was.
#pragma once

#include <optional>

#include <glm/glm.hpp>

#include "render/camera.hpp"
#include "collide/core.hpp"
#include "cli/controls.hpp"
#include "sim/demo.hpp"
#include "ui/dialogs.hpp"

union SDL_Event;

namespace collidoscope {

// What input asks of the rest of the app this frame.
struct Requests {
    bool quit = false;            // the window was closed
    bool quit_confirmed = false;  // Enter in the quit prompt
    bool fit_camera = false;
    bool screenshot = false;
    bool save_scene = false;  // S: the app saves the world as a CSV scene
};

// What input acts on, gathered for one frame.
struct InputTargets {
    Demo& demo;
    Camera& camera;  // the current dimension's
    glm::vec2 screen;  // window size in points, the unit of mouse events
    Requests& requests;
    Dialogs& dialogs;
};

class Input {
public:
    void handle(const SDL_Event& event, InputTargets& t);
    // Moves the dragged body to the cursor and gives it the drag's velocity, or, with the
    // spray tool, adds a body there. Call once per frame, before the world steps.
    void update_drag(InputTargets& t);
    // Selects the body under `px` (or nothing) and starts dragging it.
    void pick(glm::vec2 px, InputTargets& t);

private:
    // kTurn: the right button's drag (orbit in 3D, pan in 2D).
    enum class CameraDrag { kNone, kPan, kTurn };

    struct BodyDrag {
        bool active = false;
        bool moved = false;  // past the click slack: a click leaves the body as it was
        glm::vec2 start_px{0.0f};
        collide::BodyId id = collide::kNoBody;
        glm::vec3 offset{0.0f};        // body centre minus the grabbed point
        glm::vec3 plane_normal{0.0f};  // 3D: the camera-facing plane through the body
        glm::vec3 plane_point{0.0f};
        glm::vec3 last_target{0.0f};
        glm::vec3 velocity{0.0f};
    };

    // A rectangle the user drags out with shift + left button; it becomes the demo's query.
    struct RegionDrag {
        bool active = false;
        bool moved = false;  // past the click slack: a real drag, not a shift-click
        glm::vec2 start_px{0.0f};
    };

    void key_down(int key, bool shift, InputTargets& t);
    // Esc: the first thing there is to close or clear, else the quit prompt.
    void escape(InputTargets& t);
    void update_region(InputTargets& t);
    void update_spray(InputTargets& t);
    // Where the cursor points in the drag's plane (2D: the world plane); false if nowhere.
    bool cursor_on_drag_plane(InputTargets& t, glm::vec3& out) const;

    CameraDrag camera_drag_ = CameraDrag::kNone;
    BodyDrag drag_;
    RegionDrag region_;
    // The spray tool's drag: the cursor's point in the world plane a frame ago, and where
    // the last body went (the next waits until the cursor is a diameter away).
    struct Spray {
        bool active = false;
        std::optional<glm::vec3> last, last_body;
    } spray_;
    glm::vec2 mouse_{0.0f};
    std::optional<glm::vec2> gesture_at_;  // two fingers' centre at the last gesture event
};

}  // namespace collidoscope
