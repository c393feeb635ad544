#include "ui/ui.hpp"

#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "sim/algorithm_policy.hpp"
#include "ui/compare_view.hpp"
#include "cli/controls.hpp"
#include "common/palette.hpp"
#include "common/threads.hpp"
#include "sim/scene_save.hpp"
#include "sim/race.hpp"

namespace collidoscope {
namespace {

constexpr std::size_t kMaxListedPartners = 48;
constexpr double kToastSeconds = 3.0;
const ImVec4 kHeadingColor(0.55f, 0.80f, 1.0f, 1.0f);
// What the app changed or would change for the user: a refused algorithm, a faster one.
const ImVec4 kNoticeColor(1.0f, 0.8f, 0.3f, 1.0f);

ImVec4 to_imvec(collide::Color c) {
    return {static_cast<float>((c >> 16) & 0xFF) / 255.0f,
            static_cast<float>((c >> 8) & 0xFF) / 255.0f, static_cast<float>(c & 0xFF) / 255.0f,
            1.0f};
}

void swatch(collide::Color c) {
    ImGui::SameLine();
    ImGui::PushID(static_cast<int>(c));  // several swatches share a window
    ImGui::ColorButton("##swatch", to_imvec(c),
                       ImGuiColorEditFlags_NoTooltip | ImGuiColorEditFlags_NoDragDrop,
                       ImVec2(ImGui::GetTextLineHeight(), ImGui::GetTextLineHeight()));
    ImGui::PopID();
}

// A collapsing header that starts as `open` says and keeps `open` up to date.
bool section(const char* label, bool& open) {
    ImGui::SetNextItemOpen(open, ImGuiCond_Once);
    open = ImGui::CollapsingHeader(label);
    return open;
}

// A label too long for the room beside its widget goes on its own wrapped line above it,
// and the widget takes the panel's width; returns the label to give the widget.
std::string fit_label(const char* label) {
    const float room = ImGui::GetContentRegionAvail().x - ImGui::CalcItemWidth() -
                       ImGui::GetStyle().ItemInnerSpacing.x;
    if (ImGui::CalcTextSize(label).x <= room) return label;
    ImGui::TextWrapped("%s", label);
    ImGui::SetNextItemWidth(-FLT_MIN);
    return std::string("##") + label;
}

// A checkbox whose label wraps (after the box) instead of running past the panel's edge.
bool wrapped_checkbox(const char* label, bool* value) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float room =
        ImGui::GetContentRegionAvail().x - ImGui::GetFrameHeight() - style.ItemInnerSpacing.x;
    if (ImGui::CalcTextSize(label).x <= room) return ImGui::Checkbox(label, value);
    ImGui::PushID(label);
    const bool changed = ImGui::Checkbox("##box", value);
    ImGui::PopID();
    ImGui::SameLine(0.0f, style.ItemInnerSpacing.x);
    ImGui::TextWrapped("%s", label);
    return changed;
}

// A tooltip wrapped at 32 font heights (about 60 characters): a hint of several sentences on one line
// ran off the screen.
void wrapped_tooltip(const char* text) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

void hint(const char* text) {
    if (ImGui::IsItemHovered()) wrapped_tooltip(text);
}

// Says how much of an overlay is drawn when the view or the cap leaves some out.
void capped_note(std::size_t drawn, std::size_t in_view, std::size_t total) {
    if (drawn == total) return;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    if (drawn == in_view) {
        ImGui::TextWrapped("  %s of %s (the rest are out of view)", format_count(drawn).c_str(),
                           format_count(total).c_str());
    } else {
        ImGui::TextWrapped("  %s of %s: capped, so an even sample of the %s in view",
                           format_count(drawn).c_str(), format_count(total).c_str(),
                           format_count(in_view).c_str());
    }
    ImGui::PopStyleColor();
}

const char* scene_label(const Demo& demo) {
    for (const SceneChoice& s : demo.scenes()) {
        if (s.name == demo.scene()) return s.label.c_str();
    }
    return demo.scene().c_str();
}

}  // namespace

