#include "input.hpp"

#include <SDL.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace collidoscope {
namespace {

constexpr float kPickSlackPx = 3.0f;  // sub-pixel bodies can still be clicked
constexpr float kClickSlackPx = 3.0f;  // less motion than this is a click, not a drag

// Where the ray meets the plane through `point` with normal `normal`; false if it misses.
bool hit_plane(const Ray& ray, const glm::vec3& point, const glm::vec3& normal, glm::vec3& out) {
    const float denom = glm::dot(ray.dir, normal);
    if (std::abs(denom) < 1e-6f) return false;
    const float s = glm::dot(point - ray.origin, normal) / denom;
    if (s <= 0.0f) return false;
    out = ray.origin + ray.dir * s;
    return true;
}

// The world region under the screen rectangle between `a_px` and `b_px`: the rectangle
// unprojected onto the camera-facing plane through the camera's target, given the camera's
// region depth (3D: its larger side, centred on that plane, so it reads as a box at the
// focus; 2D: flat).
std::optional<Box3> region_under(glm::vec2 a_px, glm::vec2 b_px, const InputTargets& t) {
    const Camera& cam = t.camera;
    const glm::vec3 normal = cam.forward();
    // Corner i takes x from b if bit 0 is set, y from b if bit 1 is.
    glm::vec3 corner[4];
    for (int i = 0; i < 4; ++i) {
        const glm::vec2 px(i & 1 ? b_px.x : a_px.x, i & 2 ? b_px.y : a_px.y);
        if (!hit_plane(cam.ray_at(px, t.screen), cam.target(), normal, corner[i])) {
            return std::nullopt;
        }
    }
    const float side =
        std::max(glm::distance(corner[0], corner[1]), glm::distance(corner[0], corner[2]));
    const glm::vec3 half_depth = normal * (0.5f * cam.region_depth(side));
    Box3 box = Box3::empty();
    for (const glm::vec3& c : corner) {
        for (const glm::vec3& p : {c - half_depth, c + half_depth}) {
            box.lo = glm::min(box.lo, p);
            box.hi = glm::max(box.hi, p);
        }
    }
    return box;
}

}  // namespace

void Input::handle(const SDL_Event& event, InputTargets& t) {
    const ImGuiIO& io = ImGui::GetIO();
    switch (event.type) {
        case SDL_QUIT: t.quit = true; break;
        case SDL_WINDOWEVENT:
            if (event.window.event == SDL_WINDOWEVENT_CLOSE) t.quit = true;
            break;
        case SDL_KEYDOWN:
            if (!io.WantCaptureKeyboard) {
                key_down(event.key.keysym.sym, t);
            }
            break;
        case SDL_MOUSEBUTTONDOWN: {
            mouse_ = {static_cast<float>(event.button.x), static_cast<float>(event.button.y)};
            if (io.WantCaptureMouse) break;
            const bool shift = (SDL_GetModState() & KMOD_SHIFT) != 0;
            if (event.button.button == SDL_BUTTON_LEFT && shift) {
                region_ = {true, false, mouse_};
            } else if (event.button.button == SDL_BUTTON_LEFT) {
                pick(mouse_, t);
            } else if (event.button.button == SDL_BUTTON_RIGHT) {
                camera_drag_ = shift ? CameraDrag::kPan : CameraDrag::kTurn;
            } else if (event.button.button == SDL_BUTTON_MIDDLE) {
                camera_drag_ = CameraDrag::kPan;
            }
            break;
        }
        case SDL_MOUSEBUTTONUP:
            // Releases are honoured even over a panel, so no drag gets stuck.
            if (event.button.button == SDL_BUTTON_LEFT) {
                drag_.active = false;
                // A shift-click without a drag clears the region.
                if (region_.active && !region_.moved) t.demo.set_query(std::nullopt);
                region_.active = false;
            }
            if (event.button.button != SDL_BUTTON_LEFT) camera_drag_ = CameraDrag::kNone;
            break;
        case SDL_MOUSEMOTION: {
            mouse_ = {static_cast<float>(event.motion.x), static_cast<float>(event.motion.y)};
            const glm::vec2 delta(static_cast<float>(event.motion.xrel),
                                  static_cast<float>(event.motion.yrel));
            if (region_.active) update_region(t);
            if (camera_drag_ == CameraDrag::kTurn) {
                t.camera.turn(delta, t.screen);
            } else if (camera_drag_ == CameraDrag::kPan) {
                t.camera.pan(delta, t.screen);
            }
            break;
        }
        case SDL_MOUSEWHEEL: {
            if (io.WantCaptureMouse) break;
            float notches = event.wheel.preciseY;
            if (event.wheel.direction == SDL_MOUSEWHEEL_FLIPPED) notches = -notches;
            t.camera.zoom(mouse_, notches, t.screen);
            break;
        }
        default: break;
    }
}

