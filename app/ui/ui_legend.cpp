// The legend in the view: what each colour of the overlays now shown means, in a small
// window at the world view's bottom-left corner. One source of truth: the algorithm's own
// entries come from its BroadPhaseView::legend(), the app's from palette.hpp, the density
// tint from collide::tint_color, so the swatches are the colours drawn.
#include <optional>
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

// Every colour the view now shows, with what it means.
std::vector<LegendEntry> legend_entries(const Demo& demo) {
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
        for (LegendEntry& e : demo.world().structure_key().legend) {
            const bool shown = e.when == LegendEntry::When::kStructure   ? flags.structure
                               : e.when == LegendEntry::When::kSelection ? selecting
                                                                         : querying;
            if (shown) entries.push_back(std::move(e));
        }
    }
    const WorldCounts counts = demo.world().counts();
    if (counts.fixed > 0) entries.push_back(LegendEntry::area(kStaticColor, "static body"));
    if (counts.sleeping > 0) {
        entries.push_back(LegendEntry::area(dimmed(collide::ramp_color(0.0f)),
                                            "asleep: dimmed until something awake touches it"));
    }
    if (selecting) entries.push_back({kSelectionColor, "selected body"});
    if (querying) {
        entries.push_back({kQueryRegionColor, "query region", LegendEntry::Kind::kLine,
                           LegendEntry::When::kQuery});
        entries.push_back({kQueryHitColor, "bodies the query found"});
    }
    return entries;
}

// The legend's rows, the density tint's scale and the level-of-detail notes.
void legend_body(const Demo& demo, const OverlayReport& report,
                 const std::vector<LegendEntry>& entries) {
    const ViewOptions& view = demo.view();
    const bool selecting = demo.selected() != collide::kNoBody;
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
}

// A window position and the corner of the window it pins.
struct Spot {
    ImVec2 pos;
    ImVec2 pivot;
};

// A corner of `area` whose strip beside `bodies` holds a window of `size`: the bottom-left
// (left of the bodies, or under them), the bottom-right, then the top-left. None when the
// bodies leave no such strip.
std::optional<Spot> free_spot(const ScreenRect& area, const ScreenRect& bodies, glm::vec2 size) {
    const float m = kPanelMargin;
    const ScreenRect inner{area.min + m, area.max - m};
    const bool apart = bodies.max.x <= inner.min.x || bodies.min.x >= inner.max.x ||
                       bodies.max.y <= inner.min.y || bodies.min.y >= inner.max.y;
    const bool tall_enough = size.y <= inner.size().y, wide_enough = size.x <= inner.size().x;
    const Spot bottom_left{{inner.min.x, inner.max.y}, {0.0f, 1.0f}};
    if (!tall_enough || !wide_enough) return std::nullopt;
    if (apart || size.x <= bodies.min.x - m - inner.min.x) return bottom_left;
    if (size.y <= inner.max.y - (bodies.max.y + m)) return bottom_left;
    if (size.x <= inner.max.x - (bodies.max.x + m)) return Spot{{inner.max.x, inner.max.y}, {1, 1}};
    if (size.y <= (bodies.min.y - m) - inner.min.y) return Spot{{inner.min.x, inner.min.y}, {0, 0}};
    return std::nullopt;
}

constexpr ImGuiWindowFlags kOverlayWindow =
    ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
    ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoSavedSettings;

ScreenRect window_rect() {
    const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    return {{pos.x, pos.y}, {pos.x + size.x, pos.y + size.y}};
}

}  // namespace

ScreenRect legend_window(const Demo& demo, const OverlayReport& report, const ScreenRect& area,
                         const ScreenRect& bodies, LegendState& state, ScreenRect& toggle) {
    toggle = {};
    const std::vector<LegendEntry> entries = legend_entries(demo);
    if (!demo.view().legend || (entries.empty() && report.tint_max <= 0.0f)) return {};

    // Its size is known once frames with the same rows and notes have drawn it; a new shape
    // (an overlay turned on, the density tint appearing) is measured off screen first, so the
    // legend never lands on the bodies for a frame with a stale size.
    const ViewOptions& view = demo.view();
    const std::uint32_t shape = static_cast<std::uint32_t>(entries.size()) << 8 |
                                (report.tint_max > 0.0f) << 4 | !report.lod_note.empty() << 2 |
                                view.lens << 1 | (view.slab && demo.dim() == 3);
    // ImGui sizes an auto-resized window from its previous frame's content: two frames.
    state.frames_measured = state.shape == shape ? state.frames_measured + 1 : 0;
    state.shape = shape;
    const bool measured = state.frames_measured >= 2;

    // Whole, where it covers no body; else the one-line button, in a free corner if there
    // is one; opened, the whole legend over the bodies with the button above it.
    const std::optional<Spot> whole_spot =
        measured ? free_spot(area, bodies, state.full_size) : std::nullopt;
    const bool whole_outside = whole_spot.has_value();
    const Spot corner{{area.min.x + kPanelMargin, area.max.y - kPanelMargin}, {0.0f, 1.0f}};
    ScreenRect shown;
    if (!whole_outside) {
        const std::size_t colours = entries.size() + (report.tint_max > 0.0f ? 1 : 0);
        const std::string label =
            (state.opened ? std::string("Legend: close")
                          : "Legend (" + std::to_string(colours) + " colours): open") +
            "###legend_toggle";
        const glm::vec2 button_size{ImGui::CalcTextSize(label.c_str(), nullptr, true).x +
                                        4 * ImGui::GetStyle().FramePadding.x,
                                    ImGui::GetFrameHeightWithSpacing()};
        const Spot spot =
            state.opened ? corner : free_spot(area, bodies, button_size).value_or(corner);
        ImGui::SetNextWindowPos(spot.pos, ImGuiCond_Always, spot.pivot);
        ImGui::SetNextWindowBgAlpha(0.75f);
        ImGui::Begin("##legend_header", nullptr, kOverlayWindow);
        if (ImGui::SmallButton(label.c_str())) state.opened = !state.opened;
        if (!state.opened && ImGui::IsItemHovered()) {  // a look without opening it
            ImGui::BeginTooltip();
            legend_body(demo, report, entries);
            ImGui::EndTooltip();
        }
        toggle = {{ImGui::GetItemRectMin().x, ImGui::GetItemRectMin().y},
                  {ImGui::GetItemRectMax().x, ImGui::GetItemRectMax().y}};
        shown = window_rect();
        ImGui::End();
    }
    // The whole legend is drawn every frame, off screen when closed, so its size is known
    // for the next frame's choice.
    const bool visible = whole_outside || (state.opened && measured);
    Spot spot = whole_spot.value_or(corner);
    if (!whole_outside) spot.pos.y = shown.min.y - (visible ? 2.0f : 0.0f);  // above the button
    ImGui::SetNextWindowPos(visible ? spot.pos : ImVec2(-10000.0f, -10000.0f), ImGuiCond_Always,
                            spot.pivot);
    ImGui::SetNextWindowBgAlpha(0.75f);
    ImGui::Begin("##legend", nullptr, kOverlayWindow | ImGuiWindowFlags_NoInputs);
    legend_body(demo, report, entries);
    const ScreenRect whole = window_rect();
    ImGui::End();
    state.full_size = whole.size();
    if (!visible) return shown;
    return shown.size().x > 0
               ? ScreenRect{glm::min(whole.min, shown.min), glm::max(whole.max, shown.max)}
               : whole;
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
            "Structure, boxes and pairs only within a slab across one axis, around the "
            "selected body or at the position set here; the structure fades towards the "
            "slab's faces");
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