void place_next_window(const ScreenRect& at) {
    ImGui::SetNextWindowPos(ImVec2(at.min.x, at.min.y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(at.size().x, at.size().y), ImGuiCond_Always);
}

float wanted_height() {
    const ImGuiStyle& style = ImGui::GetStyle();
    // The cursor is below the last item (and its spacing), counted from the window's top
    // and before scrolling.
    return ImGui::GetCursorPosY() - style.ItemSpacing.y + style.WindowPadding.y;
}

void same_line_if_fits(const char* label) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float width = ImGui::CalcTextSize(label, nullptr, true).x + 2.0f * style.FramePadding.x;
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (ImGui::GetItemRectMax().x + style.ItemSpacing.x + width <= right) ImGui::SameLine();
}

UiActions Ui::draw(Demo& demo, const UiFrame& frame, Dialogs& dialogs) {
    UiActions actions;
    LayoutInput in = wants_;
    in.screen = frame.screen;
    in.ui_scale = ImGui::GetIO().FontGlobalScale;
    in.hidden = dialogs.ui_hidden;
    in.race_open = panels_.race;
    in.selection = demo.selected() != collide::kNoBody;
    in.watch = demo.watch().open();
    in.title_height = ImGui::GetFrameHeight();
    layout_ = compute_layout(in);
    if (dialogs.ui_hidden && !was_hidden_) toast("Panels hidden: Tab shows them again");
    was_hidden_ = dialogs.ui_hidden;
    if (!dialogs.ui_hidden) {
        const ImGuiWindowFlags fixed = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize;
        place_next_window(layout_.left);
        ImGui::Begin("Collidoscope", nullptr, fixed | ImGuiWindowFlags_NoCollapse);
        ImGui::PushItemWidth(-110.0f * in.ui_scale);  // room for the labels on the right
        if (section("Tour", tour_open_)) tour_section(actions);
        if (section("Scene", panels_.scene)) {
            scene_section(demo, actions);
            physics_section(demo);
        }
        if (section("Broad phase", panels_.broad_phase)) {
            broad_phase_section(demo, frame, actions);
        }
        // Above the overlays, so a region's answer shows without scrolling the panel.
        if (section("Query", panels_.query)) {
            query_section(demo, frame);
        }
        if (section("Overlays", panels_.overlays)) {
            overlays_section(demo, frame.overlays);
        }
        if (section("Mouse and keys", panels_.keys)) {
            ImGui::TextDisabled("Every key and mouse action:");
            if (ImGui::Button("Keys and mouse (F1)")) dialogs.help = !dialogs.help;
            ImGui::TextDisabled("Tab hides every panel (and shows them again).");
        }
        ImGui::PopItemWidth();
        ImGui::End();

        stats_cut_.clear();
        if (demo.watch().open()) {
            watch_panel(demo, layout_.watch);
        } else {
            wants_.stats_wants = stats_panel(demo, frame, layout_.stats, stats_cut_);
            wants_.race_wants = race_window(demo, layout_.race, panels_.race);
            wants_.selection_wants = selection_panel(demo, layout_.selection);
        }
        timeline_panel(demo, layout_.timeline, actions);
        // The compare panes carry their own stats lines and scale bars instead.
        ScreenRect toggle;
        legend_rect_ = demo.view().compare.empty()
                           ? legend_window(demo, frame.overlays, layout_.world, frame.bodies,
                                           legend_, toggle)
                           : ScreenRect{};
        widgets_["legend"] = legend_rect_;
        widgets_["legend_toggle"] = toggle;
        widgets_["bodies_on_screen"] = frame.bodies;
    } else {
        legend_rect_ = {};
    }
    help_window(dialogs, frame.screen);
    actions.quit = quit_prompt(dialogs, frame.screen);
    draw_toast();
    return actions;
}

void Ui::toast(std::string text) {
    toast_ = std::move(text);
    toast_until_ = ImGui::GetTime() + kToastSeconds;
}