void Input::key_down(int key, InputTargets& t) {
    Demo& demo = t.demo;
    switch (key) {
        case SDLK_ESCAPE:
            // Escape closes an open menu first (ImGui does that), then clears the query
            // region; only then does it quit.
            if (ImGui::IsPopupOpen("",
                                   ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel)) {
                break;
            }
            if (demo.query() || region_.active) {
                demo.set_query(std::nullopt);
                region_.active = false;
            } else {
                t.quit = true;
            }
            break;
        case SDLK_p: demo.set_paused(!demo.paused()); break;
        case SDLK_o:
            demo.set_paused(true);
            demo.step_once();
            break;
        case SDLK_r: demo.reset(); break;
        case SDLK_s:
            // S alone: Ctrl+S and the like are left to whatever may want them later.
            if ((SDL_GetModState() & (KMOD_CTRL | KMOD_ALT | KMOD_GUI | KMOD_SHIFT)) == 0)
                t.save_scene = true;
            break;
        case SDLK_c:
        case SDLK_HOME: t.fit_camera = true; break;
        case SDLK_COMMA: demo.step_back(); break;
        case SDLK_PERIOD: demo.step_forward(); break;
        default:
            if (key >= SDLK_1 && key <= SDLK_9) {
                const auto algorithms = demo.algorithms();
                const auto n = static_cast<std::size_t>(key - SDLK_1);
                if (n < algorithms.size()) demo.set_broad_phase(std::string(algorithms[n]->name));
            }
            break;
    }
}

void Input::pick(glm::vec2 px, InputTargets& t) {
    SimWorld& world = t.demo.world();
    drag_ = {};
    mouse_ = px;
    const Ray ray = t.camera.ray_at(px, t.screen);
    const glm::vec3 centre = (world.bounds().lo + world.bounds().hi) * 0.5f;
    const float slack = kPickSlackPx * t.camera.pixel_size_at(centre, t.screen);
    const collide::BodyId hit = world.pick(ray.origin, ray.dir, slack);
    if (hit != collide::kNoBody) {
        // Dragged in the camera-facing plane through the body (2D: the world plane).
        drag_.plane_point = world.position(hit);
        drag_.plane_normal = t.camera.forward();
        glm::vec3 grabbed;
        if (cursor_on_drag_plane(t, grabbed)) drag_.offset = drag_.plane_point - grabbed;
    }
    t.demo.select(hit);
    drag_.active = hit != collide::kNoBody;
    drag_.id = hit;
    if (drag_.active) drag_.last_target = world.position(hit);
}

void Input::update_region(InputTargets& t) {
    const glm::vec2 extent = glm::abs(mouse_ - region_.start_px);
    if (!region_.moved && std::max(extent.x, extent.y) < kClickSlackPx) return;
    region_.moved = true;
    if (auto region = region_under(region_.start_px, mouse_, t)) t.demo.set_query(region);
}

bool Input::cursor_on_drag_plane(InputTargets& t, glm::vec3& out) const {
    return hit_plane(t.camera.ray_at(mouse_, t.screen), drag_.plane_point, drag_.plane_normal,
                     out);
}

void Input::update_drag(InputTargets& t) {
    SimWorld& world = t.demo.world();
    if (!drag_.active || drag_.id >= world.body_count() || drag_.id != t.demo.selected()) {
        drag_.active = false;
        return;
    }
    glm::vec3 cursor;
    if (!cursor_on_drag_plane(t, cursor)) return;
    // Keep the body inside the walls, as the world would.
    const Box3 bounds = world.bounds();
    const float r = world.radius(drag_.id);
    glm::vec3 target = cursor + drag_.offset;
    for (int k = 0; k < t.demo.dim(); ++k) {
        const float lo = bounds.lo[k] + r;
        const float hi = bounds.hi[k] - r;
        target[k] = lo <= hi ? std::clamp(target[k], lo, hi) : 0.5f * (bounds.lo[k] + bounds.hi[k]);
    }
    // Velocity from the motion per step, smoothed so a release mid-throw keeps its speed
    // even if the last frame's motion was tiny.
    const float dt = std::max(world.physics().dt, 1e-5f);
    const glm::vec3 v = (target - drag_.last_target) / dt;
    drag_.velocity = glm::mix(drag_.velocity, v, 0.5f);
    t.demo.move_body(drag_.id, target, drag_.velocity);
    drag_.last_target = target;
}

}  // namespace collidoscope
