// Turns a world's state into overlay lines: the world outline (always), every body's box,
// the broad phase's pairs (real contacts in their own colour), the algorithm's own
// structure through collide::DebugDraw, the query region with rings around the bodies its
// query found, and the ring around the selected body. Lines end up in one vector of line
// vertices (and fills in one of triangles), which the renderer draws in one call each.
#pragma once

#include <vector>

#include "collide/world.hpp"
#include "sim/overlay_request.hpp"
#include "common/palette.hpp"

namespace collidoscope {

inline constexpr std::size_t kMaxImplicitContactsShown = 32;
inline constexpr float kImpactHorizonSeconds = 2.0f;

// Appends the requested overlays for `world` to `out`; `trace` is what the broad phase's
// query of req.query visited this frame (read only when there is a query region). The
// structure is `algorithm`'s when given (a compare pane's), else the world's broad phase.
template <int D>
OverlayReport build_overlays(const collide::World<D>& world, const OverlayRequest& req,
                             const collide::QueryTrace<D>& trace, OverlayGeometry& out,
                             const collide::BroadPhase<D>* algorithm = nullptr);

}  // namespace collidoscope
