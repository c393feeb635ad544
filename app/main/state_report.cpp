#include "main/state_report.hpp"

#include <imgui.h>
#include <imgui_internal.h>  // FindWindowByName: where a panel is, for tests to aim at

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace collidoscope {
namespace {

nlohmann::json vec(const glm::vec3& v, int dim) {
    nlohmann::json out = nlohmann::json::array();
    for (int k = 0; k < dim; ++k) out.push_back(v[k]);
    return out;
}

nlohmann::json rect(const ScreenRect& r) {
    return {{"x", r.min.x}, {"y", r.min.y}, {"w", r.size().x}, {"h", r.size().y}};
}

// The frame's parts (which add up to the frame), the step's phases and the GPU's time.
nlohmann::json breakdown(const FrameBreakdown& b) {
    nlohmann::json parts = nlohmann::json::object();
    for (std::size_t i = 0; i < kPartCount; ++i) parts[part_name(Part(i))] = b.parts[i];
    nlohmann::json phases = nlohmann::json::object();
    for (std::size_t i = 0; i < kPhaseCount; ++i) phases[phase_name(Phase(i))] = b.phases[i];
    return {{"frames", b.frames},
            {"steps", b.steps},
            {"frame_ms", b.frame},
            {"parts_ms", parts},
            {"step_phases_ms", phases},
            {"gpu_ms", b.gpu ? nlohmann::json(*b.gpu) : nlohmann::json("n/a")}};
}

// Each of the app's windows shown this frame: x, y, width, height and whether it is collapsed.
nlohmann::json windows() {
    nlohmann::json out = nlohmann::json::object();
    for (const char* name : {"Collidoscope", "Stats", "Race", "Selected body", "Timeline",
                             "Keys and mouse", "Quit?", "Message"}) {
        const ImGuiWindow* w = ImGui::FindWindowByName(name);
        // Not yet placed on its first frames (ImGui sizes auto-fitting windows hidden).
        if (w == nullptr || !w->Active || w->Hidden) continue;
        out[name] = {{"x", w->Pos.x},
                     {"y", w->Pos.y},
                     {"w", w->Size.x},
                     {"h", w->Size.y},
                     {"collapsed", w->Collapsed},
                     {"title_h", w->TitleBarHeight()}};
    }
    return out;
}
// Watch mode as the tests read it: the event shown, the pseudocode line lit, and the line
// the event's step and phase call for in the algorithm's script (the two must agree).
nlohmann::json watch_state(const WatchMode& watch) {
    if (!watch.open()) return nullptr;
    const WatchTape& tape = watch.tape();
    const WatchPlayer& player = watch.player();
    nlohmann::json w = {{"algorithm", tape.algorithm},
                        {"not_recorded", tape.not_recorded},
                        {"events", player.size()},
                        {"position", player.position()},
                        {"playing", player.playing()},
                        {"speed", player.speed()},
                        {"everything", tape.everything},
                        {"bodies", tape.bodies},
                        {"record_ms", tape.record_ms},
                        {"quiz", player.quiz()},
                        {"question", player.question_pending()},
                        {"tests", player.totals().tests},
                        {"pairs", player.totals().pairs}};
    if (const WatchTapeEvent* e = player.current()) {
        const std::size_t i = player.position() - 1;
        w["step"] = collide::step_name(e->step);
        w["phase"] = tape.phases[e->phase];
        w["line"] = tape.line_of(i);
        w["line_text"] = tape.line_of(i) >= 0 ? tape.script.lines[std::size_t(tape.line_of(i))] : "";
        w["text"] = tape.describe(i);
        w["region"] = {e->region.lo.x, e->region.lo.y, e->region.lo.z,
                       e->region.hi.x, e->region.hi.y, e->region.hi.z};
    }
    return w;
}


}  // namespace

void StateReport::update(const Demo& demo, const ReportFacts& facts) {
    if (path_.empty()) return;
    const SimWorld& world = demo.world();
    nlohmann::json j;
    j["algorithm"] = demo.broad_phase();
    j["dim"] = demo.dim();
    j["paused"] = demo.paused();
    j["gpu_world"] = demo.gpu_world();
    j["steps"] = world.steps();
    j["count"] = world.body_count();
    const WorldCounts counts = world.counts();
    j["bodies"] = {{"moving", counts.moving}, {"asleep", counts.sleeping}, {"static", counts.fixed}};
    j["sleep"] = world.physics().sleep;
    j["spray"] = demo.view().spray;
    j["zoom"] = facts.zoom;
    j["world_per_point"] = facts.world_per_point;
    j["world_centre_screen"] = {facts.world_centre.x, facts.world_centre.y};
    j["threads"] = facts.threads;
    j["help_open"] = facts.dialogs.help;
    j["quit_prompt"] = facts.dialogs.quit_prompt;
    j["query"] = demo.query().has_value();
    j["compare_notes"] = demo.view().compare_notes;
    j["compare"] = demo.view().compare;
    j["color_mode"] = static_cast<int>(demo.view().color_mode);
    const collide::OverlayFlags& o = demo.view().overlays;
    j["overlays"] = {{"aabbs", o.aabbs}, {"pairs", o.pairs}, {"structure", o.structure}};
    j["watch"] = watch_state(demo.watch());
    j["scene"] = demo.scene();
    j["seed"] = demo.seed();
    j["last_screenshot"] = facts.last_screenshot;
    j["exit"] = facts.exit;
    const collide::BodyId id = demo.selected();
    if (id == collide::kNoBody) {
        j["selected"] = nullptr;
    } else {
        const BodyInfo info = world.body_info(id, 64);
        j["selected"] = {{"id", id},
                         {"position", vec(info.pos, demo.dim())},
                         {"velocity", vec(info.vel, demo.dim())},
                         {"partners", info.partner_total},
                         {"describe", info.described}};
    }
    j["windows"] = windows();
    const ImVec2 screen = ImGui::GetIO().DisplaySize;
    j["screen"] = {screen.x, screen.y};
    j["ui_hidden"] = facts.dialogs.ui_hidden;
    j["ui_scale"] = ImGui::GetIO().FontGlobalScale;
    j["world_view"] = rect(facts.layout.world);
    j["tour_paragraph"] = facts.tour_paragraph;
    j["preset"] = facts.preset;
    j["frames"] = facts.frames;
    j["tour_preview_fits"] = facts.tour_preview_fits;
    j["stats_cut"] = std::vector<std::string>(facts.stats_cut.begin(), facts.stats_cut.end());
    j["compare_layout"] = nlohmann::json::array();
    for (const CompareView::PaneLayout& p : facts.compare_layout) {
        j["compare_layout"].push_back({{"pane", rect(p.pane)}, {"legend", rect(p.legend)}});
    }
    j["widgets"] = nlohmann::json::object();
    for (const auto& [name, r] : facts.widgets) j["widgets"][name] = rect(r);
    j["frame"] = breakdown(facts.frame);
    const ImVec2 mouse = ImGui::GetIO().MousePos;  // where the panels see the pointer
    j["mouse"] = {mouse.x, mouse.y};
    std::string text = j.dump(1);
    if (text == last_) return;
    // Whole or not at all: a reader polling the file never sees half of it.
    const std::string temp = path_ + ".tmp";
    {
        std::ofstream out(temp, std::ios::trunc);
        out << text << "\n";
        if (!out) {
            std::fprintf(stderr, "collidoscope: cannot write %s\n", temp.c_str());
            return;
        }
    }
    std::error_code ec;
    std::filesystem::rename(temp, path_, ec);
    if (!ec) last_ = std::move(text);
}

}  // namespace collidoscope