void Ui::draw_toast() {
    if (toast_.empty() || ImGui::GetTime() > toast_until_) return;
    // At the foot of the world view, over no panel: at the window's foot it sat under the
    // Timeline and could not be read.
    const ScreenRect& world = layout_.world;
    ImGui::SetNextWindowPos(ImVec2(world.center().x, world.max.y - kPanelMargin),
                            ImGuiCond_Always, ImVec2(0.5f, 1.0f));
    ImGui::SetNextWindowBgAlpha(0.85f);
    ImGui::Begin("Message", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoFocusOnAppearing |
                     ImGuiWindowFlags_NoNav);
    // Wrapped to the view's width: a long screenshot path broke out over the panels.
    const float padding = 2.0f * ImGui::GetStyle().WindowPadding.x;
    ImGui::PushTextWrapPos(std::max(world.size().x - 2.0f * kPanelMargin - padding, 50.0f));
    ImGui::TextUnformatted(toast_.c_str());
    ImGui::PopTextWrapPos();
    ImGui::End();
}

void Ui::scene_section(Demo& demo, UiActions& actions) {
    if (ImGui::RadioButton("2D circles", demo.dim() == 2)) demo.set_dim(2);
    note_widget("dim_2d");
    ImGui::SameLine();
    if (ImGui::RadioButton("3D spheres", demo.dim() == 3)) demo.set_dim(3);
    note_widget("dim_3d");

    if (ImGui::BeginCombo("Scene##combo", scene_label(demo))) {
        for (const SceneChoice& s : demo.scenes()) {
            if (s.dim != 0 && s.dim != demo.dim()) continue;
            const bool current = s.name == demo.scene();
            if (ImGui::Selectable(s.label.c_str(), current)) demo.set_scene(s.name);
            hint(s.description.c_str());
            if (current) ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
    }

    ImGui::BeginDisabled(demo.scene_is_csv());
    int shown = count_edit_ >= 0 ? count_edit_ : static_cast<int>(demo.count());
    // A slider opens its text field for Ctrl+click or keyboard focus; a double click asks
    // for the focus, as a drag field would open on it.
    if (count_open_text_) ImGui::SetKeyboardFocusHere();
    count_open_text_ = false;
    if (ImGui::SliderInt("Bodies", &shown, 1, static_cast<int>(kMaxAppBodies), "%d",
                         ImGuiSliderFlags_Logarithmic)) {
        count_edit_ = shown;
    }
    note_widget("bodies");
    if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left))
        count_open_text_ = true;
    if (ImGui::IsItemActive()) {
        count_dragged_ |= ImGui::IsMouseDragging(ImGuiMouseButton_Left);
        count_typed_ |= ImGui::GetIO().WantTextInput;
    }
    if (ImGui::IsItemDeactivatedAfterEdit() && count_edit_ >= 0 &&
        (count_dragged_ || count_typed_)) {
        demo.set_count(static_cast<std::size_t>(count_edit_));
    }
    if (!ImGui::IsItemActive()) {
        count_edit_ = -1;
        count_dragged_ = count_typed_ = false;
    }
    hint(
        "Drag, or double-click (Ctrl+click) and type a number: the scene is rebuilt on "
        "release or Enter.");
    ImGui::EndDisabled();

    std::uint64_t seed = demo.seed();
    const std::uint64_t one = 1;
    if (ImGui::InputScalar("Seed", ImGuiDataType_U64, &seed, &one, nullptr, "%" PRIu64,
                           ImGuiInputTextFlags_EnterReturnsTrue)) {
        demo.set_seed(seed);
    }

    if (ImGui::Button("Reset (R)")) demo.reset();
    const char* run = demo.paused() ? "Run (P)" : "Pause (P)";
    same_line_if_fits(run);
    if (ImGui::Button(run)) demo.set_paused(!demo.paused());
    same_line_if_fits("Step (O)");
    if (ImGui::Button("Step (O)")) {
        demo.set_paused(true);
        demo.step_once();
    }
    same_line_if_fits("Fit (C)");
    if (ImGui::Button("Fit (C)")) actions.fit_camera = true;
    if (ImGui::Button("Save scene (S)")) {
        if (auto written = save_scene(demo)) actions.written.push_back(*written);
    }
    hint(
        "Writes the world (bodies, implicit shapes, physics) as a CSV file in the current "
        "folder; --scene csv:FILE loads it");
    if (!last_save_.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, !last_save_failed_ ? ImVec4(0.5f, 0.9f, 0.5f, 1.0f)
                                                           : ImVec4(1.0f, 0.4f, 0.4f, 1.0f));
        ImGui::TextWrapped("%s", last_save_.c_str());
        ImGui::PopStyleColor();
    }
    if (!demo.last_error().empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.4f, 0.4f, 1.0f));
        ImGui::TextWrapped("%s", demo.last_error().c_str());
        ImGui::PopStyleColor();
    }
    if (!demo.notice().empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kNoticeColor);
        ImGui::TextWrapped("%s", demo.notice().c_str());
        ImGui::PopStyleColor();
    }
}

