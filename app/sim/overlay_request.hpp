// What the frame asks the overlays to draw (flags, selection, query, view and caps) and what
// they report back (counts drawn against counts there, so the UI can say when a cap hit).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include <glm/glm.hpp>

#include "collide/core.hpp"
#include "collide/debug_draw.hpp"
#include "common/geometry.hpp"

namespace collidoscope {

struct OverlayRequest {
    collide::OverlayFlags flags;      // the viewer's choice, as the command line and panel set it
    bool predicted_impact = false;    // the selected body's next contact (swept steps)
    collide::BodyId selected = collide::kNoBody;
    Box3 view;                        // what the camera sees (for culling and DebugDraw::view)
    glm::vec3 ring_right{1, 0, 0};    // the screen's axes in world space, to draw the
    glm::vec3 ring_up{0, 1, 0};       // selection ring facing the viewer
    float min_ring_radius = 0.0f;     // world units; keeps the ring visible on tiny bodies
    std::size_t max_boxes = 100'000;  // caps so a million-body overlay stays drawable
    std::size_t max_pairs = 200'000;
    std::size_t max_query_hits = 20'000;

    // The viewer's query region (drawn, with the trace of this frame's query() passed to the
    // algorithm's draw()), what query() returned for it, and the world size of a pixel there
    // (it sizes the rings and outline).
    std::optional<Box3> query;
    std::span<const collide::BodyId> query_hits;
    float query_pixel = 0.0f;

    // Level of detail of the structure (collide::DebugDraw): the world size of a pixel at the
    // camera's target, the focus lens (full detail inside), the 3D slab (structure, boxes
    // and pairs only inside) and the eye (3D depth fading).
    float pixel = 0.0f;
    std::optional<Box3> lens;
    std::optional<Box3> slab;
    std::optional<glm::vec3> eye;
};

// What the overlays actually drew, so the UI can say when a cap kicked in.
struct OverlayReport {
    std::size_t boxes_drawn = 0;
    std::size_t boxes_in_view = 0;
    std::size_t boxes_total = 0;
    std::size_t pairs_drawn = 0;
    std::size_t pairs_in_view = 0;
    std::size_t pairs_total = 0;
    std::size_t structure_primitives = 0;
    bool structure_capped = false;
    std::string lod_note;   // collide::DebugDraw::lod_note(): thinning and tint, for the legend
    float tint_max = 0.0f;  // bodies in the fullest density-tint cell; 0: no tint drawn
    std::size_t query_hits_drawn = 0;
    std::size_t query_hits_in_view = 0;
    std::size_t query_hits_total = 0;
};

}  // namespace collidoscope
