#include "main/frame_draw.hpp"

#include <imgui.h>

#include <algorithm>
#include <variant>

#include "sim/watch_overlay.hpp"
#include "ui/cost_legend.hpp"
#include "ui/imgui_color.hpp"

namespace collidoscope {
namespace {

constexpr float kRingPx = 7.0f;    // smallest selection ring, in pixels
constexpr float kLensPx = 150.0f;  // the focus lens's half side, in pixels

}  // namespace

const Camera& DrawContext::camera() const {
    return demo.dim() == 2 ? static_cast<const Camera&>(camera_2d) : camera_3d;
}

OverlayReport FrameDraw::build(const DrawContext& c, std::span<const collide::BodyId> query_hits) {
    SimWorld& world = c.demo.world();
    const ViewOptions& view = c.demo.view();
    // One view of speed or id colours: the CPU world's arrays go up as they are, and the
    // shader colours them; else (compare panes, cost colours, implicit bodies) instances.
    // The GPU world's bodies are drawn from its own buffers.
    uploaded_bodies_.reset();
    const bool one_view = view.compare.empty() || world.on_gpu();
    const BodyBuffers buffers = one_view ? world.body_buffers(view.color_mode) : BodyBuffers{};
    if (const auto* arrays = std::get_if<BodyArrays>(&buffers)) {
        instances_.clear();
        uploaded_bodies_ = renderer_.upload_bodies(*arrays);
    } else if (const auto* gpu = std::get_if<GpuBodies>(&buffers)) {
        instances_.clear();
        uploaded_bodies_ = *gpu;
    } else {
        cost_scale_ = world.fill_instances(view.color_mode, instances_);
    }

    OverlayRequest req;
    req.flags = view.overlays;
    req.predicted_impact = world.physics().swept;
    req.selected = c.demo.selected();
    req.query = c.demo.query();
    req.query_hits = query_hits;
    const Camera& cam = c.camera();
    req.view = cam.visible(world.bounds(), c.screen);
    req.ring_right = cam.right();
    req.ring_up = cam.up();
    if (req.query) {
        // One size for all, taken at the region's centre.
        req.query_pixel = cam.pixel_size_at(req.query->center(), c.screen);
    }
    if (req.selected != collide::kNoBody) {
        req.min_ring_radius = kRingPx * cam.pixel_size_at(world.position(req.selected), c.screen);
    }
    set_level_of_detail(req, c);
    overlays_.clear();
    world.fill_shapes(shapes_);
    if (!view.compare.empty() && !world.on_gpu()) {  // each pane builds its own, in draw()
        compare_request_ = req;
        return {};
    }
    const OverlayReport report = world.fill_overlays(req, overlays_);
    if (c.demo.watch().open()) add_watch_overlay(c.demo.watch().player(), overlays_);
    return report;
}

double FrameDraw::draw(const DrawContext& c) {
    // GL works in framebuffer pixels, the cameras in window points; they differ on HiDPI.
    const float pixels_per_point = static_cast<float>(c.framebuffer.y) / std::max(c.screen.y, 1.0f);
    const ScreenRect& view_rect = c.view;
    const glm::ivec2 lo = glm::ivec2(glm::floor(view_rect.min * pixels_per_point));
    const glm::ivec2 hi = glm::ivec2(glm::ceil(view_rect.max * pixels_per_point));
    renderer_.begin_frame(c.framebuffer, {lo.x, c.framebuffer.y - hi.y, hi.x - lo.x, hi.y - lo.y});
    SimWorld& world = c.demo.world();
    ViewOptions& view = c.demo.view();
    // The compare panes race the CPU world's boxes: the GPU world shows its one view.
    if (!view.compare.empty() && !world.on_gpu()) {
        const double panes_ms = compare_.render(
            world, view.compare, view.color_mode, compare_request_, c.camera(), view_rect, c.screen,
            c.framebuffer, instances_, renderer_,
            [&](glm::vec2 size, std::span<const Instance> bodies, const OverlayGeometry& overlays) {
                draw_scene(size, c, bodies, overlays);
            },
            view.compare_run_once, view.compare_notes);
        view.compare_run_once.clear();
        return panes_ms;
    }
    draw_scene(c.screen, c, instances_, overlays_);
    if (view.color_mode == ColorMode::kCost && !world.on_gpu()) {
        draw_cost_legend(*ImGui::GetBackgroundDrawList(), cost_scale_, c.demo.broad_phase(),
                         view_rect);
    }
    return 0.0;
}

void FrameDraw::draw_scene(glm::vec2 size, const DrawContext& c, std::span<const Instance> bodies,
                           const OverlayGeometry& overlays) {
    const Camera& cam = c.camera();
    const glm::mat4 view_proj = cam.view_proj(size);
    // From the buffers build() chose (the GPU world's, or the CPU world's arrays it
    // uploaded), or as instances.
    std::optional<GpuBodies> gpu_bodies;
    if (bodies.empty()) gpu_bodies = uploaded_bodies_;
    const ColorMode mode = c.demo.view().color_mode;
    // The bodies are drawn differently (flat discs, lit impostors), the overlays the same.
    if (c.demo.dim() == 2) {
        // GL works in framebuffer pixels, the cameras in window points; they differ on HiDPI.
        const float pixels_per_point =
            static_cast<float>(c.framebuffer.y) / std::max(c.screen.y, 1.0f);
        const float world_per_pixel = c.camera_2d.world_per_pixel() / pixels_per_point;
        renderer_.draw_triangles(overlays.triangles, view_proj, false);  // under the bodies
        if (gpu_bodies) {
            renderer_.draw_circles(*gpu_bodies, mode, view_proj, world_per_pixel);
        } else {
            renderer_.draw_circles(bodies, view_proj, world_per_pixel);
        }
        renderer_.draw_lines(shapes_.lines, view_proj, false);
        renderer_.draw_lines(overlays.lines, view_proj, false);
    } else {
        const bool depth = !c.demo.view().overlays_on_top;
        // The largest sphere's drawn radius where it could be nearest the eye: the world's
        // point nearest the eye (the bodies stay inside the walls).
        const Box3 walls = c.demo.world().bounds();
        const glm::vec3 eye = c.camera_3d.eye();
        const glm::vec3 nearest = glm::clamp(eye, walls.lo, walls.hi);
        const float pixel = c.camera_3d.pixel_size_at(nearest, c.screen);
        float max_radius = gpu_bodies ? gpu_bodies->max_radius : 0.0f;
        if (!gpu_bodies) {
            for (const Instance& b : bodies) max_radius = std::max(max_radius, b.radius);
        }
        const SphereDetail detail = nearest == eye
                                        ? SphereDetail::kExact
                                        : Renderer::sphere_detail(max_radius / pixel, true);
        if (gpu_bodies) {
            renderer_.draw_spheres(*gpu_bodies, mode, c.camera_3d.view(), c.camera_3d.proj(size),
                                   detail);
        } else {
            renderer_.draw_spheres(bodies, c.camera_3d.view(), c.camera_3d.proj(size), detail);
        }
        renderer_.draw_mesh(shapes_.triangles, view_proj);
        renderer_.draw_triangles(overlays.triangles, view_proj, depth);
        renderer_.draw_lines(overlays.lines, view_proj, depth);
    }
}

void FrameDraw::set_level_of_detail(OverlayRequest& req, const DrawContext& c) const {
    const SimWorld& world = c.demo.world();
    const ViewOptions& view = c.demo.view();
    const Camera& cam = c.camera();
    req.pixel = cam.pixel_size_at(cam.target(), c.screen);
    // The lens follows the selection, else (2D) the cursor while it is over the world.
    std::optional<glm::vec3> focus;
    if (req.selected != collide::kNoBody) {
        focus = world.position(req.selected);
    } else if (c.demo.dim() == 2 && !ImGui::GetIO().WantCaptureMouse) {
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        if (mouse.x >= 0 && mouse.y >= 0) focus = cam.ray_at({mouse.x, mouse.y}, c.screen).origin;
    }
    if (view.lens && focus) {
        const float half = kLensPx * cam.pixel_size_at(*focus, c.screen);
        req.lens = Box3{*focus - glm::vec3(half), *focus + glm::vec3(half)};
    }
    if (c.demo.dim() == 3) {
        req.eye = c.camera_3d.eye();
        if (view.slab) {
            const Box3 bounds = world.bounds();
            const int k = std::clamp(view.slab_axis, 0, 2);
            const float side = bounds.hi[k] - bounds.lo[k];
            const float at = req.selected != collide::kNoBody ? world.position(req.selected)[k]
                                                              : bounds.lo[k] + view.slab_at * side;
            Box3 slab = bounds;
            slab.lo[k] = at - 0.5f * view.slab_width * side;
            slab.hi[k] = at + 0.5f * view.slab_width * side;
            req.slab = slab;
        }
    }
}

void FrameDraw::draw_labels(const DrawContext& c) const {
    if (overlays_.labels.empty()) return;
    ImDrawList* draw = ImGui::GetBackgroundDrawList();
    const ScreenRect& view = c.view;  // like the world, never under a panel
    draw->PushClipRect(ImVec2(view.min.x, view.min.y), ImVec2(view.max.x, view.max.y));
    for (const Label& label : overlays_.labels) {
        glm::vec2 at;
        if (!c.camera().world_to_screen(label.at, c.screen, at)) continue;
        draw->AddText(ImVec2(at.x, at.y), to_imgui(label.color), label.text.c_str());
    }
    draw->PopClipRect();
}

}  // namespace collidoscope
