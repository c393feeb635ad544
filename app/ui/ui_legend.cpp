// The legend in the view: what each colour of the overlays now shown means, in a small
// window at the world view's bottom-left corner. One source of truth: the algorithm's own
// entries come from its BroadPhaseView::legend(), the app's from palette.hpp, the density
// tint from collide::tint_color, so the swatches are the colours drawn.
#include <string>
#include <vector>

#include <imgui.h>

#include "common/palette.hpp"
#include "ui/ui.hpp"

namespace collidoscope {
namespace {

using collide::LegendEntry;

constexpr float kSwatchWidth = 30.0f;
constexpr float kWrapWidth = 300.0f;
constexpr int kRampSteps = 8;

// A ramp of `color(t)` for t from 0 to 1 across the rectangle.
template <typename Fn>
void ramp(ImDrawList* draw, ImVec2 lo, ImVec2 hi, const Fn& color) {
    const float step = (hi.x - lo.x) / kRampSteps;
    for (int i = 0; i < kRampSteps; ++i) {
        const float x = lo.x + step * static_cast<float>(i);
        draw->AddRectFilled({x, lo.y}, {x + step + 0.5f, hi.y},
                            to_abgr(color((static_cast<float>(i) + 0.5f) / kRampSteps)));
    }
}

// One legend row: the swatch as the view draws it (a line, a filled area or a ramp), then
// the label, wrapped.
void row(const LegendEntry& e, const char* prefix = "") {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float h = ImGui::GetTextLineHeight();
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const ImVec2 lo{at.x, at.y + 0.2f * h}, hi{at.x + kSwatchWidth, at.y + 0.8f * h};
    draw->AddRectFilled(lo, hi, IM_COL32(20, 22, 28, 255));  // the view's background
    switch (e.kind) {
        case LegendEntry::Kind::kLine:
            draw->AddLine({lo.x + 2, at.y + 0.5f * h}, {hi.x - 2, at.y + 0.5f * h},
                          to_abgr(e.color), 2.0f);
            break;
        case LegendEntry::Kind::kFill: draw->AddRectFilled(lo, hi, to_abgr(e.color)); break;
        case LegendEntry::Kind::kRamp:
            ramp(draw, lo, hi, [](float t) { return collide::ramp_color(t); });
            break;
    }
    ImGui::Dummy({kSwatchWidth, h});
    ImGui::SameLine();
    ImGui::Text("%s%s", prefix, e.label.c_str());
}

}  // namespace

ScreenRect legend_window(const Demo& demo, const OverlayReport& report, const ScreenRect& area) {
    const ViewOptions& view = demo.view();
    const collide::OverlayFlags& flags = view.overlays;
    const bool selecting = demo.selected() != collide::kNoBody;
    const bool querying = demo.query().has_value();
    std::vector<LegendEntry> entries;
    if (flags.aabbs) entries.push_back({kBoxColor, "body boxes (AABBs)"});
    if (flags.pairs) {
        entries.push_back({kPairColor, "pair: the boxes overlap (broad phase)"});
        entries.push_back({kContactColor, "contact: the bodies touch (narrow phase)"});
    }
    if (flags.structure || querying) {
        for (LegendEntry& e : demo.world().broad_phase_legend()) {
            const bool shown = e.when == LegendEntry::When::kStructure   ? flags.structure
                               : e.when == LegendEntry::When::kSelection ? selecting
                                                                         : querying;
            if (shown) entries.push_back(std::move(e));
        }
    }
    if (selecting) entries.push_back({kSelectionColor, "selected body"});
    if (querying) {
        entries.push_back({kQueryRegionColor, "query region", LegendEntry::Kind::kLine,
                           LegendEntry::When::kQuery});
        entries.push_back({kQueryHitColor, "bodies the query found"});
    }
    if (!view.legend || (entries.empty() && report.tint_max <= 0.0f)) return {};

    ImGui::SetNextWindowPos({area.min.x + kPanelMargin, area.max.y - kPanelMargin},
                            ImGuiCond_Always, {0.0f, 1.0f});
    ImGui::SetNextWindowBgAlpha(0.75f);
    ImGui::Begin("##legend", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoFocusOnAppearing |
                     ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoSavedSettings);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + kWrapWidth);
    for (const LegendEntry& e : entries) {
        row(e,
            e.when == LegendEntry::When::kQuery && e.color != kQueryRegionColor ? "query: " : "");
    }
    if (report.tint_max > 0.0f) {
        // The tint's scale: its colours from collide::tint_color, ends labelled.
        const float h = ImGui::GetTextLineHeight();
        const ImVec2 at = ImGui::GetCursorScreenPos();
        ImDrawList* draw = ImGui::GetWindowDrawList();
        draw->AddRectFilled({at.x, at.y + 0.2f * h}, {at.x + kSwatchWidth, at.y + 0.8f * h},
                            IM_COL32(20, 22, 28, 255));
        ramp(draw, {at.x, at.y + 0.2f * h}, {at.x + kSwatchWidth, at.y + 0.8f * h},
             [](float t) { return collide::tint_color(t); });
        ImGui::Dummy({kSwatchWidth, h});
        ImGui::SameLine();
        ImGui::Text("density tint (cells under %.0f px merged): 0 to %.0f held per tint cell",
                    double(collide::kLodTintPx), double(report.tint_max));
    }
    if (!report.lod_note.empty() || view.lens || (view.slab && demo.dim() == 3)) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        if (!report.lod_note.empty()) ImGui::TextUnformatted(report.lod_note.c_str());
        if (view.lens) {
            ImGui::TextUnformatted(selecting || demo.dim() == 2
                                       ? "lens: full detail around the selection (or cursor)"
                                       : "lens: select a body to focus");
        }
        if (view.slab && demo.dim() == 3) {
            ImGui::Text("slab: structure within %.0f%% of the world on %c", 100.0 * view.slab_width,
                        "xyz"[view.slab_axis]);
        }
        ImGui::PopStyleColor();
    }
    ImGui::PopTextWrapPos();
    const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    ImGui::End();
    return {{pos.x, pos.y}, {pos.x + size.x, pos.y + size.y}};
}

void lod_controls(Demo& demo) {
    ViewOptions& view = demo.view();
    ImGui::Checkbox("Legend in the view", &view.legend);
    ImGui::Checkbox("Focus lens", &view.lens);
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(
            "Full structure detail around the selected body (2D: or the cursor), "
            "faded context elsewhere");
    }
    if (demo.dim() != 3) return;
    ImGui::Checkbox("Slab", &view.slab);
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(
            "Structure only within a slab across one axis, around the selected "
            "body or at the position set here; it fades towards the slab's faces");
    }
    if (!view.slab) return;
    for (int k = 0; k < 3; ++k) {
        if (k > 0) ImGui::SameLine();
        ImGui::RadioButton(k == 0 ? "x" : k == 1 ? "y" : "z", &view.slab_axis, k);
    }
    if (demo.selected() == collide::kNoBody) {
        ImGui::SliderFloat("slab at", &view.slab_at, 0.0f, 1.0f, "%.2f",
                           ImGuiSliderFlags_AlwaysClamp);
    } else {
        ImGui::TextDisabled("  the slab follows the selection");
    }
    ImGui::SliderFloat("slab width", &view.slab_width, 0.02f, 1.0f, "%.2f",
                       ImGuiSliderFlags_AlwaysClamp);
}

}  // namespace collidoscope
