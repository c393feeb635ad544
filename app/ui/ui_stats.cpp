// The stats panel: frame rate, where the frame's time went (parts that add up to it, the
// step's phases, the GPU alongside), and what the broad phase did this frame.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <utility>

#include "collide/gpu/compute_context.hpp"
#include "common/threads.hpp"
#include "ui/ui.hpp"

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

// A label drawn where `cut` learns whether it had the room.
void label(const char* text, std::vector<std::string>* cut) {
    if (cut && ImGui::CalcTextSize(text).x > ImGui::GetContentRegionAvail().x + 0.5f)
        cut->push_back(text);
    ImGui::TextUnformatted(text);
}

void table_row(const char* name, const std::string& value, std::vector<std::string>* cut) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    label(name, cut);
    ImGui::TableNextColumn();
    // A long value (an algorithm's name at a large UI scale) wraps rather than being cut.
    ImGui::TextWrapped("%s", value.c_str());
}


namespace {

void wrapped_disabled(const char* text) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextWrapped("%s", text);
    ImGui::PopStyleColor();
}

// One colour per part, for the table's swatches and the bar.
constexpr std::array<ImU32, kPartCount> kPartColors = {
    IM_COL32(90, 170, 255, 255), IM_COL32(240, 200, 80, 255), IM_COL32(200, 120, 240, 255),
    IM_COL32(80, 210, 170, 255), IM_COL32(255, 140, 90, 255), IM_COL32(150, 150, 160, 255),
    IM_COL32(90, 90, 100, 255)};

void swatch_cell(ImU32 color) {
    const float side = ImGui::GetTextLineHeight() * 0.7f;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float dy = 0.5f * (ImGui::GetTextLineHeight() - side);
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(at.x, at.y + dy),
                                              ImVec2(at.x + side, at.y + dy + side), color);
    ImGui::Dummy(ImVec2(side, ImGui::GetTextLineHeight()));
    ImGui::SameLine();
}

// The parts side by side in one bar as wide as the panel, each as long as its share.
void parts_bar(const FrameBreakdown& b) {
    const float width = ImGui::GetContentRegionAvail().x;
    const float height = ImGui::GetTextLineHeight() * 0.6f;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    float x = at.x;
    for (std::size_t i = 0; i < kPartCount && b.frame > 0.0; ++i) {
        const float w = width * static_cast<float>(b.parts[i] / b.frame);
        draw->AddRectFilled(ImVec2(x, at.y), ImVec2(x + w, at.y + height), kPartColors[i]);
        x += w;
    }
    ImGui::Dummy(ImVec2(width, height));
}

