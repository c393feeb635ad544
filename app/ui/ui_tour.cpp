// The Tour section of the left panel: the presets (presets.hpp) in a list that loads one
// live, Back and Next to walk the tour in order, and the current preset's paragraph.
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <iterator>
#include <string>

#include "cli/presets.hpp"
#include "ui/ui.hpp"

namespace collidoscope {

void Ui::tour_section(UiActions& actions) {
    const std::span<const Preset> all = presets();
    const Preset* current = find_preset(preset_);
    const auto index = current ? static_cast<std::size_t>(current - all.data()) : all.size();
    ImGui::SetNextItemWidth(-1.0f);  // the section names the list
    // The list opens as wide as its longest title, which the panel's width would cut; the
    // closed box shows the stop's short name, its title is written out below.
    float widest = 0.0f;
    for (const Preset& p : all) widest = std::max(widest, ImGui::CalcTextSize(p.title.data()).x);
    ImGui::SetNextWindowSizeConstraints(
        ImVec2(widest + 2.0f * ImGui::GetStyle().WindowPadding.x + ImGui::GetStyle().ScrollbarSize,
               0),
        ImVec2(FLT_MAX, FLT_MAX));
    const std::string preview = current
                                    ? std::to_string(index + 1) + ". " + std::string(current->name)
                                    : std::string("(choose a stop)");
    if (ImGui::BeginCombo("##preset", preview.c_str())) {
        for (const Preset& p : all) {
            if (ImGui::Selectable(p.title.data(), &p == current)) actions.preset = p.name;
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("--preset %s", p.name.data());
        }
        ImGui::EndCombo();
    }
    note_widget("tour_combo");
    // Whether the closed box shows its text whole (the real-input tests read it).
    const ImGuiStyle& style = ImGui::GetStyle();
    tour_preview_fits_ = ImGui::CalcTextSize(preview.c_str()).x + 2.0f * style.FramePadding.x +
                             ImGui::GetFrameHeight() <=
                         ImGui::GetItemRectSize().x;
    // Walks the tour in order; from no preset, Next starts it.
    ImGui::BeginDisabled(index == 0 || index == all.size());
    if (ImGui::SmallButton("< Back")) actions.preset = all[index - 1].name;
    note_widget("tour_back");
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(index + 1 >= all.size() && index != all.size());
    if (ImGui::SmallButton("Next >"))
        actions.preset = all[index == all.size() ? 0 : index + 1].name;
    note_widget("tour_next");
    ImGui::EndDisabled();
    if (current) {
        ImGui::SameLine();
        ImGui::TextDisabled("%zu of %zu", index + 1, all.size());
        // The paragraph describes the stop's world: once that changed (another dimension,
        // scene or algorithm), it would describe what is no longer there.
        if (preset_shown_) {
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextUnformatted(current->title.data());
            ImGui::PopTextWrapPos();
            ImGui::TextWrapped("%s", current->paragraph.data());
        } else {
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextDisabled("(the world changed since this stop: Back and Next go on from it)");
            ImGui::PopTextWrapPos();
        }
    }
}

}  // namespace collidoscope
