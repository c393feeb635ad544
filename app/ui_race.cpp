// The race window, under the stats panel: every algorithm's time on the same frame as a bar,
// the fastest in green, any whose pairs differ from the reference in red.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "ui.hpp"

namespace collidoscope {

namespace {

const ImVec4 kFastest{0.35f, 0.80f, 0.40f, 1.0f};
const ImVec4 kOthers{0.35f, 0.55f, 0.85f, 1.0f};
const ImVec4 kDiffers{0.95f, 0.30f, 0.30f, 1.0f};

void race_section(Demo& demo);

// A single click on the title (beside its arrow, which ImGui handles) opens or closes the
// window; ImGui alone wants a double click there. Call right after Begin.
void toggle_on_title_click(bool open) {
    if (!ImGui::IsWindowHovered() || !ImGui::IsMouseClicked(ImGuiMouseButton_Left) ||
        ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
        return;
    }
    const ImVec2 mouse = ImGui::GetMousePos();
    const ImVec2 at = ImGui::GetWindowPos();
    const float title = ImGui::GetFrameHeight();
    if (mouse.y < at.y + title && mouse.x > at.x + title) ImGui::SetWindowCollapsed(open);
}

}  // namespace

void race_window(Demo& demo, const UiFrame& frame, float top, float bottom, bool& open) {
    ImGui::SetNextWindowPos(ImVec2(frame.screen.x - kPanelMargin, top), ImGuiCond_Always,
                            ImVec2(1.0f, 0.0f));
    // As tall as the rows need, down to `bottom` (then it scrolls).
    const float room = std::max(bottom - top - kPanelMargin, kRaceMinHeight);
    ImGui::SetNextWindowSizeConstraints(ImVec2(kRightPanelWidth, 0.0f),
                                        ImVec2(kRightPanelWidth, room));
    // Collapsed until asked for, since a race runs every algorithm.
    ImGui::SetNextWindowCollapsed(!(open || demo.race_live()), ImGuiCond_Once);
    open = ImGui::Begin(
        "Race", nullptr,
        ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_AlwaysAutoResize);
    toggle_on_title_click(open);
    if (!open) {
        ImGui::End();
        return;
    }
    race_section(demo);
    ImGui::End();
}

namespace {

void race_section(Demo& demo) {
    if (ImGui::SmallButton("Run once")) demo.request_race();
    ImGui::SameLine();
    bool live = demo.race_live();
    if (ImGui::Checkbox("Live", &live)) demo.set_race_live(live);
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("Every algorithm on this frame's boxes, each keeping its own "
                          "structure between races. Live: after every step, leaving out any "
                          "algorithm slower than %.0f ms last time.",
                          kRaceLiveCutoffMs);
    }
    const RaceReport& race = demo.race();
    if (race.entries.empty()) {
        ImGui::TextDisabled("No race run yet");
        return;
    }
    double slowest = 0, fastest = 0;
    for (const RaceEntry& e : race.entries) {
        if (!e.ran) continue;
        slowest = std::max(slowest, e.ms);
        if (fastest == 0 || e.ms < fastest) fastest = e.ms;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextWrapped("%s bodies, step %llu; pairs checked against %s",
                       format_count(race.bodies).c_str(),
                       static_cast<unsigned long long>(race.step), race.reference.c_str());
    ImGui::PopStyleColor();
    float label_width = 0;
    for (const RaceEntry& e : race.entries)
        label_width = std::max(label_width, ImGui::CalcTextSize(e.name.c_str()).x);
    label_width += ImGui::GetStyle().ItemSpacing.x * 2;
    for (const RaceEntry& e : race.entries) {
        ImGui::TextUnformatted(e.name.c_str());
        if (ImGui::IsItemHovered() && !e.note.empty()) ImGui::SetTooltip("%s", e.note.c_str());
        // An order of draws can hide the reference; say which row it is.
        if (e.name == race.reference) {
            ImGui::SameLine(0.0f, 2.0f);
            ImGui::TextDisabled("*");
        }
        ImGui::SameLine(label_width);
        if (!e.ran) {
            ImGui::TextDisabled("-");
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", e.note.c_str());
            continue;
        }
        char text[64];
        if (e.differs) {
            std::snprintf(text, sizeof text, "%.3f ms  DIFFERS", e.ms);
        } else {
            std::snprintf(text, sizeof text, "%.3f ms  x%.1f", e.ms,
                          fastest > 0 ? e.ms / fastest : 1.0);
        }
        const ImVec4 color = e.differs ? kDiffers : e.ms == fastest ? kFastest : kOthers;
        ImGui::PushStyleColor(ImGuiCol_PlotHistogram, color);
        ImGui::ProgressBar(slowest > 0 ? static_cast<float>(e.ms / slowest) : 0.0f,
                           ImVec2(-1.0f, ImGui::GetTextLineHeight()), text);
        ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip("%s pairs, %s candidate tests%s%s", format_count(e.pairs).c_str(),
                              format_count(e.tests).c_str(), e.differs ? "\n" : "",
                              e.differs ? e.note.c_str() : "");
        }
    }
}

}  // namespace

}  // namespace collidoscope
