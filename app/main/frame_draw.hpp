// The draw pipeline of a frame: what the world view shows (body instances or the arrays the
// body shaders read, overlay lines, implicit surfaces), built on the CPU and then drawn
// through the camera into the world view, whole or split into compare panes; the cost
// legend and the overlays' labels on top.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "render/camera.hpp"
#include "render/renderer.hpp"
#include "sim/demo.hpp"
#include "ui/compare_view.hpp"

namespace collidoscope {

// What a frame is drawn with beside the world: the cameras (the demo's dimension picks
// one), the window in points, the framebuffer in pixels, and the world's view area.
struct DrawContext {
    Demo& demo;
    const Camera2D& camera_2d;
    const Camera3D& camera_3d;
    glm::vec2 screen;
    glm::ivec2 framebuffer;
    ScreenRect view;
    const Camera& camera() const;
};

class FrameDraw {
public:
    // Builds what the world view shows: body instances, overlay lines, implicit surfaces;
    // returns what the overlays drew. `query_hits`: the bodies the viewer's query found.
    OverlayReport build(const DrawContext& c, std::span<const collide::BodyId> query_hits);
    // Draws it into the back buffer, inside the world view only.
    // Returns the ms the compare panes spent running their algorithms (0 without them).
    double draw(const DrawContext& c);
    // The overlays' text labels, over the world view (ImGui's background list).
    void draw_labels(const DrawContext& c) const;

    Renderer& renderer() { return renderer_; }
    const Renderer& renderer() const { return renderer_; }
    const CompareView& compare() const { return compare_; }

private:
    // The structure overlay's level of detail: pixel size, lens, 3D slab and eye.
    void set_level_of_detail(OverlayRequest& req, const DrawContext& c) const;
    // Bodies, implicit surfaces and `overlays` through the camera, into a view of `size`.
    void draw_scene(glm::vec2 size, const DrawContext& c, std::span<const Instance> bodies,
                    const OverlayGeometry& overlays);

    Renderer renderer_;  // compiles its shaders: made once the window's context is current
    std::vector<Instance> instances_;
    // The buffers the body shaders draw from: the GPU world's, or the CPU world's arrays
    // once uploaded; empty when the bodies go as instances.
    std::optional<GpuBodies> uploaded_bodies_;
    CostScale cost_scale_;  // the cost colours' scale, for the legend
    OverlayGeometry overlays_;
    ShapeGeometry shapes_;
    CompareView compare_;
    OverlayRequest compare_request_;  // the frame's overlay request, for the compare panes
};

}  // namespace collidoscope