// Where the frame's time went: the parts (which add up to it), the step's phases under the
// step, and the GPU's time beside them.
void frame_breakdown(const FrameStats& stats, const std::string& gl_description,
                     std::vector<std::string>& cut) {
    const FrameBreakdown b = stats.breakdown();
    parts_bar(b);
    // The figures fit their text; the names take the rest of the panel. Where the three
    // columns would cut the names (a large UI scale in a small window), the shares are left
    // to the bar above.
    float names = 0.0f;
    for (std::size_t i = 0; i < kPartCount; ++i)
        names = std::max(names, ImGui::CalcTextSize(part_name(Part(i))).x);
    const float swatch = ImGui::GetTextLineHeight() * 0.7f + ImGui::GetStyle().ItemSpacing.x;
    const float cell = ImGui::GetStyle().CellPadding.x * 2.0f;
    const float needed = swatch + names + ImGui::CalcTextSize("00000.000").x +
                         ImGui::CalcTextSize("100.0 %").x + 3.0f * cell;
    const bool shares = needed <= ImGui::GetContentRegionAvail().x;
    if (!ImGui::BeginTable("parts", shares ? 3 : 2, ImGuiTableFlags_None)) return;
    ImGui::TableSetupColumn("part", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthFixed);
    if (shares) ImGui::TableSetupColumn("share", ImGuiTableColumnFlags_WidthFixed);
    for (std::size_t i = 0; i < kPartCount; ++i) {
        const Part part = static_cast<Part>(i);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        swatch_cell(kPartColors[i]);
        label(part_name(part), &cut);
        if (ImGui::IsItemHovered()) {
            // The part's own history, on its own scale.
            const History& h = stats.part(part);
            ImGui::BeginTooltip();
            ImGui::PushTextWrapPos(ImGui::GetFontSize() * 24.0f);
            ImGui::TextUnformatted(part_help(part));
            ImGui::PopTextWrapPos();
            if (part == Part::kStep) {
                for (std::size_t k = 0; k < kPhaseCount; ++k) {
                    ImGui::Text("  %-13s %.3f ms a step", phase_name(Phase(k)), b.phases[k]);
                }
            }
            ImGui::PlotLines("##history", h.data(), h.size(), h.offset(), nullptr, 0.0f,
                             std::max(h.max() * 1.15f, 0.01f), ImVec2(240.0f, 40.0f));
            ImGui::EndTooltip();
        }
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", b.parts[i]);
        if (shares && ImGui::TableNextColumn() && b.frame > 0.0)
            ImGui::Text("%4.1f %%", 100.0 * b.parts[i] / b.frame);
        // The broad phase's share of the step is what this lab is about; the other phases
        // are in the step's tooltip.
        if (part == Part::kStep) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
            label("   broad phase", &cut);
            ImGui::PopStyleColor();
            ImGui::TableNextColumn();
            ImGui::TextDisabled("%.3f", b.phases[static_cast<std::size_t>(Phase::kBroad)]);
        }
    }
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    label("= frame", &cut);
    ImGui::TableNextColumn();
    ImGui::Text("%.3f", b.frame);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted("GPU (?)");
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(
            "The GPU's time for the frame's drawing (GL timer queries, read a few frames\n"
            "late). It runs alongside the CPU parts above, not after them: what the CPU\n"
            "waits for it shows up in present / wait.\n\n%s",
            gl_description.c_str());
    }
    ImGui::TableNextColumn();
    if (b.gpu)
        ImGui::Text("%.3f", *b.gpu);
    else
        ImGui::TextDisabled("n/a");
    ImGui::EndTable();
    char means[64];
    std::snprintf(means, sizeof means, "ms, means over the last %zu frames", b.frames);
    wrapped_disabled(means);
}

// The broad phase's cost per step over the last kTrendSteps, above the bodies that moved:
// as a pile settles and falls asleep, both fall together.
void step_trend(const FrameStats& stats) {
    const History& broad = stats.broad_trend();
    const History& moving = stats.moving_trend();
    const ImVec2 size(ImGui::GetContentRegionAvail().x, 2.0f * ImGui::GetTextLineHeight());
    char latest[64];
    std::snprintf(latest, sizeof latest, "broad phase: %.3f ms a step", double(broad.latest()));
    wrapped_disabled(latest);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("The broad phase's time and the moving bodies, over the last %zu steps",
                          kTrendSteps);
    ImGui::PlotLines("##broad_trend", broad.data(), broad.filled(), broad.offset(), nullptr, 0.0f,
                     std::max(broad.max() * 1.15f, 0.01f), size);
    ImGui::TextDisabled("moving bodies: %.0f", double(moving.latest()));
    ImGui::PlotLines("##moving_trend", moving.data(), moving.filled(), moving.offset(), nullptr,
                     0.0f, std::max(moving.max() * 1.15f, 1.0f), size);
}

}  // namespace

