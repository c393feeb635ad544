#include "render/camera.hpp"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace collidoscope {
namespace {

constexpr float kFovY = glm::radians(45.0f);
constexpr float kFitMargin = 1.06f;
constexpr float kMaxPitch = glm::radians(89.0f);
constexpr float kZoomPerNotch = 1.15f;  // 2D

// Where the fitted area's centre sits in normalised device coordinates.
glm::vec2 ndc_of(glm::vec2 px, glm::vec2 screen) {
    return {px.x / screen.x * 2.0f - 1.0f, 1.0f - px.y / screen.y * 2.0f};
}

// Falls back to the whole window when the free area is too small to be useful.
ScreenRect usable(const ScreenRect& area, glm::vec2 screen) {
    glm::vec2 s = area.size();
    if (s.x < 0.25f * screen.x || s.y < 0.25f * screen.y) return {{0, 0}, screen};
    return area;
}

}  // namespace

void Camera2D::fit(const Box3& world, const ScreenRect& area_in, glm::vec2 screen) {
    const ScreenRect area = usable(area_in, screen);
    const glm::vec2 size = glm::max(glm::vec2(world.hi - world.lo), glm::vec2(1e-3f));
    const glm::vec2 px = area.size();
    world_per_pixel_ = std::max(size.x / px.x, size.y / px.y) * kFitMargin;
    // Put the world's centre at the area's centre, not the window's.
    const glm::vec2 offset_px = area.center() - screen * 0.5f;
    const glm::vec2 world_centre = glm::vec2(world.lo + world.hi) * 0.5f;
    centre_ = world_centre - glm::vec2(offset_px.x, -offset_px.y) * world_per_pixel_;
}

void Camera2D::reframe(const ScreenRect& from_in, const ScreenRect& to_in, glm::vec2 screen) {
    const ScreenRect from = usable(from_in, screen), to = usable(to_in, screen);
    const glm::vec2 shown_centre = screen_to_world(from.center(), screen);
    // The narrower sides: a scale of the two areas alone, so a round trip is exact (the
    // larger of the two axes' ratios zoomed out each time the panels came back).
    const auto narrower = [](const ScreenRect& r) { return std::max(std::min(r.size().x, r.size().y), 1.0f); };
    world_per_pixel_ *= narrower(from) / narrower(to);
    const glm::vec2 offset_px = to.center() - screen * 0.5f;
    centre_ = shown_centre - glm::vec2(offset_px.x, -offset_px.y) * world_per_pixel_;
}

void Camera2D::pan(glm::vec2 delta_px, glm::vec2) {
    centre_ -= glm::vec2(delta_px.x, -delta_px.y) * world_per_pixel_;
}

void Camera2D::zoom(glm::vec2 at_px, float notches, glm::vec2 screen) {
    const glm::vec2 before = screen_to_world(at_px, screen);
    const float factor = std::pow(kZoomPerNotch, notches);
    world_per_pixel_ = std::clamp(world_per_pixel_ / factor, 1e-6f, 1e6f);
    const glm::vec2 after = screen_to_world(at_px, screen);
    centre_ += before - after;
}

glm::mat4 Camera2D::view_proj(glm::vec2 screen) const {
    const glm::vec2 half = screen * 0.5f * world_per_pixel_;
    return glm::ortho(centre_.x - half.x, centre_.x + half.x, centre_.y - half.y,
                      centre_.y + half.y, -1.0f, 1.0f);
}

glm::vec2 Camera2D::screen_to_world(glm::vec2 px, glm::vec2 screen) const {
    const glm::vec2 d = px - screen * 0.5f;
    return centre_ + glm::vec2(d.x, -d.y) * world_per_pixel_;
}

Ray Camera2D::ray_at(glm::vec2 px, glm::vec2 screen) const {
    // From just above the plane, so a plane hit lies ahead of the origin.
    return {{screen_to_world(px, screen), 1.0f}, {0.0f, 0.0f, -1.0f}};
}

bool Camera2D::world_to_screen(const glm::vec3& p, glm::vec2 screen, glm::vec2& out) const {
    const glm::vec2 d = (glm::vec2(p) - centre_) / world_per_pixel_;
    out = screen * 0.5f + glm::vec2(d.x, -d.y);
    return true;
}

Box3 Camera2D::visible(const Box3&, glm::vec2 screen) const {
    const glm::vec2 a = screen_to_world({0, screen.y}, screen);
    const glm::vec2 b = screen_to_world({screen.x, 0}, screen);
    return {{a.x, a.y, -1e30f}, {b.x, b.y, 1e30f}};
}

void Camera3D::fit(const Box3& world, const ScreenRect& area_in, glm::vec2 screen) {
    const ScreenRect area = usable(area_in, screen);
    target_ = (world.lo + world.hi) * 0.5f;
    world_radius_ = std::max(glm::length(world.hi - world.lo) * 0.5f, 1e-3f);
    // The bounding sphere must fit the narrower of the area's two angles.
    const float tan_y = std::tan(kFovY * 0.5f) * area.size().y / screen.y;
    const float tan_x = std::tan(kFovY * 0.5f) * area.size().x / screen.y;
    const float half_angle = std::atan(std::min(tan_x, tan_y));
    distance_ = world_radius_ / std::sin(half_angle) * kFitMargin;
    yaw_ = 0.6f;
    pitch_ = 0.45f;
    lens_shift_ = ndc_of(area.center(), screen);
}