void Ui::physics_section(Demo& demo) {
    Physics p = demo.physics();
    bool changed = false;
    changed |= ImGui::SliderFloat("Restitution", &p.restitution, 0.0f, 1.0f, "%.2f");
    changed |= ImGui::SliderFloat("Gravity", &p.gravity, 0.0f, demo.max_gravity(), "%.2f");
    changed |= ImGui::SliderFloat("Time step", &p.dt, 1.0f / 960.0f, 1.0f / 15.0f, "%.4f s",
                                  ImGuiSliderFlags_Logarithmic);
    changed |= ImGui::Checkbox("Swept boxes", &p.swept);
    hint(
        "Each body's box covers its motion over the step, and a time-of-impact test stops "
        "fast bodies at their first touch, so they cannot pass through others");
    changed |= ImGui::Checkbox("Count tunnelling", &p.count_tunnelling);
    hint(
        "Checks every step, by a sweep of its own over the bodies' paths, for pairs that "
        "passed into each other without a contact");
    changed |= ImGui::Checkbox("Sleep", &p.sleep);
    note_widget("sleep");
    hint(
        "Bodies touching one another form an island. Once every body of an island has been "
        "slower than the sleep speed for the sleep time, the island sleeps: it stops moving, "
        "is drawn dimmed and costs the step nothing, until something awake touches it or you "
        "drag one of its bodies. The GPU world does not sleep.");
    if (p.sleep) {
        changed |= ImGui::SliderFloat("Sleep speed", &p.sleep_speed, 0.0f, 1.0f, "%.3f /s",
                                      ImGuiSliderFlags_Logarithmic);
        hint("An island sleeps once all its bodies stayed slower than this (world units per s)");
        changed |= ImGui::SliderFloat("Sleep time", &p.sleep_time, 0.05f, 5.0f, "%.2f s",
                                      ImGuiSliderFlags_Logarithmic);
        hint("...for this long");
    }
    float rate = demo.spawn_rate();
    ImGui::BeginDisabled(demo.gpu_world());
    if (ImGui::SliderFloat("Spawn rate", &rate, 0.0f, 1000.0f, "%.0f /s",
                           ImGuiSliderFlags_Logarithmic))
        demo.set_spawn_rate(rate);
    note_widget("spawn_rate");
    hint(
        "Bodies a second falling in from the top of the world. Once the world holds as many "
        "as it began with, each new one takes the place of the oldest: the rain recycles its "
        "drops. Each body added or removed is recorded, so replays repeat them.");
    ImGui::Checkbox("Spray (left drag)", &demo.view().spray);
    note_widget("spray");
    hint(
        "While on, a left drag adds bodies under the cursor, moving as the cursor moves, "
        "instead of selecting; Delete removes the selected body, or every body in the query "
        "region.");
    ImGui::EndDisabled();
    if (changed) demo.set_physics(p);
    bool gpu = demo.gpu_world();
    const std::optional<std::string> refusal =
        gpu ? std::nullopt : demo.world().gpu_world_refusal();
    ImGui::BeginDisabled(refusal.has_value());
    if (ImGui::Checkbox("GPU world", &gpu)) demo.set_gpu_world(gpu);
    note_widget("gpu_world");
    ImGui::EndDisabled();
    const std::string gpu_hint =
        refusal ? "Stays on the CPU world: " + *refusal
                : "The bodies live in GPU buffers and the whole step runs in compute shaders; "
                  "they are drawn from those buffers. Queries, the race, compare panes, "
                  "structure overlays and cost colours stay with the CPU world.";
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
        wrapped_tooltip(gpu_hint.c_str());
    }
    if (refusal) {
        ImGui::SameLine();
        ImGui::TextDisabled("(CPU only)");
    }
    if (p.swept || p.count_tunnelling) {
        const ContinuousFacts f = demo.world().continuous_facts();
        if (p.swept) ImGui::TextDisabled("  %zu impacts last step", f.impacts);
        if (p.count_tunnelling) {
            ImGui::TextDisabled("  tunnelled: %llu last step, %llu in all",
                                static_cast<unsigned long long>(f.tunnelled_last),
                                static_cast<unsigned long long>(f.tunnelled_total));
        }
    }
    if (ImGui::SmallButton("Scene defaults")) {
        demo.set_physics(demo.scene_physics());
        demo.set_spawn_rate(std::nullopt);
    }
    hint("Restitution, gravity, time step and spawn rate as the scene defines them");

    ImGui::TextUnformatted("Colour by");
    ImGui::SameLine();
    ColorMode& mode = demo.view().color_mode;
    if (ImGui::RadioButton("speed", mode == ColorMode::kSpeed)) mode = ColorMode::kSpeed;
    hint(
        "Blue (slow) to red (fast), scaled to the 95th percentile speed. Static bodies grey, "
        "sleeping ones dimmed.");
    ImGui::SameLine();
    if (ImGui::RadioButton("id", mode == ColorMode::kId)) mode = ColorMode::kId;
    ImGui::SameLine();
    if (ImGui::RadioButton("cost", mode == ColorMode::kCost)) mode = ColorMode::kCost;
    hint(
        "The heat map: the candidate tests the broad phase made for each body this frame, "
        "on a log scale (the bar at the bottom right of the view). Grey when the algorithm "
        "cannot attribute its work to bodies. Counting slows the broad phase while on.");
}

