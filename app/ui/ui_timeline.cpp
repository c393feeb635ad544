// The timeline panel: a strip under the world with the rewind buffer as a scrubber (step
// back and forward, or drag to any kept step), its memory against the cap, the Record
// button, and how a replay is going.
#include <imgui.h>

#include <cinttypes>
#include <ctime>
#include <string>

#include "tooling/input_error.hpp"
#include "ui/ui.hpp"

namespace collidoscope {
namespace {

// A fresh name in the working folder: collidoscope-session-20250101-120000.txt.
std::string session_file_name() {
    const std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
    return std::string("collidoscope-session-") + stamp + ".txt";
}

void record_button(Demo& demo, UiActions& actions) {
    static std::string error;  // why the last Record failed; shown until the next try
    const std::string recording = demo.recording_path();
    if (!recording.empty()) {
        if (ImGui::SmallButton("Stop recording")) {
            demo.stop_recording();
            actions.written.push_back(recording);
        }
        ImGui::SameLine();
        ImGui::TextDisabled("to %s", recording.c_str());
        return;
    }
    if (ImGui::SmallButton("Record")) {
        error.clear();
        try {
            demo.start_recording(session_file_name());
        } catch (const collide::InputError& e) {
            error = e.what();
        }
    }
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(
            "Write the session since launch to a file, and go on recording;\n"
            "collidoscope --replay FILE plays it back step for step");
    }
    if (!error.empty()) {
        ImGui::SameLine();
        ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.4f, 1.0f), "%s", error.c_str());
    }
#ifdef __EMSCRIPTEN__
    // A recording downloaded earlier, played back: the page reloads with --replay.
    ImGui::SameLine();
    if (ImGui::SmallButton("Replay a file...")) actions.choose_replay = true;
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Choose a recording (a file Record downloaded) to play back");
#endif
}

}  // namespace

void timeline_panel(Demo& demo, const ScreenRect& at, UiActions& actions) {
    place_next_window(at);
    ImGui::Begin("Timeline", nullptr,
                 ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                     ImGuiWindowFlags_NoFocusOnAppearing);
    const SessionHistory& history = demo.history();
    const std::uint64_t now = demo.world().steps();
    if (ImGui::ArrowButton("##back", ImGuiDir_Left)) demo.step_back();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("One step back (,)");
    ImGui::SameLine();
    if (ImGui::ArrowButton("##forward", ImGuiDir_Right)) demo.step_forward();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("One step forward (.)");
    ImGui::SameLine();
    std::uint64_t first = history.first_step();
    std::uint64_t last = std::max(history.last_step(), first + 1);  // ImGui needs a range
    std::uint64_t shown = now;
    ImGui::SetNextItemWidth(-1.0f);
    ImGui::BeginDisabled(history.size() < 2);
    if (ImGui::SliderScalar("##step", ImGuiDataType_U64, &shown, &first, &last, "step %" PRIu64) &&
        shown != now) {
        demo.seek(shown);
    }
    ImGui::EndDisabled();

    if (demo.gpu_world() && demo.world().body_count() > kGpuRewindBodies) {
        // Each snapshot would read every body back from the GPU and stall it.
        ImGui::TextDisabled("GPU world over %s bodies: no rewind snapshots",
                            format_count(kGpuRewindBodies).c_str());
    } else {
        ImGui::TextWrapped("%zu step%s kept (%" PRIu64 "-%" PRIu64 "), %s of %s", history.size(),
                           history.size() == 1 ? "" : "s", history.first_step(),
                           history.last_step(), format_bytes(history.bytes()).c_str(),
                           format_bytes(history.max_bytes()).c_str());
    }
    same_line_if_fits(demo.recording_path().empty() ? "Record" : "Stop recording");
    record_button(demo, actions);
    if (const auto& replay = demo.replay()) {
        const char* state = replay->finished ? "done" : "playing";
        if (replay->first_failed) {
            ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.4f, 1.0f),
                               "Replay %s: %zu of %zu actions; hash check FAILED at step %" PRIu64,
                               state, replay->applied, replay->total, *replay->first_failed);
        } else {
            ImGui::Text("Replay %s: %zu of %zu actions, %zu hash checks matched", state,
                        replay->applied, replay->total, replay->checks);
        }
    }
    ImGui::End();
}

}  // namespace collidoscope