void Camera3D::reframe(const ScreenRect& from_in, const ScreenRect& to_in, glm::vec2 screen) {
    const ScreenRect from = usable(from_in, screen), to = usable(to_in, screen);
    // As fit(): the narrower of the area's two angles holds what was shown.
    const auto half_angle = [&](const ScreenRect& area) {
        const float tan_half = std::tan(kFovY * 0.5f) / screen.y;
        return std::atan(tan_half * std::min(area.size().x, area.size().y));
    };
    distance_ *= std::sin(half_angle(from)) / std::sin(half_angle(to));
    lens_shift_ = ndc_of(to.center(), screen);
}

void Camera3D::orbit(glm::vec2 delta_px) {
    yaw_ -= delta_px.x * 0.006f;
    pitch_ = std::clamp(pitch_ + delta_px.y * 0.006f, -kMaxPitch, kMaxPitch);
}

void Camera3D::pan(glm::vec2 delta_px, glm::vec2 screen) {
    const float per_px = pixel_size_at(target_, screen);
    target_ += (-delta_px.x * right() + delta_px.y * up()) * per_px;
}

void Camera3D::zoom(glm::vec2, float notches, glm::vec2) {
    distance_ = std::clamp(distance_ * std::pow(0.88f, notches), world_radius_ * 1e-3f,
                           world_radius_ * 50.0f);
}

glm::vec3 Camera3D::eye() const {
    const glm::vec3 offset(std::cos(pitch_) * std::sin(yaw_), std::sin(pitch_),
                           std::cos(pitch_) * std::cos(yaw_));
    return target_ + offset * distance_;
}

glm::vec3 Camera3D::right() const {
    return glm::normalize(glm::cross(forward(), glm::vec3(0, 1, 0)));
}

glm::vec3 Camera3D::up() const {
    return glm::cross(right(), forward());
}

glm::mat4 Camera3D::view() const {
    return glm::lookAt(eye(), target_, glm::vec3(0, 1, 0));
}

glm::mat4 Camera3D::proj(glm::vec2 screen) const {
    // Clip planes follow the world so depth precision is spent where the bodies are.
    const float near_plane = std::max(distance_ - world_radius_ * 1.5f, distance_ * 1e-3f);
    const float far_plane = distance_ + world_radius_ * 2.0f;
    const glm::mat4 p = glm::perspective(kFovY, screen.x / screen.y, near_plane, far_plane);
    // Shift the image (not the eye) so the target lands in the centre of the fitted area.
    const glm::mat4 shift = glm::translate(glm::mat4(1.0f), glm::vec3(lens_shift_, 0.0f));
    return shift * p;
}

Ray Camera3D::ray_at(glm::vec2 px, glm::vec2 screen) const {
    const glm::mat4 inv = glm::inverse(view_proj(screen));
    const glm::vec2 ndc = ndc_of(px, screen);
    glm::vec4 a = inv * glm::vec4(ndc, -1.0f, 1.0f);
    glm::vec4 b = inv * glm::vec4(ndc, 1.0f, 1.0f);
    const glm::vec3 near_point = glm::vec3(a) / a.w;
    const glm::vec3 far_point = glm::vec3(b) / b.w;
    return {eye(), glm::normalize(far_point - near_point)};
}

bool Camera3D::world_to_screen(const glm::vec3& p, glm::vec2 screen, glm::vec2& out) const {
    const glm::vec4 clip = view_proj(screen) * glm::vec4(p, 1.0f);
    if (clip.w <= 1e-6f) return false;
    const glm::vec2 ndc = glm::vec2(clip) / clip.w;
    out = {(ndc.x + 1.0f) * 0.5f * screen.x, (1.0f - ndc.y) * 0.5f * screen.y};
    return true;
}

float Camera3D::pixel_size_at(const glm::vec3& p, glm::vec2 screen) const {
    const float depth = std::max(glm::dot(p - eye(), forward()), distance_ * 1e-3f);
    return 2.0f * depth * std::tan(kFovY * 0.5f) / screen.y;
}

Box3 Camera3D::visible(const Box3& world, glm::vec2 screen) const {
    // The frustum's corners (the far plane lies beyond the world), clipped to the world.
    const glm::mat4 inv = glm::inverse(view_proj(screen));
    glm::vec3 lo(1e30f), hi(-1e30f);
    for (int i = 0; i < 8; ++i) {
        glm::vec4 c = inv * glm::vec4(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1, 1);
        glm::vec3 p = glm::vec3(c) / c.w;
        lo = glm::min(lo, p);
        hi = glm::max(hi, p);
    }
    // A margin, since structures (grids, tree roots) may reach a little past the walls.
    const glm::vec3 margin = (world.hi - world.lo) * 0.05f;
    return {glm::max(lo, world.lo - margin), glm::min(hi, world.hi + margin)};
}

ScreenRect screen_footprint(const Camera& camera, const Box3& box, glm::vec2 screen) {
    glm::vec2 lo(1e30f), hi(-1e30f);
    for (int i = 0; i < 8; ++i) {
        const glm::vec3 corner(i & 1 ? box.hi.x : box.lo.x, i & 2 ? box.hi.y : box.lo.y,
                               i & 4 ? box.hi.z : box.lo.z);
        glm::vec2 px;
        if (!camera.world_to_screen(corner, screen, px)) return {{0.0f, 0.0f}, screen};
        lo = glm::min(lo, px);
        hi = glm::max(hi, px);
    }
    return {glm::clamp(lo, glm::vec2(0.0f), screen), glm::clamp(hi, glm::vec2(0.0f), screen)};
}

}  // namespace collidoscope
