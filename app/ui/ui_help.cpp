// The keys and mouse window (F1 or ?), printed from the bindings table that input
// dispatches through, and the prompt Esc opens before the app quits.
#include <imgui.h>

#include <algorithm>

#include "cli/controls.hpp"
#include "ui/ui.hpp"

namespace collidoscope {

namespace {

// Centred on the screen, in front of the panels.
void centre_next_window(glm::vec2 screen) {
    ImGui::SetNextWindowPos(ImVec2(0.5f * screen.x, 0.5f * screen.y), ImGuiCond_Always,
                            ImVec2(0.5f, 0.5f));
}

}  // namespace

void help_window(Dialogs& dialogs, glm::vec2 screen) {
    if (!dialogs.help) return;
    centre_next_window(screen);
    // As wide as the text needs at this UI scale, and never taller or wider than the window
    // (it scrolls then).
    const float scale = ImGui::GetIO().FontGlobalScale;
    const glm::vec2 room = screen - 2.0f * kPanelMargin;
    ImGui::SetNextWindowSizeConstraints(ImVec2(0.0f, 0.0f), ImVec2(room.x, room.y));
    ImGui::SetNextWindowSize(ImVec2(std::min(640.0f * scale, room.x), 0.0f), ImGuiCond_Always);
    ImGui::Begin("Keys and mouse", &dialogs.help,
                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                     ImGuiWindowFlags_NoSavedSettings);
    if (ImGui::BeginTable("bindings", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
        ImGui::TableSetupColumn("keys", ImGuiTableColumnFlags_WidthFixed, 150.0f * scale);
        ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthStretch);
        for (const Binding& b : bindings()) {
            if (b.keys == nullptr) continue;  // a second key, named in the row above
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(b.keys);
            ImGui::TableNextColumn();
            ImGui::TextWrapped("%s", b.what);
        }
        ImGui::EndTable();
    }
    ImGui::TextDisabled(
        "Mouse and keys go to a panel while it wants them. F1, ? or Esc closes "
        "this window.");
    ImGui::End();
}

bool quit_prompt(Dialogs& dialogs, glm::vec2 screen) {
    if (!dialogs.quit_prompt) return false;
    centre_next_window(screen);
    ImGui::Begin("Quit?", nullptr,
                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                     ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings);
    ImGui::TextUnformatted("Quit Collidoscope?");
    ImGui::TextDisabled("Enter quits; Esc or any other key stays.");
    const bool quit = ImGui::Button("Quit (Enter)");
    ImGui::SameLine();
    if (ImGui::Button("Stay (Esc)")) dialogs.quit_prompt = false;
    ImGui::End();
    return quit;
}

}  // namespace collidoscope