float stats_panel(Demo& demo, const UiFrame& frame, const ScreenRect& at,
                  std::vector<std::string>& cut) {
    const FrameStats& stats = frame.stats;
    place_next_window(at);
    ImGui::Begin("Stats", nullptr,
                 ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse);

    ImGui::TextWrapped("%.1f fps  (%.2f ms a frame)%s", stats.fps(), stats.frame_ms().latest(),
                       demo.paused() ? "  paused" : "");
    const History& h = stats.frame_ms();
    ImGui::PlotLines("##frame", h.data(), h.size(), h.offset(), nullptr, 0.0f,
                     std::max(h.max() * 1.15f, 0.01f),
                     ImVec2(ImGui::GetContentRegionAvail().x, 1.5f * ImGui::GetTextLineHeight()));
    frame_breakdown(stats, frame.gl_description, cut);
    step_trend(stats);
    if (!frame.msaa_note.empty()) {
        // One line, so the stats table below keeps its rows; the why in the tooltip.
        ImGui::TextDisabled("%s", frame.msaa_note.c_str());
        if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip(
                "Multisampling is off by default on a software renderer: on llvmpipe 4x gave "
                "27-35 fps at 600-1,500 bodies, none 73.\n--msaa 4 turns it on.");
        }
    }

    const SimWorld& world = demo.world();
    const collide::BroadPhaseStats bp = world.broad_phase_stats();
    const FrameFacts& last = stats.last();
    ImGui::Separator();
    // The labels keep their width; the values take the rest and wrap.
    if (ImGui::BeginTable("stats", 2, ImGuiTableFlags_None)) {
        ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthFixed,
                                ImGui::CalcTextSize("Structure memory").x);
        ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
        table_row("Algorithm", demo.pairs_found_by(), &cut);
        if (bp.device_ms >= 0) {
            // A GPU row: which GPU, and its own time for the last update (timestamp queries).
            // The renderer's name up to its details ("llvmpipe (LLVM ...)", "NVIDIA
            // H100/PCIe/SSE2"), so the table keeps its label column; the whole in the tooltip.
            const std::string& renderer = collide::gpu::shared_context()->renderer();
            table_row("Runs on", renderer.substr(0, renderer.find_first_of("(/")), &cut);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", renderer.c_str());
            char device[32];
            std::snprintf(device, sizeof device, "%.3f ms", bp.device_ms);
            table_row("GPU time", device, &cut);
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip(
                    world.on_gpu()
                        ? "The GPU world's broad phase on the GPU's own clock, a step or two ago"
                        : "The broad phase's last update on the GPU's own clock, "
                          "without the uploads and the download");
            if (world.on_gpu()) {
                std::snprintf(device, sizeof device, "%.3f ms", world.timings().total_ms());
                table_row("GPU step", device, &cut);
                if (ImGui::IsItemHovered())
                    ImGui::SetTooltip(
                        "The whole step on the GPU's own clock: integrate, broad "
                        "phase, narrow phase and resolve");
            }
        }
        const WorldCounts counts = world.counts();
        const std::size_t present = counts.moving + counts.sleeping + counts.fixed;
        table_row("Bodies", format_count(present), &cut);
        if (ImGui::IsItemHovered() && present != world.body_count())
            ImGui::SetTooltip("%s slots: a removed body's slot is taken by the next one added",
                              format_count(world.body_count()).c_str());
        const std::pair<const char*, std::size_t> kinds[] = {
            {"  moving", counts.moving}, {"  asleep", counts.sleeping}, {"  static", counts.fixed}};
        for (const auto& [kind, count] : kinds) {
            table_row(kind, format_count(count), &cut);
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip(
                    "The bodies a step moves, those asleep (Sleep, in the Scene section) and "
                    "the static ones. The broad phase keeps the still ones apart where it can, "
                    "so its cost follows the moving bodies.");
        }
        table_row("Pairs", format_count(counts.pairs), &cut);
        table_row("Contacts", format_count(counts.contacts), &cut);
        table_row("Candidate tests", format_count(bp.candidate_tests), &cut);
        char efficiency[32] = "-";
        if (bp.candidate_tests > 0) {
            std::snprintf(efficiency, sizeof efficiency, "%.2f %%",
                          100.0 * static_cast<double>(counts.pairs) /
                              static_cast<double>(bp.candidate_tests));
        }
        table_row("Efficiency", efficiency, &cut);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Pairs found / candidate tests");
        table_row("Structure memory", format_bytes(bp.structure_bytes), &cut);
        table_row("Draw calls", std::to_string(last.draw_calls), &cut);
#ifdef __EMSCRIPTEN__
        // The desktop's Threads field says it; in the browser, how many is the page's doing.
        table_row("Threads",
                  std::to_string(frame.threads) +
                      (available_threads() > 1 ? " (pthreads)" : " (page not isolated)"),
                  &cut);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", threads_origin());
#endif
        ImGui::EndTable();
    }
    const float wanted = wanted_height();
    ImGui::End();
    return wanted;
}

}  // namespace collidoscope
