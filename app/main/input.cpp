#include "main/input.hpp"

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
    const bool shift = (SDL_GetModState() & KMOD_SHIFT) != 0;
    switch (event.type) {
        case SDL_QUIT: t.requests.quit = true; break;
        case SDL_WINDOWEVENT:
            if (event.window.event == SDL_WINDOWEVENT_CLOSE) t.requests.quit = true;
            break;
        case SDL_KEYDOWN:
            // The quit prompt takes the next key whoever has the keyboard: Enter quits,
            // anything else stays. A held Esc's repeats neither quit nor reopen it.
            if (t.dialogs.quit_prompt) {
                if (event.key.repeat) break;
                const SDL_Keycode key = event.key.keysym.sym;
                t.dialogs.quit_prompt = false;
                if (key == SDLK_RETURN || key == SDLK_KP_ENTER) t.requests.quit_confirmed = true;
                break;
            }
            if (!io.WantCaptureKeyboard &&
                !(event.key.repeat && event.key.keysym.sym == SDLK_ESCAPE)) {
                key_down(event.key.keysym.sym, (event.key.keysym.mod & KMOD_SHIFT) != 0, t);
            }
            break;
        case SDL_MOUSEBUTTONDOWN: {
            mouse_ = {static_cast<float>(event.button.x), static_cast<float>(event.button.y)};
            if (io.WantCaptureMouse) break;
            t.dialogs.quit_prompt = false;  // acting on the world answers "stay"
            const Binding* b = find_button(event.button.button, shift);
            if (b == nullptr) break;
            switch (b->command) {
                case Command::kSelect:
                    if (t.demo.view().spray) {
                        spray_ = {true, std::nullopt, std::nullopt};
                    } else {
                        pick(mouse_, t);
                    }
                    break;
                case Command::kQueryRegion: region_ = {true, false, mouse_}; break;
                case Command::kTurn: camera_drag_ = CameraDrag::kTurn; break;
                case Command::kPan: camera_drag_ = CameraDrag::kPan; break;
                default: break;
            }
            break;
        }
        case SDL_MOUSEBUTTONUP:
            // Releases are honoured even over a panel, so no drag gets stuck.
            if (event.button.button == SDL_BUTTON_LEFT) {
                drag_.active = false;
                spray_.active = false;
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
            const Binding* b = find_button(kWheel, shift);
            if (io.WantCaptureMouse || b == nullptr || b->command != Command::kZoom) break;
            float notches = event.wheel.preciseY;
            if (event.wheel.direction == SDL_MOUSEWHEEL_FLIPPED) notches = -notches;
            t.camera.zoom(mouse_, notches, t.screen);
            break;
        }
        // Touch: one finger is the mouse (SDL's emulation: tap selects, drag moves a body);
        // two pan the view, and spreading or pinching them zooms.
        case SDL_FINGERDOWN:
        case SDL_FINGERUP: gesture_at_.reset(); break;  // another count of fingers starts over
        case SDL_MULTIGESTURE: {
            if (event.mgesture.numFingers < 2 || io.WantCaptureMouse) break;
            const glm::vec2 at(event.mgesture.x * t.screen.x, event.mgesture.y * t.screen.y);
            if (gesture_at_) t.camera.pan(at - *gesture_at_, t.screen);
            // dDist is the change of the fingers' spread, a fraction of the window's diagonal.
            constexpr float kNotchesPerSpread = 12.0f;
            t.camera.zoom(at, event.mgesture.dDist * kNotchesPerSpread, t.screen);
            gesture_at_ = at;
            break;
        }
        default: break;
    }
}

