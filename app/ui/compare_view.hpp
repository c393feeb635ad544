// The compare view: the world view split into two panes side by side (three or four: 2x2),
// each running its own algorithm on the same frame's boxes (the race's instance of it, not
// the simulation's, through SimWorld::compare_pane), with that algorithm's structure overlay
// and a stats line (update time, candidate tests, pairs, structure size). One camera draws
// every pane, so a pan or zoom in any of them moves all of them together.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "render/camera.hpp"
#include "common/geometry.hpp"
#include "sim/overlay_request.hpp"
#include "common/palette.hpp"
#include "render/renderer.hpp"
#include "sim/sim_world.hpp"

namespace collidoscope {

inline constexpr std::size_t kMaxComparePanes = 4;

// The panes inside the world view `area` for `count` algorithms.
std::vector<ScreenRect> compare_panes(const ScreenRect& area, std::size_t count);

class CompareView {
public:
    // Draws the world (bodies, surfaces, overlays) into a pane of `pane_size` points.
    using DrawWorld = std::function<void(glm::vec2 pane_size, std::span<const Instance> bodies,
                                         const OverlayGeometry& overlays)>;

    // Every pane of `algorithms` inside `area`: runs the algorithm, fills its overlays for
    // `request` (its view box recomputed for the pane), recolours `bodies` in cost mode,
    // draws through `draw_world` and writes the stats line and, in cost mode, the scale bar.
    // A pane over the time budget sits out and says why; `run_once` (a pane's algorithm, or
    // empty) runs anyway this frame. `notes` gets, per pane, why it sat out (or empty).
    // Returns the ms spent running the panes' algorithms (a part of the frame of its own,
    // not drawing).
    double render(SimWorld& world, std::span<const std::string> algorithms, ColorMode mode,
                OverlayRequest request, const Camera& camera, const ScreenRect& area,
                glm::vec2 screen, glm::ivec2 framebuffer, std::span<const Instance> bodies,
                Renderer& renderer, const DrawWorld& draw_world, const std::string& run_once,
                std::vector<std::string>& notes);

    // The last frame's panes, and the cost scale's box in each (empty outside cost mode), for
    // the state report.
    struct PaneLayout {
        ScreenRect pane;
        ScreenRect legend;
    };
    const std::vector<PaneLayout>& layout() const { return layout_; }

private:
    std::vector<PaneLayout> layout_;
    std::vector<Instance> bodies_;  // the pane's copy, recoloured by its costs
    CostScale common_;              // the last frame's panes' common scale (common_scale)
    OverlayGeometry overlays_;
};

}  // namespace collidoscope
