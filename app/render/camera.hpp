// Cameras for the two views behind one interface, so input and labels never ask which
// dimension they are in. Camera2D is orthographic with pan and zoom about the cursor;
// Camera3D orbits a target with a perspective lens. Both map between window pixels (origin
// top left, y down) and world space, and both can frame the world inside a sub-rectangle of
// the window, so the scene is not hidden under the side panels.
#pragma once

#include <glm/glm.hpp>

#include "common/geometry.hpp"

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

// What the input handler, the labels and the overlay request need from either camera.
class Camera {
public:
    virtual ~Camera() = default;
    // Frames `world` inside `area` of a window of `screen` pixels, with a small margin.
    virtual void fit(const Box3& world, const ScreenRect& area, glm::vec2 screen) = 0;
    // The view area changed (Tab hid the panels, or showed them): what `from` showed is
    // shown in `to`, centred, scaled by the areas' narrower sides (as fit() frames), so
    // reframing back from `to` to `from` gives the view it started from.
    virtual void reframe(const ScreenRect& from, const ScreenRect& to, glm::vec2 screen) = 0;
    virtual void pan(glm::vec2 delta_px, glm::vec2 screen) = 0;
    // The right-button drag: orbits a 3D camera, pans a 2D one.
    virtual void turn(glm::vec2 delta_px, glm::vec2 screen) = 0;
    // The wheel: `notches` > 0 zooms in (2D: about the cursor; 3D: dollies to the target).
    virtual void zoom(glm::vec2 at_px, float notches, glm::vec2 screen) = 0;

    virtual glm::mat4 view_proj(glm::vec2 screen) const = 0;
    // The ray through a pixel (2D: straight down -z onto the plane z = 0).
    virtual Ray ray_at(glm::vec2 px, glm::vec2 screen) const = 0;
    // Screen position of `p`; false if it is behind the eye.
    virtual bool world_to_screen(const glm::vec3& p, glm::vec2 screen, glm::vec2& out) const = 0;
    // World size of one pixel at the depth of `p`.
    virtual float pixel_size_at(const glm::vec3& p, glm::vec2 screen) const = 0;
    // The point the camera looks at and the direction it looks in.
    virtual glm::vec3 target() const = 0;
    virtual glm::vec3 forward() const = 0;
    // The screen's axes in world space.
    virtual glm::vec3 right() const = 0;
    virtual glm::vec3 up() const = 0;
    // How deep a region dragged out on screen with larger side `side` is (0 in 2D: flat).
    virtual float region_depth(float side) const = 0;
    // Bounding box of what the window shows of the world.
    virtual Box3 visible(const Box3& world, glm::vec2 screen) const = 0;
};

class Camera2D final : public Camera {
public:
    void fit(const Box3& world, const ScreenRect& area, glm::vec2 screen) override;
    void reframe(const ScreenRect& from, const ScreenRect& to, glm::vec2 screen) override;
    void pan(glm::vec2 delta_px, glm::vec2 screen) override;
    void turn(glm::vec2 delta_px, glm::vec2 screen) override { pan(delta_px, screen); }
    void zoom(glm::vec2 at_px, float notches, glm::vec2 screen) override;

    glm::mat4 view_proj(glm::vec2 screen) const override;
    Ray ray_at(glm::vec2 px, glm::vec2 screen) const override;
    bool world_to_screen(const glm::vec3& p, glm::vec2 screen, glm::vec2& out) const override;
    float pixel_size_at(const glm::vec3&, glm::vec2) const override { return world_per_pixel_; }
    glm::vec3 target() const override { return {centre_, 0.0f}; }
    glm::vec3 forward() const override { return {0.0f, 0.0f, -1.0f}; }
    glm::vec3 right() const override { return {1.0f, 0.0f, 0.0f}; }
    glm::vec3 up() const override { return {0.0f, 1.0f, 0.0f}; }
    float region_depth(float) const override { return 0.0f; }
    // The world-space rectangle the window shows (z spans everything).
    Box3 visible(const Box3& world, glm::vec2 screen) const override;

    glm::vec2 screen_to_world(glm::vec2 px, glm::vec2 screen) const;
    float world_per_pixel() const { return world_per_pixel_; }

private:
    glm::vec2 centre_{0.0f};
    float world_per_pixel_ = 0.1f;
};

class Camera3D final : public Camera {
public:
    void fit(const Box3& world, const ScreenRect& area, glm::vec2 screen) override;
    void reframe(const ScreenRect& from, const ScreenRect& to, glm::vec2 screen) override;
    void pan(glm::vec2 delta_px, glm::vec2 screen) override;
    void turn(glm::vec2 delta_px, glm::vec2) override { orbit(delta_px); }
    // Dollies towards (notches > 0) or away from the target, 12% of the distance a notch.
    void zoom(glm::vec2 at_px, float notches, glm::vec2 screen) override;
    void orbit(glm::vec2 delta_px);

    glm::mat4 view() const;
    glm::mat4 proj(glm::vec2 screen) const;
    glm::mat4 view_proj(glm::vec2 screen) const override { return proj(screen) * view(); }
    glm::vec3 eye() const;
    glm::vec3 target() const override { return target_; }
    glm::vec3 forward() const override { return glm::normalize(target_ - eye()); }
    glm::vec3 right() const override;
    glm::vec3 up() const override;
    Ray ray_at(glm::vec2 px, glm::vec2 screen) const override;
    bool world_to_screen(const glm::vec3& p, glm::vec2 screen, glm::vec2& out) const override;
    float pixel_size_at(const glm::vec3& p, glm::vec2 screen) const override;
    // A dragged-out region reads as a box at the focus, as deep as its larger side.
    float region_depth(float side) const override { return side; }
    // Bounding box of the part of the view frustum that can hold the world.
    Box3 visible(const Box3& world, glm::vec2 screen) const override;

private:
    glm::vec3 target_{0.0f};
    float yaw_ = 0.6f;     // radians about +y
    float pitch_ = 0.45f;  // radians above the horizon
    float distance_ = 100.0f;
    float world_radius_ = 50.0f;  // sets the clip planes
    glm::vec2 lens_shift_{0.0f};  // NDC offset that centres the view in the fitted area
};

// The screen rectangle around `box` as `camera` shows it (its corners projected), clipped to
// the window; the whole window when a corner is behind the eye.
ScreenRect screen_footprint(const Camera& camera, const Box3& box, glm::vec2 screen);

}  // namespace collidoscope
