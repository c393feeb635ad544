#include "ui/compare_view.hpp"

#include <chrono>

#include <imgui.h>

#include <cstdio>

#include "ui/cost_legend.hpp"
#include "ui/ui.hpp"

namespace collidoscope {
namespace {

constexpr ImU32 kPaneBorder = IM_COL32(150, 155, 170, 255);
constexpr ImU32 kStatsText = IM_COL32(240, 240, 245, 255);
constexpr ImU32 kStatsBackdrop = IM_COL32(12, 14, 20, 210);

// The pane's stats, three short lines so they fit a quarter of the view.
std::string stats_text(const std::string& name, const std::optional<ComparePaneFacts>& facts,
                       int dim, bool counting) {
    if (!facts) return name + ": not available in " + std::to_string(dim) + "D";
    const RaceEntry& r = facts->run;
    if (!r.ran) return r.note + "\n(\"Run once\" in the panel, under its pane)";
    char ms[32];
    std::snprintf(ms, sizeof ms, counting ? "%.2f ms counting costs" : "%.2f ms", r.ms);
    return name + "   " + ms + "\n" + format_count(r.tests) + " tests   " + format_count(r.pairs) +
           " pairs\n" + format_count(r.nodes) + " nodes   " + format_bytes(r.structure_bytes);
}

}  // namespace

std::vector<ScreenRect> compare_panes(const ScreenRect& area, std::size_t count) {
    std::vector<ScreenRect> out;
    const glm::vec2 size = area.size();
    if (count <= 2) {
        const glm::vec2 pane(size.x / 2.0f, size.y);
        for (std::size_t i = 0; i < count; ++i)
            out.push_back({area.min + glm::vec2(pane.x * i, 0.0f),
                           area.min + glm::vec2(pane.x * (i + 1), pane.y)});
        return out;
    }
    const glm::vec2 pane = size / 2.0f;
    for (std::size_t i = 0; i < count; ++i) {
        const glm::vec2 at =
            area.min + pane * glm::vec2(static_cast<float>(i % 2), static_cast<float>(i / 2));
        out.push_back({at, at + pane});
    }
    return out;
}

double CompareView::render(SimWorld& world, std::span<const std::string> algorithms, ColorMode mode,
                         OverlayRequest request, const Camera& camera, const ScreenRect& area,
                         glm::vec2 screen, glm::ivec2 framebuffer, std::span<const Instance> bodies,
                         Renderer& renderer, const DrawWorld& draw_world,
                         const std::string& run_once, std::vector<std::string>& notes) {
    ImDrawList& draw = *ImGui::GetBackgroundDrawList();
    // GL works in framebuffer pixels (y up), the panes in window points (y down).
    const glm::vec2 scale = glm::vec2(framebuffer) / glm::max(screen, glm::vec2(1.0f));
    const std::vector<ScreenRect> panes = compare_panes(area, algorithms.size());
    notes.assign(panes.size(), std::string());
    layout_.clear();
    std::vector<CostScale> scales;  // this frame's, for the next frame's common scale
    double algorithms_ms = 0.0;
    for (std::size_t i = 0; i < panes.size(); ++i) {
        const ScreenRect& pane = panes[i];
        const glm::vec2 size = pane.size();
        request.view = camera.visible(world.bounds(), size);
        bodies_.assign(bodies.begin(), bodies.end());
        overlays_.clear();
        const auto started = std::chrono::steady_clock::now();
        const std::optional<ComparePaneFacts> facts =
            world.compare_pane(algorithms[i], request, mode, bodies_, overlays_,
                               algorithms[i] == run_once, common_);
        algorithms_ms +=
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                .count();
        if (facts) scales.push_back(facts->costs);
        if (facts && !facts->run.ran) notes[i] = facts->run.note;
        renderer.set_viewport(
            glm::ivec2(glm::round(glm::vec2(pane.min.x, screen.y - pane.max.y) * scale)),
            glm::ivec2(glm::round(size * scale)));
        if (facts) draw_world(size, bodies_, overlays_);

        draw.AddRect(ImVec2(pane.min.x, pane.min.y), ImVec2(pane.max.x, pane.max.y), kPaneBorder);
        // A narrow pane cuts its stats line rather than write over its neighbour.
        draw.PushClipRect(ImVec2(pane.min.x, pane.min.y), ImVec2(pane.max.x, pane.max.y), true);
        const std::string line =
            stats_text(algorithms[i], facts, world.dim(), mode == ColorMode::kCost);
        const ImVec2 text_size = ImGui::CalcTextSize(line.c_str());
        const ImVec2 at(pane.min.x + 8, pane.min.y + 6);
        draw.AddRectFilled(ImVec2(at.x - 4, at.y - 2),
                           ImVec2(at.x + text_size.x + 4, at.y + text_size.y + 2), kStatsBackdrop,
                           3.0f);
        draw.AddText(at, kStatsText, line.c_str());
        draw.PopClipRect();
        layout_.push_back({pane, {}});
        if (facts && facts->run.ran && mode == ColorMode::kCost)
            layout_.back().legend = draw_cost_legend(draw, facts->shown, algorithms[i], pane);
    }
    // One scale for every pane (a frame late, which nobody sees): with a scale each, brute
    // force, whose bodies all take n - 1 tests, showed its whole world at the cold end.
    common_ = mode == ColorMode::kCost ? common_scale(scales) : CostScale{};
    renderer.set_viewport({0, 0}, {0, 0});
    return algorithms_ms;
}

}  // namespace collidoscope
