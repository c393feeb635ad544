#include "ui/ui_layout.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <vector>

namespace collidoscope {
namespace {

ScreenRect rect(float x, float y, float w, float h) {
    return {{x, y}, {x + std::max(w, 0.0f), y + std::max(h, 0.0f)}};
}

// The right column, top down. A collapsed Race window is its title bar. Stats first: what it
// wants, and at least half the room if the others want more; the Race and the Selected body
// share the rest. Each scrolls past its share.
void place_right_column(const LayoutInput& in, float right_x, float right_w, float column_h,
                        UiLayout& out) {
    const float m = kPanelMargin;
    const float least = 4.0f * in.title_height;  // a panel shows at least a few lines
    const float room = column_h - 2.0f * m - (in.race_open ? 0.0f : in.title_height);
    const std::array<float, 2> others = {in.race_open ? std::max(in.race_wants, least) : 0.0f,
                                         in.selection ? std::max(in.selection_wants, least) : 0.0f};
    std::array<float, 3> heights{};
    heights[0] = std::min(std::max(in.stats_wants, least),
                          std::max(0.5f * room, room - others[0] - others[1]));
    fit_heights(others, std::span<float>(heights).subspan(1), room - heights[0]);
    if (!in.race_open) heights[1] = in.title_height;
    float y = m;
    out.stats = rect(right_x, y, right_w, heights[0]);
    y += heights[0] + m;
    out.race = rect(right_x, y, right_w, heights[1]);
    y += heights[1] + m;
    if (in.selection) out.selection = rect(right_x, y, right_w, heights[2]);
}

}  // namespace

void fit_heights(std::span<const float> wanted, std::span<float> out, float room) {
    std::vector<std::size_t> order(wanted.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return wanted[a] < wanted[b]; });
    room = std::max(room, 0.0f);
    for (std::size_t k = 0; k < order.size(); ++k) {
        const std::size_t i = order[k];
        out[i] = std::min(wanted[i], room / static_cast<float>(order.size() - k));
        room -= out[i];
    }
}

UiLayout compute_layout(const LayoutInput& in) {
    UiLayout out;
    const glm::vec2 s = in.screen;
    if (in.hidden) {
        out.world = rect(0.0f, 0.0f, s.x, s.y);
        return out;
    }
    const float m = kPanelMargin;
    // Wider with the text, but never more than a share of the window each.
    const float left_w = std::min(kLeftPanelWidth * in.ui_scale, kMaxSideShare * s.x);
    const float right_w = std::min((in.watch ? kWatchPanelWidth : kRightPanelWidth) * in.ui_scale,
                                   kMaxSideShare * s.x);
    const float column_h = s.y - 2.0f * m;
    out.left = rect(m, m, left_w, column_h);

    const float right_x = s.x - m - right_w;
    if (in.watch) {
        out.watch = rect(right_x, m, right_w, column_h);
    } else {
        place_right_column(in, right_x, right_w, column_h, out);
    }
    // Between the side panels: the timeline at the bottom, the world above it.
    const float mid_x = out.left.max.x + m;
    const float mid_w = right_x - m - mid_x;
    const float timeline_h = kTimelineHeight * in.ui_scale;
    out.timeline = rect(mid_x, s.y - m - timeline_h, mid_w, timeline_h);
    out.world = rect(mid_x, 0.0f, mid_w, out.timeline.min.y - m);
    return out;
}

}  // namespace collidoscope
