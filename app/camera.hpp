// Cameras for the two views. Camera2D is orthographic with pan and zoom about the cursor;
// Camera3D orbits a target with a perspective lens. Both map between window pixels (origin
// top left, y down) and world space, and both can frame the world inside a sub-rectangle of
// the window, so the scene is not hidden under the side panels.
#pragma once

#include <glm/glm.hpp>

#include "sim_world.hpp"

namespace collidoscope {

// A rectangle of the window in pixels, origin top left.
struct ScreenRect {
    glm::vec2 min{0.0f};
    glm::vec2 max{0.0f};
    glm::vec2 size() const { return max - min; }
    glm::vec2 center() const { return (min + max) * 0.5f; }
};

struct Ray {
    glm::vec3 origin{0.0f};
    glm::vec3 dir{0.0f, 0.0f, -1.0f};  // unit length
};

class Camera2D {
public:
    // Frames `world` inside `area` of a window of `screen` pixels, with a small margin.
    void fit(const Box3& world, const ScreenRect& area, glm::vec2 screen);
    void pan(glm::vec2 delta_px);
    // Zooms by `factor` (> 1 zooms in) keeping the world point under `at_px` fixed.
    void zoom_at(glm::vec2 at_px, float factor, glm::vec2 screen);

    glm::mat4 view_proj(glm::vec2 screen) const;
    glm::vec2 screen_to_world(glm::vec2 px, glm::vec2 screen) const;
    glm::vec2 world_to_screen(glm::vec2 p, glm::vec2 screen) const;
    float world_per_pixel() const { return world_per_pixel_; }
    // The world-space rectangle the window shows (z spans everything).
    Box3 visible(glm::vec2 screen) const;

private:
    glm::vec2 centre_{0.0f};
    float world_per_pixel_ = 0.1f;
};

class Camera3D {
public:
    void fit(const Box3& world, const ScreenRect& area, glm::vec2 screen);
    void orbit(glm::vec2 delta_px);
    void pan(glm::vec2 delta_px, glm::vec2 screen);
    // Moves towards (steps > 0) or away from the target, by 12% of the distance per step.
    void dolly(float steps);

    glm::mat4 view() const;
    glm::mat4 proj(glm::vec2 screen) const;
    glm::mat4 view_proj(glm::vec2 screen) const { return proj(screen) * view(); }
    glm::vec3 eye() const;
    glm::vec3 target() const { return target_; }
    glm::vec3 forward() const { return glm::normalize(target_ - eye()); }
    glm::vec3 right() const;
    glm::vec3 up() const;
    Ray ray_at(glm::vec2 px, glm::vec2 screen) const;
    // Screen position of `p`; false if it is behind the eye.
    bool world_to_screen(const glm::vec3& p, glm::vec2 screen, glm::vec2& out) const;
    // World size of one pixel at the depth of `p`.
    float pixel_size_at(const glm::vec3& p, glm::vec2 screen) const;
    // Bounding box of the part of the view frustum that can hold the world.
    Box3 visible(const Box3& world, glm::vec2 screen) const;

private:
    glm::vec3 target_{0.0f};
    float yaw_ = 0.6f;     // radians about +y
    float pitch_ = 0.45f;  // radians above the horizon
    float distance_ = 100.0f;
    float world_radius_ = 50.0f;  // sets the clip planes
    glm::vec2 lens_shift_{0.0f};  // NDC offset that centres the view in the fitted area
};

}  // namespace collidoscope
