// The race window, under the stats panel: every algorithm's time on the same frame as a bar,
// the fastest in green, any whose pairs differ from the reference in red; the rows scroll
// and sort by time (fastest first) or by name.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

#include "ui/ui.hpp"

namespace collidoscope {

namespace {

const ImVec4 kFastest{0.35f, 0.80f, 0.40f, 1.0f};
const ImVec4 kOthers{0.35f, 0.55f, 0.85f, 1.0f};
const ImVec4 kDiffers{0.95f, 0.30f, 0.30f, 1.0f};

// Returns the height the window needs to show every row.
float race_section(Demo& demo);

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

float race_window(Demo& demo, const ScreenRect& at, bool& open) {
    place_next_window(at);
    // Collapsed until asked for, since a race runs every algorithm.
    ImGui::SetNextWindowCollapsed(!(open || demo.race_live()), ImGuiCond_Once);
    open = ImGui::Begin("Race", nullptr,
                        ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                            ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    toggle_on_title_click(open);
    float wanted = ImGui::GetFrameHeight();
    if (open) wanted = race_section(demo);
    ImGui::End();
    return wanted;
}

namespace {

// The rows in the order the table's sort asks for: by name, or by time with the races that
// did not run last.
std::vector<std::size_t> sorted_rows(const RaceReport& race) {
    std::vector<std::size_t> order(race.entries.size());
    std::iota(order.begin(), order.end(), 0);
    const ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs();
    if (specs == nullptr || specs->SpecsCount == 0) return order;
    const ImGuiTableColumnSortSpecs& spec = specs->Specs[0];
    const bool ascending = spec.SortDirection != ImGuiSortDirection_Descending;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const RaceEntry& x = race.entries[a];
        const RaceEntry& y = race.entries[b];
        if (spec.ColumnIndex == 0) return ascending ? x.name < y.name : y.name < x.name;
        if (x.ran != y.ran) return x.ran;
        return ascending ? x.ms < y.ms : y.ms < x.ms;
    });
    return order;
}

void race_row(const RaceEntry& e, const RaceReport& race, double fastest, double slowest) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(e.name.c_str());
    if (ImGui::IsItemHovered() && !e.note.empty()) ImGui::SetTooltip("%s", e.note.c_str());
    // An order of draws can hide the reference; say which row it is.
    if (e.name == race.reference) {
        ImGui::SameLine(0.0f, 2.0f);
        ImGui::TextDisabled("*");
    }
    ImGui::TableNextColumn();
    if (!e.ran) {
        ImGui::TextDisabled("-");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", e.note.c_str());
        return;
    }
    char text[64];
    if (e.differs) {
        std::snprintf(text, sizeof text, "%.3f  DIFFERS", e.ms);
    } else {
        std::snprintf(text, sizeof text, "%.3f  x%.1f", e.ms, fastest > 0 ? e.ms / fastest : 1.0);
    }
    const ImVec4 color = e.differs ? kDiffers : e.ms == fastest ? kFastest : kOthers;
    ImGui::PushStyleColor(ImGuiCol_PlotHistogram, color);
    ImGui::ProgressBar(slowest > 0 ? static_cast<float>(e.ms / slowest) : 0.0f,
                       ImVec2(-FLT_MIN, ImGui::GetTextLineHeight()), text);
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("%s pairs, %s candidate tests%s%s", format_count(e.pairs).c_str(),
                          format_count(e.tests).c_str(), e.differs ? "\n" : "",
                          e.differs ? e.note.c_str() : "");
    }
}

float race_section(Demo& demo) {
    const ImGuiStyle& style = ImGui::GetStyle();
    if (ImGui::SmallButton("Run once")) demo.request_race();
    ImGui::SameLine();
    bool live = demo.race_live();
    if (ImGui::Checkbox("Live", &live)) demo.set_race_live(live);
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(
            "Every algorithm on this frame's boxes, each keeping its own "
            "structure between races. Live: after every step, leaving out any "
            "algorithm slower than %.0f ms last time. Click a column's title "
            "to sort by it.",
            kRaceLiveCutoffMs);
    }
    const RaceReport& race = demo.race();
    if (race.entries.empty()) {
        ImGui::TextDisabled("No race run yet");
        return wanted_height();
    }
    double slowest = 0, fastest = 0;
    for (const RaceEntry& e : race.entries) {
        if (!e.ran) continue;
        slowest = std::max(slowest, e.ms);
        if (fastest == 0 || e.ms < fastest) fastest = e.ms;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, style.Colors[ImGuiCol_TextDisabled]);
    ImGui::TextWrapped("%s bodies, step %llu; pairs checked against %s",
                       format_count(race.bodies).c_str(),
                       static_cast<unsigned long long>(race.step), race.reference.c_str());
    ImGui::PopStyleColor();
    // The rows scroll under a fixed header; the window asks for room for all of them.
    const float row = ImGui::GetTextLineHeight() + 2.0f * style.CellPadding.y;
    const float wanted = ImGui::GetCursorPosY() +
                         static_cast<float>(race.entries.size() + 1) * row + style.WindowPadding.y;
    const ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_ScrollY |
                                  ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
    if (ImGui::BeginTable("race", 2, flags, ImVec2(0.0f, ImGui::GetContentRegionAvail().y))) {
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn("algorithm", ImGuiTableColumnFlags_WidthFixed);
        ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_DefaultSort |
                                          ImGuiTableColumnFlags_PreferSortAscending |
                                          ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableHeadersRow();
        for (std::size_t i : sorted_rows(race)) race_row(race.entries[i], race, fastest, slowest);
        ImGui::EndTable();
    }
    return wanted;
}

}  // namespace

}  // namespace collidoscope
