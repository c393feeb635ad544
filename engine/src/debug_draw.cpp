#include "collide/debug_draw.hpp"

#include <algorithm>
#include <array>

namespace collide {

Color ramp_color(float t, float alpha) {
    // Four stops, linearly interpolated: blue, green, yellow, red.
    static constexpr std::array<std::array<float, 3>, 4> kStops = {{
        {0.15f, 0.35f, 0.95f},
        {0.15f, 0.80f, 0.35f},
        {0.95f, 0.85f, 0.15f},
        {0.95f, 0.20f, 0.15f},
    }};
    t = std::clamp(t, 0.0f, 1.0f) * 3.0f;
    const int i = std::min(static_cast<int>(t), 2);
    const float f = t - static_cast<float>(i);
    const auto& a = kStops[i];
    const auto& b = kStops[i + 1];
    return rgba(a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f,
                alpha);
}

}  // namespace collide
