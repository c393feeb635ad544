#include "ui/cost_legend.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "ui/imgui_color.hpp"
#include "common/palette.hpp"

namespace collidoscope {
namespace {

constexpr float kBarWidth = 220.0f;
constexpr float kBarHeight = 12.0f;
constexpr float kMargin = 12.0f;
constexpr int kSegments = 44;
constexpr ImU32 kText = IM_COL32(235, 235, 240, 255);
constexpr ImU32 kBackdrop = IM_COL32(12, 14, 20, 200);

// The ends of the scale and the powers of ten between them: the ticks of a log scale.
std::vector<std::uint32_t> ticks(const CostScale& scale) {
    std::vector<std::uint32_t> out{scale.low};
    std::uint64_t t = 1;
    while (t <= scale.low) t *= 10;
    for (; t < scale.peak; t *= 10) out.push_back(static_cast<std::uint32_t>(t));
    if (scale.peak > scale.low) out.push_back(scale.peak);
    return out;
}

// The legend itself; the caller clips it to `area`. Returns the box it laid out.
ScreenRect draw_cost_legend_clipped(ImDrawList& draw, const CostScale& scale,
                                    std::string_view algorithm, const ScreenRect& area) {
    const float line = ImGui::GetTextLineHeight();
    if (!scale.attributed) {
        const std::string note = std::string(algorithm) + " cannot attribute its work to bodies";
        const ImVec2 size = ImGui::CalcTextSize(note.c_str());
        const ImVec2 at(area.max.x - kMargin - size.x, area.max.y - kMargin - size.y);
        draw.AddRectFilled(ImVec2(at.x - 6, at.y - 4), ImVec2(at.x + size.x + 6, at.y + size.y + 4),
                           kBackdrop, 4.0f);
        draw.AddText(at, kText, note.c_str());
        return {glm::vec2(at.x - 6, at.y - 4), glm::vec2(at.x + size.x + 6, at.y + size.y + 4)};
    }
    const float room = area.max.x - area.min.x - 2.0f * kMargin - 24.0f;
    const float bar_width = std::clamp(room, 60.0f, kBarWidth);
    // The longest title that fits (the last one whatever the room).
    const char* title = "";
    for (const char* t :
         {"candidate tests per body this frame (log)", "tests per body (log)", "tests (log)"}) {
        title = t;
        if (ImGui::CalcTextSize(title).x <= room) break;
    }
    const float box_w = std::max(bar_width, ImGui::CalcTextSize(title).x) + 24.0f;
    const float box_h = 2 * line + kBarHeight + 16.0f;
    const ImVec2 box_min(area.max.x - kMargin - box_w, area.max.y - kMargin - box_h);
    draw.AddRectFilled(box_min, ImVec2(box_min.x + box_w, box_min.y + box_h), kBackdrop, 4.0f);
    draw.AddText(ImVec2(box_min.x + 12, box_min.y + 4), kText, title);
    const ImVec2 bar(box_min.x + 12, box_min.y + 8 + line);
    for (int i = 0; i < kSegments; ++i) {
        const float x0 = bar.x + bar_width * static_cast<float>(i) / kSegments;
        const float x1 = bar.x + bar_width * static_cast<float>(i + 1) / kSegments;
        const ImU32 c = to_imgui(cost_color((static_cast<float>(i) + 0.5f) / kSegments));
        draw.AddRectFilled(ImVec2(x0, bar.y), ImVec2(x1, bar.y + kBarHeight), c);
    }
    // Ticks with their costs; a label that would run into the one before it or into the
    // peak's (always shown, at the right end) is left out.
    const std::vector<std::uint32_t> at = ticks(scale);
    const auto label_span = [&](std::uint32_t t, const std::string& text) {
        const float x = bar.x + bar_width * cost_position(t, scale.low, scale.peak);
        const float w = ImGui::CalcTextSize(text.c_str()).x;
        const float left = std::clamp(x - 0.5f * w, bar.x - 4, bar.x + bar_width + 4 - w);
        return std::pair{x, left};
    };
    const std::string peak_text = std::to_string(at.back());
    const float peak_left = label_span(at.back(), peak_text).second;
    float last_end = -1e9f;
    for (std::size_t i = 0; i < at.size(); ++i) {
        const std::string text = (i == 0 && at.size() > 1 ? "<=" : "") + std::to_string(at[i]);
        const auto [x, left] = label_span(at[i], text);
        draw.AddLine(ImVec2(x, bar.y + kBarHeight), ImVec2(x, bar.y + kBarHeight + 3), kText);
        const float end = left + ImGui::CalcTextSize(text.c_str()).x;
        const bool last = i + 1 == at.size();
        if (!last && (left < last_end + 6 || end + 6 > peak_left)) continue;
        draw.AddText(ImVec2(left, bar.y + kBarHeight + 2), kText, text.c_str());
        last_end = end;
    }
    return {glm::vec2(box_min.x, box_min.y), glm::vec2(box_min.x + box_w, box_min.y + box_h)};
}

}  // namespace

ScreenRect draw_cost_legend(ImDrawList& draw, const CostScale& scale, std::string_view algorithm,
                            const ScreenRect& area) {
    // Inside its area whatever its size: a narrow compare pane shrinks the bar and the title,
    // and nothing is drawn over the panel beside it.
    draw.PushClipRect(ImVec2(area.min.x, area.min.y), ImVec2(area.max.x, area.max.y), true);
    const ScreenRect box = draw_cost_legend_clipped(draw, scale, algorithm, area);
    draw.PopClipRect();
    return box;
}

}  // namespace collidoscope
