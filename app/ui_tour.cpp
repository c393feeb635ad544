// The Tour section of the left panel: the presets (presets.hpp) in a list that loads one
// live, Back and Next to walk the tour in order, and the current preset's paragraph.
#include <imgui.h>

#include <algorithm>
#include <iterator>

#include "presets.hpp"
#include "ui.hpp"

namespace collidoscope {

void Ui::tour_section(UiActions& actions) {
    const std::span<const Preset> all = presets();
    const Preset* current = find_preset(preset_);
    const auto index = current ? static_cast<std::size_t>(current - all.data()) : all.size();
    ImGui::SetNextItemWidth(-1.0f);  // the titles are long; the section names the list
    if (ImGui::BeginCombo("##preset", current ? current->title.data() : "(choose a stop)")) {
        for (const Preset& p : all) {
            if (ImGui::Selectable(p.title.data(), &p == current)) actions.preset = p.name;
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("--preset %s", p.name.data());
        }
        ImGui::EndCombo();
    }
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
            ImGui::TextWrapped("%s", current->paragraph.data());
        } else {
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextDisabled("(the world changed since this stop: Back and Next go on from it)");
            ImGui::PopTextWrapPos();
        }
    }
}

}  // namespace collidoscope