void Ui::broad_phase_section(Demo& demo, const UiFrame& frame, UiActions& actions) {
    const auto algorithms = demo.algorithms();
    const collide::BroadPhaseEntry* current = nullptr;
    if (ImGui::BeginCombo("Algorithm", demo.broad_phase().c_str())) {
        for (std::size_t i = 0; i < algorithms.size(); ++i) {
            const std::string name(algorithms[i]->name);
            std::string label = algorithm_key(i);
            label.resize(std::max<std::size_t>(label.size(), 7) + 1, ' ');
            label += name;
            const bool selected = name == demo.broad_phase();
            if (ImGui::Selectable(label.c_str(), selected)) demo.set_broad_phase(name);
            hint(std::string(algorithms[i]->description).c_str());
            if (selected) ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
    }
    for (const auto* e : algorithms) {
        if (e->name == demo.broad_phase()) current = e;
    }
    if (current) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        ImGui::TextWrapped("%s", std::string(current->description).c_str());
        ImGui::PopStyleColor();
    }
    if (const auto suggestion = demo.large_world_suggestion()) {
        const std::string name(*suggestion);
        ImGui::PushStyleColor(ImGuiCol_Text, kNoticeColor);
        ImGui::TextWrapped(
            "%s bodies: %s sweeps one axis, where every body's interval meets many others; "
            "%s, the default above %s bodies, runs far faster.",
            format_count(demo.count()).c_str(), demo.broad_phase().c_str(), name.c_str(),
            format_count(kLargeWorldBodies).c_str());
        ImGui::PopStyleColor();
        if (ImGui::Button(("Use " + name).c_str())) demo.set_broad_phase(name);
    }

    const std::string status = demo.world().broad_phase_status();
    if (!status.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kHeadingColor);
        ImGui::TextWrapped("%s", status.c_str());
        ImGui::PopStyleColor();
    }

    std::span<collide::Param> params = demo.world().broad_phase_params();
    for (std::size_t i = 0; i < params.size(); ++i) {
        const collide::Param& p = params[i];
        ImGui::PushID(static_cast<int>(i));
        // Through the demo, so a recorded session has the change.
        switch (p.kind) {
            case collide::Param::Kind::kToggle: {
                bool on = p.value >= 0.5f;
                if (wrapped_checkbox(p.name, &on)) demo.set_param(p.name, on ? 1.0f : 0.0f);
                break;
            }
            case collide::Param::Kind::kWhole: {
                int value = static_cast<int>(p.value);
                if (ImGui::SliderInt(fit_label(p.name).c_str(), &value, static_cast<int>(p.min),
                                     static_cast<int>(p.max))) {
                    demo.set_param(p.name, static_cast<float>(value));
                }
                break;
            }
            case collide::Param::Kind::kReal: {
                float value = p.value;
                if (ImGui::SliderFloat(fit_label(p.name).c_str(), &value, p.min, p.max, "%.3g")) {
                    demo.set_param(p.name, value);
                }
                break;
            }
        }
        ImGui::PopID();
    }
    if (params.empty()) ImGui::TextDisabled("(no parameters)");

    int threads = frame.threads;
    const int hardware = available_threads();
    // A stepper, not a slider: over a range of a few threads a slider's grab is as wide as
    // the value and hides it.
    if (ImGui::InputInt("Threads", &threads, 1, 1))
        actions.threads = std::clamp(threads, 1, hardware);
    hint(
        "oneTBB threads for the app's parallel work (sort-and-sweep's sweep among others); "
        "collidoscope-bench --threads T measures the same");

    // Closed at first: the Stats panel has the tests and the memory, and the Overlays
    // section below should stay in reach.
    const collide::BroadPhaseStats s = demo.world().broad_phase_stats();
    if (ImGui::TreeNode("What it built")) {
        if (ImGui::BeginTable("bpstats", 2, ImGuiTableFlags_SizingStretchProp)) {
            table_row("Candidate tests", format_count(s.candidate_tests));
            table_row("Structure memory", format_bytes(s.structure_bytes));
            table_row("Nodes / cells", format_count(s.nodes));
            table_row("Depth", s.depth > 0 ? std::to_string(s.depth) : std::string("-"));
            table_row("Re-inserted", format_count(s.reinserted));
            ImGui::EndTable();
        }
        ImGui::TreePop();
    }
    compare_controls(demo);
}

