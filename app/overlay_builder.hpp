// Turns a world's state into overlay lines: the world outline (always), every body's box,
// the broad phase's pairs (real contacts in their own colour), the algorithm's own
// structure through collide::DebugDraw, the query region with rings around the bodies its
// query found, and the ring around the selected body. Lines end up in one vector of line
// vertices (and fills in one of triangles), which the renderer draws in one call each.
#pragma once

#include <vector>

#include "collide/world.hpp"
#include "sim_world.hpp"

namespace collidoscope {

// Colours of the app's own overlays (0xAARRGGBB).
inline constexpr collide::Color kWorldOutlineColor = 0xFFB4B9C3;
inline constexpr collide::Color kBoxColor = 0x9080C8FF;
inline constexpr collide::Color kPairColor = 0xC8FFFFFF;
inline constexpr collide::Color kContactColor = 0xFFFF40FF;
inline constexpr collide::Color kSelectionColor = 0xFFFFFFFF;
inline constexpr collide::Color kSelectionShadowColor = 0xC0000000;
// Full-intensity red, which the bodies' colour ramp never reaches, so these stand out; both
// differ from the greens, cyans and greys the algorithms trace their queries in.
inline constexpr collide::Color kQueryRegionColor = 0xFFFF9900;
inline constexpr collide::Color kQueryHitColor = 0xFFFFEB00;
// The selected body's predicted impact (swept steps): a light orange, apart from the above.
inline constexpr collide::Color kImpactColor = 0xFFFFB060;
inline constexpr float kImpactHorizonSeconds = 2.0f;
// Implicit contacts: surface points inside / outside the partner, signature cells, normals.
inline constexpr collide::Color kInsideColor = 0xFFFF2828;
inline constexpr collide::Color kOutsideColor = 0xFF30D040;
inline constexpr collide::Color kSignatureColor = 0x905A8CFF;
inline constexpr collide::Color kNormalColor = 0xFFFFE000;
inline constexpr std::size_t kMaxImplicitContactsShown = 32;

// Appends the requested overlays for `world` to `out`; `trace` is what the broad phase's
// query of req.query visited this frame (read only when there is a query region).
template <int D>
OverlayReport build_overlays(const collide::World<D>& world, const OverlayRequest& req,
                             const collide::QueryTrace<D>& trace, OverlayGeometry& out);

}  // namespace collidoscope