void Input::key_down(int key, bool shift, InputTargets& t) {
    const Binding* b = find_key(key, shift);
    if (b == nullptr) return;
    Demo& demo = t.demo;
    const auto algorithms = demo.algorithms();
    // The current algorithm's row, to step from with [ and ].
    std::size_t current = 0;
    while (current < algorithms.size() && algorithms[current]->name != demo.broad_phase()) {
        ++current;
    }
    const auto choose = [&](std::size_t i) {
        if (i < algorithms.size()) demo.set_broad_phase(std::string(algorithms[i]->name));
    };
    const std::size_t n = algorithms.size();
    switch (b->command) {
        case Command::kEscape: escape(t); break;
        case Command::kRemove:
            if (t.demo.selected() != collide::kNoBody) {
                t.demo.remove_body(t.demo.selected());
            } else if (t.demo.query()) {
                t.demo.remove_in(*t.demo.query());
            }
            break;
        case Command::kPause: demo.set_paused(!demo.paused()); break;
        case Command::kStep:
            demo.set_paused(true);
            demo.step_once();
            break;
        case Command::kReset: demo.reset(); break;
        case Command::kFitCamera: t.requests.fit_camera = true; break;
        case Command::kAlgorithm:
            // Digits typed over a panel are a number meant for one of its fields (a missed
            // double click on Bodies, then 100000), not a run of algorithm switches.
            if (ImGui::GetIO().WantCaptureMouse) break;
            choose(static_cast<std::size_t>(algorithm_for_key(key, shift)));
            break;
        case Command::kSaveScene:
            // S alone: Ctrl+S and the like are left to whatever may want them later.
            if ((SDL_GetModState() & (KMOD_CTRL | KMOD_ALT | KMOD_GUI)) == 0)
                t.requests.save_scene = true;
            break;
        case Command::kStepBack: demo.step_back(); break;
        case Command::kStepForward: demo.step_forward();
            break;
        case Command::kPreviousAlgorithm: choose((current + n - 1) % n); break;
        case Command::kNextAlgorithm: choose((current + 1) % n); break;
        case Command::kHelp: t.dialogs.help = !t.dialogs.help; break;
        case Command::kHideUi: t.dialogs.ui_hidden = !t.dialogs.ui_hidden; break;
        case Command::kScreenshot: t.requests.screenshot = true; break;
        case Command::kWatch: demo.set_watching(!demo.watch().open()); break;
        case Command::kWatchStep:
            if (demo.watch().open()) demo.watch().player().step();
            break;
        case Command::kWatchBack:
            if (demo.watch().open()) demo.watch().player().back();
            break;
        case Command::kWatchPlay:
            if (demo.watch().open())
                demo.watch().player().set_playing(!demo.watch().player().playing());
            break;
        default: break;
    }
}

void Input::escape(InputTargets& t) {
    // An open menu closes first (ImGui does that).
    if (ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel)) {
        return;
    }
    Demo& demo = t.demo;
    if (t.dialogs.help) {
        t.dialogs.help = false;
    } else if (demo.query() || region_.active) {
        demo.set_query(std::nullopt);
        region_.active = false;
    } else if (demo.selected() != collide::kNoBody) {
        demo.select(collide::kNoBody);
    } else {
        t.dialogs.quit_prompt = true;
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
    drag_.start_px = px;
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

// A body under the cursor, in the plane through the world's centre facing the camera (2D:
// the world plane), moving as the cursor moves, each a diameter from the last one; radii
// 0.5 to 1, as the scenes'.
void Input::update_spray(InputTargets& t) {
    SimWorld& world = t.demo.world();
    const Box3 box = world.bounds();
    const glm::vec3 centre = (box.lo + box.hi) * 0.5f;
    glm::vec3 at;
    if (!hit_plane(t.camera.ray_at(mouse_, t.screen), centre, t.camera.forward(), at)) return;
    if (world.dim() == 2) at.z = 0.0f;
    const float dt = std::max(world.physics().dt, 1e-5f);
    const glm::vec3 v = spray_.last ? (at - *spray_.last) / dt : glm::vec3(0.0f);
    spray_.last = at;
    const float r = 0.5f + 0.5f * static_cast<float>(t.demo.ticks() % 7) / 6.0f;
    // 2D: the world is flat (its bounds' z is 0), so only x and y need room.
    const glm::vec3 room = world.dim() == 2 ? glm::vec3(r, r, 0.0f) : glm::vec3(r);
    const bool inside = Box3{box.lo + room, box.hi - room}.contains(at);
    if (!inside || (spray_.last_body && glm::distance(at, *spray_.last_body) < 2.0f)) return;
    spray_.last_body = at;
    t.demo.add_body(at, v, r);
}

void Input::update_drag(InputTargets& t) {
    if (spray_.active) {
        update_spray(t);
        return;
    }
    SimWorld& world = t.demo.world();
    if (!drag_.active || drag_.id >= world.body_count() || drag_.id != t.demo.selected()) {
        drag_.active = false;
        return;
    }
    // Until the cursor leaves the click slack this is a click: the body keeps its place and
    // its velocity (a drag with no motion would smooth the velocity towards zero).
    if (!drag_.moved) {
        const glm::vec2 extent = glm::abs(mouse_ - drag_.start_px);
        if (std::max(extent.x, extent.y) < kClickSlackPx) return;
        drag_.moved = true;
        drag_.last_target = world.position(drag_.id);
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
