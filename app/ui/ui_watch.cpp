// The Watch panel: one update of the algorithm played at the user's pace. The controls
// (start, back, play, step, end, speed, scrubber), the event shown and its phase, the running
// totals, the pseudocode with the event's line lit, and the optional quiz. At large n it
// says whose events it kept and what it only counted.
#include <imgui.h>

#include <cmath>
#include <string>

#include "ui/ui.hpp"

namespace collidoscope {
namespace {

const ImVec4 kLitLine(1.0f, 0.85f, 0.3f, 1.0f);
const ImVec4 kWarn(1.0f, 0.6f, 0.3f, 1.0f);

std::string thousands(std::uint64_t v) {
    std::string s = std::to_string(v);
    for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(std::size_t(i), ",");
    return s;
}

std::uint64_t made_in_all(const WatchTape& tape) {
    std::uint64_t n = 0;
    for (const std::uint64_t m : tape.made) n += m;
    return n;
}

// What the recording holds: everything, or one body's events and counts of the rest.
void scope_lines(const WatchTape& tape) {
    ImGui::TextWrapped("One update of %s bodies on one thread, recorded in %.1f ms: %s events.",
                       thousands(tape.bodies).c_str(), tape.record_ms,
                       thousands(made_in_all(tape)).c_str());
    if (tape.everything) return;
    if (tape.focus == collide::kNoBody) {
        ImGui::TextColored(kWarn, "Over %s bodies only one body's events are kept.",
                           thousands(collide::kWatchKeepAllUpTo).c_str());
        ImGui::TextWrapped("Select a body (left click) to watch its part of the update; the "
                           "rest is counted below.");
    } else {
        ImGui::TextWrapped("Over %s bodies: kept the %s events that touch body #%u (the "
                           "selection); %s others counted, not kept.",
                           thousands(collide::kWatchKeepAllUpTo).c_str(),
                           thousands(tape.events.size()).c_str(), tape.focus,
                           thousands(tape.not_kept).c_str());
    }
}

}  // namespace

void Ui::watch_panel(Demo& demo, const ScreenRect& at) {
    place_next_window(at);
    WatchMode& watch = demo.watch();
    const WatchTape& tape = watch.tape();
    WatchPlayer& player = watch.player();
    ImGui::Begin("Watch", nullptr,
                 ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                     ImGuiWindowFlags_NoFocusOnAppearing);
    ImGui::Text("Watch: %s", tape.algorithm.c_str());
    ImGui::SameLine(ImGui::GetContentRegionAvail().x - 60.0f);
    if (ImGui::SmallButton("Close (W)")) demo.set_watching(false);
    note_widget("watch_close");
    if (!tape.not_recorded.empty()) {
        ImGui::TextColored(kWarn, "Not recorded:");
        ImGui::TextWrapped("%s.", tape.not_recorded.c_str());
        ImGui::End();
        return;
    }
    scope_lines(tape);
    ImGui::Separator();

    // The player's controls.
    const std::size_t n = player.size();
    if (ImGui::Button("|<")) player.seek(0);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("To the start");
    ImGui::SameLine();
    if (ImGui::ArrowButton("##watch_back", ImGuiDir_Left)) player.back();
    note_widget("watch_back");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("One event back (Left)");
    ImGui::SameLine();
    if (ImGui::Button(player.playing() ? "Pause" : "Play", ImVec2(52.0f, 0.0f)))
        player.set_playing(!player.playing());
    note_widget("watch_play");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Play at the speed below (Space)");
    ImGui::SameLine();
    if (ImGui::ArrowButton("##watch_step", ImGuiDir_Right)) player.step();
    note_widget("watch_step");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("One event on (Right)");
    ImGui::SameLine();
    if (ImGui::Button(">|")) player.seek(n);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("To the end");
    ImGui::SameLine();
    if (ImGui::SmallButton("Record again")) watch.record_again();
    if (demo.selected() != collide::kNoBody) {
        const std::string label = "Next event of #" + std::to_string(demo.selected());
        if (ImGui::SmallButton(label.c_str())) {
            const bool found = player.seek_next_of(tape.recorded_index(demo.selected()));
            watch_note_ = found ? "" : "#" + std::to_string(demo.selected()) + " has no later event";
        }
        note_widget("watch_next_of_selection");
        if (!watch_note_.empty()) {
            ImGui::SameLine();
            ImGui::TextDisabled("%s", watch_note_.c_str());
        }
    }

    float speed = player.speed();
    ImGui::SetNextItemWidth(-1.0f);
    if (ImGui::SliderFloat("##watch_speed", &speed, WatchPlayer::kMinSpeed, WatchPlayer::kMaxSpeed,
                           "%.0f events a second", ImGuiSliderFlags_Logarithmic))
        player.set_speed(speed);
    note_widget("watch_speed");
    int shown = static_cast<int>(player.position());
    const std::string scrub_format = "event %d of " + std::to_string(n);
    ImGui::SetNextItemWidth(-1.0f);
    if (ImGui::SliderInt("##watch_scrub", &shown, 0, static_cast<int>(n), scrub_format.c_str()))
        player.seek(static_cast<std::size_t>(std::max(shown, 0)));
    note_widget("watch_scrub");

    // The event shown.
    ImGui::Separator();
    const std::size_t current = player.position();
    if (current == 0) {
        ImGui::TextWrapped("Before the first event. Step (Right) or Play to begin.");
    } else {
        const WatchTapeEvent& e = tape.events[current - 1];
        ImGui::TextDisabled("phase: %s", tape.phases[e.phase].c_str());
        ImGui::TextWrapped("%s", tape.describe(current - 1).c_str());
    }
    const WatchTotals t = player.totals();
    ImGui::Text("Tests %s (%s hit)   Pairs %s", thousands(t.tests).c_str(),
                thousands(t.hits).c_str(), thousands(t.pairs).c_str());
    ImGui::Text("Visited %s   Pruned %s   Placed %s", thousands(t.visits).c_str(),
                thousands(t.pruned).c_str(), thousands(t.placed).c_str());
    if (!tape.everything) {
        ImGui::TextDisabled("In the whole update: %s tests, %s pairs",
                            thousands(tape.made[std::size_t(collide::WatchStep::kTest)]).c_str(),
                            thousands(tape.pairs).c_str());
    }

    // The quiz.
    bool quiz = player.quiz();
    if (ImGui::Checkbox("Ask me before each test", &quiz)) player.set_quiz(quiz);
    note_widget("watch_quiz");
    if (player.question_pending()) {
        const WatchTapeEvent& next = tape.events[current];
        ImGui::TextColored(kLitLine, "Will #%u and #%u overlap?", tape.world_id(next.a),
                           tape.world_id(next.b));
        if (ImGui::Button("Hit")) player.answer(true);
        note_widget("watch_hit");
        ImGui::SameLine();
        if (ImGui::Button("Miss")) player.answer(false);
        note_widget("watch_miss");
    } else if (player.score().answered_last) {
        ImGui::TextColored(player.score().last_right ? ImVec4(0.4f, 1.0f, 0.4f, 1.0f) : kWarn,
                           player.score().last_right ? "Right." : "Not this time.");
    }
    if (player.score().asked > 0) {
        ImGui::SameLine();
        ImGui::TextDisabled("%d of %d right", player.score().right, player.score().asked);
    }

    // The pseudocode, the event's line lit.
    ImGui::Separator();
    const int lit = current == 0 ? -1 : tape.line_of(current - 1);
    ImGui::BeginChild("##pseudocode", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
    for (std::size_t i = 0; i < tape.script.lines.size(); ++i) {
        const bool on = static_cast<int>(i) == lit;
        if (on) {
            ImGui::TextColored(kLitLine, "> %s", tape.script.lines[i]);
            if (player.playing() || ImGui::IsWindowAppearing()) ImGui::SetScrollHereY(0.5f);
        } else {
            ImGui::Text("  %s", tape.script.lines[i]);
        }
    }
    ImGui::EndChild();
    ImGui::End();
}

}  // namespace collidoscope
