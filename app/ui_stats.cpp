// The stats panel: frame rate, the time of each phase with a rolling plot, and what the
// broad phase did this frame.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "ui.hpp"

namespace collidoscope {

std::string format_bytes(std::size_t bytes) {
    char text[32];
    const double b = static_cast<double>(bytes);
    if (bytes < 1024) {
        std::snprintf(text, sizeof text, "%zu B", bytes);
    } else if (b < 1024.0 * 1024.0) {
        std::snprintf(text, sizeof text, "%.1f KiB", b / 1024.0);
    } else if (b < 1024.0 * 1024.0 * 1024.0) {
        std::snprintf(text, sizeof text, "%.1f MiB", b / (1024.0 * 1024.0));
    } else {
        std::snprintf(text, sizeof text, "%.2f GiB", b / (1024.0 * 1024.0 * 1024.0));
    }
    return text;
}

std::string format_count(std::uint64_t n) {
    std::string digits = std::to_string(n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

void table_row(const char* name, const std::string& value) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(name);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(value.c_str());
}

float stats_panel(Demo& demo, const UiFrame& frame, float bottom, bool& race_open) {
    const FrameStats& stats = frame.stats;
    ImGui::SetNextWindowPos(ImVec2(frame.screen.x - kPanelMargin, kPanelMargin), ImGuiCond_Always,
                            ImVec2(1.0f, 0.0f));
    ImGui::SetNextWindowSize(ImVec2(kRightPanelWidth, 0.0f), ImGuiCond_Always);
    ImGui::Begin("Stats", nullptr, ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove);

    ImGui::Text("%.1f fps  (%.2f ms a frame)%s", stats.fps(), stats.frame_ms().latest(),
                demo.paused() ? "  paused" : "");
    // One plot per phase with the current value written over it. Each has its own scale
    // (the recent maximum), since the phases differ by orders of magnitude.
    const float width = ImGui::GetContentRegionAvail().x;
    for (std::size_t i = 0; i < kPhaseCount; ++i) {
        const History& h = stats.phase(Phase(i));
        const float top = std::max(h.max() * 1.15f, 0.01f);
        char overlay[80];
        std::snprintf(overlay, sizeof overlay, "%s  %.3f ms  (max %.3f)", phase_name(Phase(i)),
                      h.latest(), h.max());
        ImGui::PushID(static_cast<int>(i));
        ImGui::PlotLines("##phase", h.data(), h.size(), h.offset(), overlay, 0.0f, top,
                         ImVec2(width, 34.0f));
        ImGui::PopID();
    }

    const SimWorld& world = demo.world();
    const collide::BroadPhaseStats bp = world.broad_phase_stats();
    const FrameFacts& last = stats.last();
    if (ImGui::BeginTable("stats", 2, ImGuiTableFlags_SizingStretchProp)) {
        table_row("Algorithm", demo.broad_phase());
        table_row("Bodies", format_count(world.body_count()));
        table_row("Pairs", format_count(world.pair_count()));
        table_row("Contacts", format_count(world.contact_count()));
        table_row("Candidate tests", format_count(bp.candidate_tests));
        char efficiency[32] = "-";
        if (bp.candidate_tests > 0) {
            std::snprintf(efficiency, sizeof efficiency, "%.2f %%",
                          100.0 * static_cast<double>(world.pair_count()) /
                              static_cast<double>(bp.candidate_tests));
        }
        table_row("Efficiency", efficiency);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextDisabled("  (pairs / tests)");
        table_row("Structure memory", format_bytes(bp.structure_bytes));
        table_row("Draw calls", std::to_string(last.draw_calls));
        ImGui::EndTable();
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextWrapped("%s", frame.gl_description.c_str());
    ImGui::PopStyleColor();
    const float window_bottom = ImGui::GetWindowPos().y + ImGui::GetWindowHeight();
    ImGui::End();
    race_window(demo, frame, window_bottom + kPanelMargin, bottom, race_open);
    return window_bottom;
}

}  // namespace collidoscope