void Ui::note_widget(const std::string& name) {
    widgets_[name] = {glm::vec2(ImGui::GetItemRectMin().x, ImGui::GetItemRectMin().y),
                      glm::vec2(ImGui::GetItemRectMax().x, ImGui::GetItemRectMax().y)};
}

void Ui::compare_controls(Demo& demo) {
    std::vector<std::string>& panes = demo.view().compare;
    const auto algorithms = demo.algorithms();
    bool on = !panes.empty();
    if (ImGui::Checkbox("Compare view", &on)) demo.set_compare_panes(on ? 2 : 0);
    hint(
        "Split the view into panes, each running its own algorithm on the same frame's boxes "
        "with its own structure overlay and stats line; pan and zoom move all panes.");
    if (panes.empty()) return;
    ImGui::SameLine();
    int count = static_cast<int>(panes.size());
    if (ImGui::SliderInt("panes", &count, 2, static_cast<int>(kMaxComparePanes)))
        demo.set_compare_panes(static_cast<std::size_t>(count));
    for (std::size_t p = 0; p < panes.size(); ++p) {
        ImGui::PushID(static_cast<int>(p));
        if (ImGui::BeginCombo(("Pane " + std::to_string(p + 1)).c_str(), panes[p].c_str())) {
            for (const auto* e : algorithms) {
                if (ImGui::Selectable(std::string(e->name).c_str(), e->name == panes[p]))
                    panes[p] = std::string(e->name);
            }
            ImGui::EndCombo();
        }
        const std::vector<std::string>& notes = demo.view().compare_notes;
        if (p < notes.size() && !notes[p].empty()) {
            const std::optional<std::string> frozen =
                too_slow_to_run_once(panes[p], demo.world().body_count());
            ImGui::BeginDisabled(frozen.has_value());
            if (ImGui::SmallButton("Run once")) demo.view().compare_run_once = panes[p];
            note_widget("run_once_" + std::to_string(p + 1));
            ImGui::EndDisabled();
            hint(frozen ? frozen->c_str() : notes[p].c_str());
            ImGui::SameLine();
            ImGui::TextDisabled("paused: over budget");
        }
        ImGui::PopID();
    }
}

