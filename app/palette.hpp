// The app's colours in one place (0xAARRGGBB, the engine's collide::Color layout): its own
// overlays, the query, the selection, static bodies, and how bodies are coloured. The
// algorithms' structure colours are the engine's (collide/debug_draw.hpp).
#pragma once

#include <cstdint>

namespace collidoscope {

// Bodies are coloured by speed (a ramp) or by id (a hash); static bodies grey.
enum class ColorMode { kSpeed, kId };
inline constexpr std::uint32_t kStaticColor = 0xFF8C8C8C;

// ImGui packs colours as 0xAABBGGRR; ours are 0xAARRGGBB.
inline constexpr std::uint32_t to_abgr(std::uint32_t c) {
    return (c & 0xFF00FF00u) | ((c >> 16) & 0xFFu) | ((c & 0xFFu) << 16);
}

// Colours of the app's own overlays (0xAARRGGBB).
inline constexpr std::uint32_t kWorldOutlineColor = 0xFFB4B9C3;
inline constexpr std::uint32_t kBoxColor = 0x9080C8FF;
inline constexpr std::uint32_t kPairColor = 0xC8FFFFFF;
inline constexpr std::uint32_t kContactColor = 0xFFFF40FF;
inline constexpr std::uint32_t kSelectionColor = 0xFFFFFFFF;
inline constexpr std::uint32_t kSelectionShadowColor = 0xC0000000;
// Violets, a hue no structure overlay uses (they draw in white, grey, cyan, green, magenta,
// pink, orange, yellow and the blue-green-yellow-red ramp; the enneatree's nodes are orange
// and yellow) and the bodies' colour ramp never reaches, so the query stands out from both.
inline constexpr std::uint32_t kQueryRegionColor = 0xFFB040FF;
inline constexpr std::uint32_t kQueryHitColor = 0xFFC890FF;
// The selected body's predicted impact (swept steps): a light orange, apart from the above.
inline constexpr std::uint32_t kImpactColor = 0xFFFFB060;
// Implicit contacts: surface points inside / outside the partner, signature cells, normals.
inline constexpr std::uint32_t kInsideColor = 0xFFFF2828;
inline constexpr std::uint32_t kOutsideColor = 0xFF30D040;
inline constexpr std::uint32_t kSignatureColor = 0x905A8CFF;
inline constexpr std::uint32_t kNormalColor = 0xFFFFE000;

}  // namespace collidoscope
