// The app's colours in one place (0xAARRGGBB, the engine's collide::Color layout): its own
// overlays, the query, the selection, static bodies, and how bodies are coloured. The
// algorithms' structure colours are the engine's (collide/debug_draw.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace collidoscope {

// Bodies are coloured by speed (a ramp), by id (a hash) or by the broad phase's work on
// each this frame (the cost heat map); static bodies grey.
enum class ColorMode { kSpeed, kId, kCost };
inline constexpr std::uint32_t kStaticColor = 0xFF8C8C8C;
// A sleeping body keeps its colour at this share of its brightness.
inline constexpr float kAsleepBrightness = 0.4f;
inline std::uint32_t dimmed(std::uint32_t c, float share = kAsleepBrightness) {
    std::uint32_t out = c & 0xFF000000u;
    for (int shift : {0, 8, 16}) {
        const float v = static_cast<float>((c >> shift) & 0xFFu) * share;
        out |= static_cast<std::uint32_t>(v + 0.5f) << shift;
    }
    return out;
}
// Bodies in cost mode when the algorithm cannot attribute its work to bodies.
inline constexpr std::uint32_t kNoCostColor = 0xFF5A6478;

// The cost ramp at t in [0, 1]: dark violet (still apart from the background), magenta,
// orange, pale yellow. Lightness rises steadily along it, so more work always reads
// brighter, also in grey.
inline std::uint32_t cost_color(float t) {
    constexpr std::array<std::array<float, 3>, 5> kStops = {
        {{58, 40, 118}, {110, 30, 130}, {205, 60, 95}, {250, 150, 40}, {252, 245, 170}}};
    const float x = std::clamp(t, 0.0f, 1.0f) * (kStops.size() - 1);
    const std::size_t i = std::min<std::size_t>(static_cast<std::size_t>(x), kStops.size() - 2);
    const float f = x - static_cast<float>(i);
    std::uint32_t c = 0xFF000000;
    for (int k = 0; k < 3; ++k) {
        const float v = kStops[i][k] + f * (kStops[i + 1][k] - kStops[i][k]);
        c |= static_cast<std::uint32_t>(v + 0.5f) << (16 - 8 * k);
    }
    return c;
}

// Where a cost sits on the heat map's log scale: 0 at `low` or less, 1 at `peak`.
inline float cost_position(std::uint32_t cost, std::uint32_t low, std::uint32_t peak) {
    if (cost <= low || peak <= low) return cost > low ? 1.0f : 0.0f;
    return std::log(static_cast<float>(cost) / low) / std::log(static_cast<float>(peak) / low);
}

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