void Ui::overlays_section(Demo& demo, const OverlayReport& report) {
    OverlayFlags& o = demo.view().overlays;
    ImGui::Checkbox("Boxes (AABBs)", &o.aabbs);
    swatch(kBoxColor);
    if (o.aabbs) capped_note(report.boxes_drawn, report.boxes_in_view, report.boxes_total);
    ImGui::Checkbox("Pairs", &o.pairs);
    swatch(kPairColor);
    hint("White: the boxes overlap (a broad-phase pair). Magenta: the bodies really touch.");
    swatch(kContactColor);
    hint("Magenta: the bodies really touch (a narrow-phase contact).");
    if (o.pairs) capped_note(report.pairs_drawn, report.pairs_in_view, report.pairs_total);
    ImGui::Checkbox("Implicit contacts", &o.implicit);
    hint(
        "Implicit bodies in contact and the selected one: surface points inside (red) or "
        "outside (green) the partner, signature cells, contact normals (yellow)");
    ImGui::Checkbox("Structure", &o.structure);
    hint("What the algorithm built: cells, nodes, intervals");
    if (o.structure) {
        ImGui::TextDisabled("  %s primitives%s", format_count(report.structure_primitives).c_str(),
                            report.structure_capped ? " (budget reached)" : "");
        const std::vector<std::string> layers = demo.world().structure_key().layers;
        for (std::size_t i = 0; i < layers.size() && i < 64; ++i) {
            const std::uint64_t bit = std::uint64_t{1} << i;
            bool shown = (o.hidden_layers & bit) == 0;
            ImGui::PushID(static_cast<int>(i));
            if (wrapped_checkbox(layers[i].c_str(), &shown)) o.hidden_layers ^= bit;
            ImGui::PopID();
        }
    }
    if (demo.dim() == 3) ImGui::Checkbox("Draw overlays on top", &demo.view().overlays_on_top);
    lod_controls(demo);
    ImGui::SliderFloat("UI scale", &ImGui::GetIO().FontGlobalScale, 0.5f, 2.0f, "%.2f",
                       ImGuiSliderFlags_AlwaysClamp);
    hint("Text size in the panels (kept in the settings file). Ctrl+click to type a value.");
}

std::optional<std::string> Ui::save_scene(const Demo& demo) {
    std::optional<std::string> written;
    try {
        const std::string path = timestamped_scene_name();
        last_save_ = collidoscope::save_scene(demo.world(), path);
        last_save_failed_ = false;
        written = path;
    } catch (const std::exception& e) {
        last_save_ = std::string("scene not saved: ") + e.what();
        last_save_failed_ = true;
    }
    std::printf("collidoscope: %s\n", last_save_.c_str());
    return written;
}

namespace {

// What the algorithm has to say about the body, wrapped to the panel (which scrolls).
void describe_section(const Demo& demo, const std::string& text) {
    if (text.empty()) return;
    ImGui::Separator();
    ImGui::TextColored(kHeadingColor, "%s", demo.broad_phase().c_str());
    const std::size_t end = text.find_last_not_of('\n') + 1;  // a trailing newline adds no line
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(text.c_str(), text.c_str() + end);
    ImGui::PopTextWrapPos();
}

}  // namespace

void Ui::query_section(Demo& demo, const UiFrame& frame) {
    const std::optional<Box3>& region = demo.query();
    if (!region) {
        ImGui::TextDisabled("Shift + left drag to query a region");
        return;
    }
    if (demo.dim() == 3) {
        ImGui::Text("Low   %.2f  %.2f  %.2f", region->lo.x, region->lo.y, region->lo.z);
        ImGui::Text("High  %.2f  %.2f  %.2f", region->hi.x, region->hi.y, region->hi.z);
    } else {
        ImGui::Text("Low   %.2f  %.2f", region->lo.x, region->lo.y);
        ImGui::Text("High  %.2f  %.2f", region->hi.x, region->hi.y);
    }
    // query() runs after the panels, so this is the previous frame's answer.
    ImGui::Text("%s bodies found in %.1f \xC2\xB5s", format_count(frame.query.found).c_str(),
                frame.query.micros);  // UTF-8 mu
    ImGui::TextUnformatted("Outline");
    swatch(kQueryRegionColor);
    ImGui::SameLine();
    ImGui::TextUnformatted(" found");
    swatch(kQueryHitColor);
    ImGui::SameLine();
    if (ImGui::SmallButton("Clear (Esc)")) demo.set_query(std::nullopt);
    ImGui::SameLine();
    ImGui::BeginDisabled(demo.gpu_world());
    if (ImGui::SmallButton("Remove bodies (Delete)")) demo.remove_in(*region);
    note_widget("remove_region");
    hint("Removes every body whose centre lies in the region (the CPU world only)");
    ImGui::EndDisabled();
    const OverlayReport& o = frame.overlays;
    capped_note(o.query_hits_drawn, o.query_hits_in_view, o.query_hits_total);
    if (demo.world().steps() == 0) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        ImGui::TextWrapped("The broad phase has not run yet: step (O) or run (P).");
        ImGui::PopStyleColor();
    }
}

float Ui::selection_panel(Demo& demo, const ScreenRect& at) {
    const collide::BodyId id = demo.selected();
    if (id == collide::kNoBody) return 0.0f;
    const BodyInfo info = demo.world().body_info(id, kMaxListedPartners);
    // Its own place under the race; the content scrolls when the list of partners or the
    // description is longer than the room.
    place_next_window(at);
    bool open = true;
    ImGui::Begin("Selected body", &open,
                 ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoMove |
                     ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
    const bool three = demo.dim() == 3;
    ImGui::Text("Body %u%s", id, info.is_static ? "  (static)" : info.asleep ? "  (asleep)" : "");
    if (!info.implicit && !demo.gpu_world()) {
        ImGui::SameLine();
        if (ImGui::SmallButton("Remove (Delete)")) demo.remove_body(id);
        note_widget("remove_body");
    }
    if (three) {
        ImGui::Text("Position  %.3f  %.3f  %.3f", info.pos.x, info.pos.y, info.pos.z);
        ImGui::Text("Velocity  %.3f  %.3f  %.3f", info.vel.x, info.vel.y, info.vel.z);
    } else {
        ImGui::Text("Position  %.3f  %.3f", info.pos.x, info.pos.y);
        ImGui::Text("Velocity  %.3f  %.3f", info.vel.x, info.vel.y);
    }
    ImGui::Text("Speed     %.3f", glm::length(info.vel));
    ImGui::Text("Radius    %.4g%s", info.radius, info.implicit ? "  (bounding)" : "");
    if (info.implicit) {
        ImGui::Separator();
        ImGui::Text("Implicit: %zu metaballs, %zu surface points", info.metaballs, info.vertices);
        ImGui::Text("Signature: %zu of %zu cells marked", info.signature_marked,
                    info.signature_cells);
        ImGui::Text("Last step: %llu implicit tests (world)",
                    static_cast<unsigned long long>(info.implicit_tests));
        ImGui::Text("Density evals %llu with signature, %llu without",
                    static_cast<unsigned long long>(info.density_evals),
                    static_cast<unsigned long long>(info.density_evals_unsigned));
    }
    ImGui::Separator();
    if (info.on_gpu) {
        ImGui::TextDisabled("GPU world: read back a frame late;");
        ImGui::TextDisabled("pairs and contacts stay on the GPU.");
    } else {
        ImGui::Text("Pairs %zu, of which %zu touch", info.partner_total, info.contact_total);
    }
    // Partner ids as buttons that select that body; touching ones in the contact colour.
    for (std::size_t i = 0; i < info.partners.size(); ++i) {
        const std::string label = std::to_string(info.partners[i]);
        if (i > 0) same_line_if_fits(label.c_str());
        if (info.partner_touches[i]) ImGui::PushStyleColor(ImGuiCol_Text, to_imvec(kContactColor));
        if (ImGui::SmallButton(label.c_str())) demo.select(info.partners[i]);
        if (info.partner_touches[i]) ImGui::PopStyleColor();
    }
    if (info.partner_total > info.partners.size()) {
        ImGui::TextDisabled("... and %zu more", info.partner_total - info.partners.size());
    }
    if (info.partner_total > 0) ImGui::TextDisabled("magenta: touching; click to select");
    describe_section(demo, info.described);
    const float wanted = wanted_height();
    ImGui::End();
    if (!open) demo.select(collide::kNoBody);
    return wanted;
}

}  // namespace collidoscope
