#include "main/app.hpp"

#include <SDL.h>
#include <backends/imgui_impl_sdl.h>
#include <imgui.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <memory>
#include <thread>

#include "cli/presets.hpp"
#include "common/threads.hpp"
#include "collide/gpu/catalog.hpp"
#include "collide/gpu/compute_context.hpp"
#include "main/browser.hpp"
#include "main/exit_summary.hpp"
#include "sim/algorithm_policy.hpp"
#include "main/settings_store.hpp"
#include "render/screenshot.hpp"
#include "sim/scene_save.hpp"
#include "tooling/input_error.hpp"
#include "ui/compare_view.hpp"

namespace collidoscope {
namespace {

using Clock = std::chrono::steady_clock;

// --preset-shots: frames each preset runs before its pictures, so the structure is built
// and the bodies have moved.
constexpr int kShotFrames = 8;

bool same_box(const Box3& a, const Box3& b) {
    return a.lo == b.lo && a.hi == b.hi;
}

}  // namespace

int run_app(const Options& given) {
#ifdef __EMSCRIPTEN__
    const Options& options = *new Options(given);  // the run outlives main(): see below
#else
    const Options& options = given;
#endif
    // The world first: a scene that cannot be built is a usage error, reported before any
    // window appears.
    std::unique_ptr<Demo> demo;
    // The GPU rows compute in the window's context, which opens after the world is built:
    // until then none is to be had (rather than a headless one that would take the thread),
    // and a world asked for on a GPU row starts on the default and switches once it is open.
    collide::gpu::install_context(nullptr, "the window's OpenGL context is not open yet");
    const bool gpu_first = options.replay.empty() && collide::runs_on_gpu(options.broadphase);
    try {
        Options first = options;
        if (gpu_first) first.broadphase = std::string(default_broadphase(first.count));
        try {
            demo = std::make_unique<Demo>(first);
        } catch (const collide::InputError& e) {
            if (!first.scene_from_settings) throw;
            // The stored scene is refused now: the settings must not stop the app.
            std::fprintf(stderr,
                         "collidoscope: settings: the stored scene %s: %s; using the default\n",
                         first.scene.c_str(), e.what());
            first.scene = Options{}.scene;
            first.broadphase = std::string(default_broadphase(first.count));
            demo = std::make_unique<Demo>(first);
        }
    } catch (const collide::InputError& e) {
        std::fprintf(stderr, "collidoscope: %s\nTry 'collidoscope --help' for usage.\n", e.what());
        return 2;
    }
    if (demo->replay() && demo->replay()->cut_short) {
        std::fprintf(stderr,
                     "collidoscope: warning: %s has no 'end' line: the recording stopped early; "
                     "replaying it as far as it goes\n",
                     demo->replay()->path.c_str());
    }
    try {
        auto platform_owned = std::make_unique<Platform>(
            "Collidoscope", options.width, options.height, options.msaa,
            /*vsync=*/!options.frames && options.preset_shots.empty());
        Platform& platform = *platform_owned;
        if (gpu_first) {
            demo->set_broad_phase(options.broadphase);
            if (!demo->last_error().empty()) {
                std::fprintf(stderr, "collidoscope: warning: %s; running %s\n",
                             demo->last_error().c_str(), demo->broad_phase().c_str());
            }
        }
        // Like the GPU rows, the GPU world needs the window's context.
        if (options.replay.empty() && options.world != WorldChoice::kCpu) {
            demo->choose_world(options.world);
            if (!demo->last_error().empty()) {
                std::fprintf(stderr, "collidoscope: warning: %s; on the CPU world\n",
                             demo->last_error().c_str());
            } else if (!demo->gpu_world()) {
                std::fprintf(stderr, "collidoscope: %s\n", demo->notice().c_str());
            }
        }
        auto app = std::make_unique<App>(options, *demo, platform);
#ifdef __EMSCRIPTEN__
        // The browser calls each frame after main() has returned: the run lives as long as
        // the page, so what it uses is never freed.
        app.release()->run_in_browser();
        demo.release();
        platform_owned.release();
        return 0;
#else
        return app->run();
#endif
    } catch (const std::exception& e) {
        std::fprintf(stderr, "collidoscope: %s\n", e.what());
        return 1;
    }
}

App::App(const Options& options, Demo& demo, Platform& platform)
    : options_(options), demo_(demo), platform_(platform), report_(options.report_state) {
    // What the settings file keeps (settings_store.hpp), as the options carry it.
    ui_.panels() = options.panels;
    apply_view(options);
    // A scale the user chose, else the one the display's DPI suggests.
    display_scale_ = platform.display_scale();
    ImGui::GetIO().FontGlobalScale = options.ui_scale > 0.0f ? options.ui_scale : display_scale_;
    camera_box_ = options.camera;
    set_preset(options.preset);
    if (!options.preset_shots.empty()) show_preset(std::string(presets().front().name));
    int threads = options.threads > 0 ? options.threads : available_threads();
#ifdef __EMSCRIPTEN__
    threads = std::min(threads, available_threads());  // the page's workers are all it has
#endif
    set_threads(threads);
#ifdef __EMSCRIPTEN__
    // A page never quits: the settings are kept when it is hidden or closed.
    if (!options.settings_file.empty())
        browser::on_page_hidden([this] { store_settings(); }, options.settings_file);
#endif
}

void App::set_threads(int threads) {
    threads_ = wanted_threads_ = threads;
    arena_ = std::make_unique<tbb::task_arena>(threads);
}

bool App::run_frame(Loop& loop) {
    // Every moment of the frame is charged to one part (frame_stats.hpp), so the parts
    // add up to the frame.
    clock_.start_frame();
    const glm::vec2 screen(platform_.window_size());
    Requests requests;
    InputTargets targets{demo_, camera(), screen, requests, dialogs_};
    events_.clear();
    SDL_Event event;
    while (SDL_PollEvent(&event)) {
        ImGui_ImplSDL2_ProcessEvent(&event);
        events_.push_back(event);
    }
    clock_.lap(Part::kOther);
    // ImGui's new frame first, so that whether it wants the mouse is decided where the
    // mouse is now: a click or a wheel turn just after the mouse moved onto or off a
    // panel goes where the pointer is, not where it was a frame ago.
    platform_.begin_imgui_frame();
    clock_.lap(Part::kUi);
    for (const SDL_Event& e : events_) input_.handle(e, targets);
    std::vector<std::string> written;  // files to hand the browser as downloads
    if (requests.save_scene) {
        if (auto path = ui_.save_scene(demo_)) written.push_back(*path);
    }
    ++loop.frame;

    // Step first, so the panels describe the world the frame draws.
    input_.update_drag(targets);
    clock_.lap(Part::kOther);
    const bool stepped = demo_.update();
    clock_.lap(Part::kStep);
    demo_.update_race(stepped);
    clock_.lap(Part::kRace);
    demo_.update_watch(ImGui::GetIO().DeltaTime);  // the time since the last frame
    clock_.lap(Part::kStep);
    run_query();  // every frame, since the bodies move
    clock_.lap(Part::kOther);

    ui_.set_preset(preset_, preset_still_shown());
    const UiActions actions =
        ui_.draw(demo_,
                 {stats_, overlay_report_, query_report_, screen, platform_.gl_description(),
                  platform_.msaa_note(), threads_,
                  screen_footprint(camera(), demo_.world().bounds(), screen)},
                 dialogs_);
    clock_.lap(Part::kUi);
    if (actions.threads > 0) wanted_threads_ = actions.threads;  // between frames
    if (!actions.preset.empty()) show_preset(actions.preset);
    if (actions.quit) requests.quit_confirmed = true;
#ifdef __EMSCRIPTEN__
    written.insert(written.end(), actions.written.begin(), actions.written.end());
    for (const std::string& path : written) browser::offer_download(path);
    if (actions.choose_replay) browser::choose_file_and_reload("replay");
#endif
    fit_camera_if_needed(screen, requests.fit_camera || actions.fit_camera);
    // The frame in which the user quits is still drawn, so a screenshot can capture it.
    const bool quit = requests.quit || requests.quit_confirmed;
    if (requests.quit_confirmed) loop.exit = "confirmed";
    const bool last_frame = quit || (options_.frames && loop.frame >= *options_.frames);
    if (!quit && last_frame) loop.exit = "frames";
    report_state(screen, loop.frame, "running");
    clock_.lap(Part::kOther);

    const glm::ivec2 framebuffer = platform_.framebuffer_size();
    const DrawContext drawn{demo_,  camera_2d_,  camera_3d_,
                            screen, framebuffer, ui_.layout().world};
    overlay_report_ = draw_.build(drawn, query_hits_);
    clock_.lap(Part::kOverlays);
    // After the CPU's build: a query open while the CPU works times the GPU's idling.
    gpu_timer_.begin();
    const double panes_ms = draw_.draw(drawn);
    clock_.lap(Part::kDraw);
    clock_.move(Part::kDraw, Part::kRace, panes_ms);
    draw_.draw_labels(drawn);
    ImGui::Render();
    clock_.lap(Part::kUi);
    draw_.renderer().add_draw_calls(platform_.render_imgui(ImGui::GetDrawData()));
    gpu_timer_.end();
    clock_.lap(Part::kDraw);

    if (requests.screenshot) save_timestamped_screenshot(framebuffer);
    const bool shots_done =
        !options_.preset_shots.empty() && take_preset_shot(framebuffer, loop.exit_code);
    if (last_frame && !options_.screenshot.empty()) {
        try {
            save_screenshot(options_.screenshot, framebuffer);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "collidoscope: screenshot: %s\n", e.what());
            loop.exit_code = 1;
        }
    }
    clock_.lap(Part::kOther);
    platform_.swap();
    clock_.lap(Part::kPresent);

    const SimWorld& world = demo_.world();
    const WorldCounts counts = world.counts();
    stats_.record(clock_.frame_ms(), clock_.parts(), gpu_timer_.result(), stepped,
                  world.timings(),
                  {counts.moving, counts.pairs, counts.contacts,
                   world.broad_phase_stats().candidate_tests, draw_.renderer().draw_calls()});
    // A new world or algorithm (built during this frame, after its step) starts the
    // panel's means over, so a tour stop's Stats are not averaged with the last stop's.
    if (demo_.worlds_built() != measured_.first || demo_.broad_phase() != measured_.second) {
        stats_.restart_recent();
        measured_ = {demo_.worlds_built(), demo_.broad_phase()};
    }
    if (last_frame || shots_done) {
        report_state(screen, loop.frame, last_frame ? loop.exit : "shots");
        return false;
    }
    return true;
}

#ifdef __EMSCRIPTEN__
void App::run_in_browser() {
    browser::run_frames([this] {
        // As run_app does around the desktop's loop: a failure ends the run, and says why.
        try {
            const bool more = arena_->execute([&] { return run_frame(browser_loop_); });
            if (wanted_threads_ != threads_) set_threads(wanted_threads_);
            return more;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "collidoscope: %s\n", e.what());
            return false;
        }
    });
}
#endif

int App::run() {
    Loop loop;
    // The engine runs on the threads of the arena it is called from: each frame runs in the
    // app's, which a change of the Threads field replaces between frames.
    while (arena_->execute([&] { return run_frame(loop); })) {
        if (wanted_threads_ != threads_) set_threads(wanted_threads_);
    }
    int exit_code = loop.exit_code;
    if (!options_.save_scene.empty()) {
        try {
            std::printf("collidoscope: %s\n", save_scene(demo_.world(), options_.save_scene).c_str());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "collidoscope: scene not saved: %s\n", e.what());
            exit_code = 1;
        }
    }
    // A replay that met an action the command line would refuse is bad input: exit 2.
    if (demo_.replay() && !demo_.replay()->refused.empty()) {
        std::fprintf(stderr, "collidoscope: replay refused: %s\n", demo_.replay()->refused.c_str());
        exit_code = 2;
    }
    // A scripted run (--frames) reads the settings but leaves the file as it was.
    if (!options_.frames && options_.preset_shots.empty() && !options_.settings_file.empty())
        store_settings();
    if (options_.frames) print_exit_summary(demo_, stats_, platform_.gl_description());
    return exit_code;
}

void App::store_settings() const {
    Settings s;
    const glm::ivec2 size = platform_.window_size();
    s.width = size.x;
    s.height = size.y;
    s.panels = ui_.panels();
    s.overlays = demo_.view().overlays;
    s.overlays.hidden_layers = 0;  // the algorithm's layer numbers
    s.overlays_on_top = demo_.view().overlays_on_top;
    s.color_mode = demo_.view().color_mode;
    // Left unset while it is the display's, so a later display's DPI still decides.
    const float scale = ImGui::GetIO().FontGlobalScale;
    s.ui_scale = options_.ui_scale <= 0.0f && scale == display_scale_ ? 0.0f : scale;
    s.dim = demo_.dim();
    s.scene = demo_.scene();
    s.broadphase = demo_.broad_phase();
    if (preset_still_shown()) s.preset = preset_;
    try {
        save_settings(options_.settings_file, s);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "collidoscope: settings not saved: %s\n", e.what());
    }
}

void App::apply_view(const Options& options) {
    demo_.view().color_mode = options.color_mode;
    demo_.view().compare = options.compare;
    demo_.view().compare_notes.clear();
    demo_.view().overlays_on_top = options.overlays_on_top;
}

void App::show_preset(const std::string& name) {
    set_preset(name);
    const Options& wanted = *preset_options_;
    // The stop looks as --preset shows it: its world, and its view (compare panes, colours).
    demo_.show(wanted);
    apply_view(wanted);
    camera_box_ = wanted.camera;
    fitted_dim_ = 0;  // frame it on the next frame
}

void App::set_preset(const std::string& name) {
    preset_ = name;
    preset_options_.reset();
    if (!name.empty()) {
        const std::string_view args[] = {"--preset", name};
        preset_options_ = parse_cli(args).options;  // every preset parses (tests/)
    }
    ui_.set_preset(name);
}

bool App::preset_still_shown() const {
    if (!preset_options_) return false;
    const Options& o = *preset_options_;
    return o.dim == demo_.dim() && o.scene == demo_.scene() && o.count == demo_.count() &&
           o.seed == demo_.seed() && o.broadphase == demo_.broad_phase();
}

bool App::take_preset_shot(glm::ivec2 framebuffer, int& exit_code) {
    // Frame kShotFrames has the overlays; the world is then paused and the next frame, the
    // same world, is drawn without them.
    ++shot_frame_;
    if (shot_frame_ < kShotFrames) return false;
    const bool plain = shot_frame_ > kShotFrames;
    const std::string name(presets()[shot_preset_].name);
    const std::string path = options_.preset_shots + "/" + name + (plain ? "-plain" : "") + ".png";
    try {
        save_screenshot(path, framebuffer);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "collidoscope: screenshot: %s\n", e.what());
        exit_code = 1;
    }
    if (!plain) {
        demo_.set_paused(true);
        const std::uint64_t hidden = demo_.view().overlays.hidden_layers;
        demo_.view().overlays = {};
        demo_.view().overlays.hidden_layers = hidden;
        return false;
    }
    shot_frame_ = 0;
    if (++shot_preset_ == presets().size()) return true;
    show_preset(std::string(presets()[shot_preset_].name));
    return false;
}

void App::save_timestamped_screenshot(glm::ivec2 framebuffer) {
    namespace fs = std::filesystem;
    const std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
    std::error_code ec;
    const fs::path dir = fs::absolute(options_.screenshot_dir, ec);
    // Two in the same second get -2, -3, ... rather than overwriting the first.
    fs::path path = dir / (std::string("collidoscope-") + stamp + ".png");
    for (int n = 2; fs::exists(path, ec); ++n) {
        path = dir / (std::string("collidoscope-") + stamp + "-" + std::to_string(n) + ".png");
    }
    try {
        save_screenshot(path.string(), framebuffer);
        last_screenshot_ = path.string();
#ifdef __EMSCRIPTEN__
        browser::offer_download(path.string());
        ui_.toast("Screenshot downloaded: " + path.filename().string());
#else
        ui_.toast("Screenshot saved in " + dir.string() + "/\n" + path.filename().string());
#endif
    } catch (const std::exception& e) {
        ui_.toast(std::string("Screenshot failed: ") + e.what());
        std::fprintf(stderr, "collidoscope: screenshot: %s\n", e.what());
    }
}

void App::report_state(glm::vec2 screen, std::int64_t frames, const char* exit) {
    const Camera& cam = camera();
    const Box3 bounds = demo_.world().bounds();
    const glm::vec3 centre = bounds.center();
    glm::vec2 centre_px(-1.0f);
    cam.world_to_screen(centre, screen, centre_px);
    const float pixel = cam.pixel_size_at(centre, screen);
    report_.update(demo_, {dialogs_, pixel > 0.0f ? fitted_pixel_ / pixel : 0.0f, pixel, centre_px,
                           threads_, last_screenshot_, exit, ui_.layout(), stats_.breakdown(),
                           ui_.widgets(), ui_.tour_paragraph_shown(), ui_.tour_preview_fits(),
                           demo_.view().compare.empty()
                               ? std::span<const CompareView::PaneLayout>()
                               : std::span<const CompareView::PaneLayout>(draw_.compare().layout()),
                           ui_.stats_cut(), preset_still_shown() ? preset_ : std::string(),
                           frames});
}

void App::fit_camera_if_needed(glm::vec2 screen, bool asked) {
    const Box3 bounds = demo_.world().bounds();
    const std::size_t panes = demo_.view().compare.size();
    const ScreenRect view = ui_.layout().world, was = framed_view_;
    const bool view_changed =
        screen == framed_screen_ && (view.min != was.min || view.max != was.max);
    framed_view_ = view;
    framed_screen_ = screen;
    if (!asked && fitted_dim_ == demo_.dim() && same_box(bounds, fitted_bounds_) &&
        fitted_panes_ == panes) {
        if (view_changed && panes == 0) camera().reframe(was, view, screen);
        return;
    }
    if (asked) camera_box_.reset();  // C frames the whole world
    Box3 framed = camera_box_.value_or(bounds);
    // 2D: leave room under the world: structure overlays such as sort-and-sweep's sorted
    // intervals are drawn in a strip there.
    if (demo_.dim() == 2 && !camera_box_) framed.lo.y -= 0.14f * (bounds.hi.y - bounds.lo.y);
    if (panes > 0) {
        // Compare panes each draw the whole of their own viewport: frame the world in one.
        const glm::vec2 pane = compare_panes(ui_.layout().world, panes)[0].size();
        camera().fit(framed, {{0.0f, 0.0f}, pane}, pane);
    } else {
        camera().fit(framed, ui_.layout().world, screen);
    }
    fitted_pixel_ = camera().pixel_size_at(bounds.center(), screen);
    fitted_dim_ = demo_.dim();
    fitted_bounds_ = bounds;
    fitted_panes_ = panes;
}

Camera& App::camera() {
    return demo_.dim() == 2 ? static_cast<Camera&>(camera_2d_) : camera_3d_;
}

const Camera& App::camera() const {
    return demo_.dim() == 2 ? static_cast<const Camera&>(camera_2d_) : camera_3d_;
}

void App::run_query() {
    query_hits_.clear();
    query_report_ = {};
    const std::optional<Box3>& region = demo_.query();
    if (!region) return;
    const Clock::time_point start = Clock::now();
    demo_.world().query(*region, query_hits_);
    query_report_.micros = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    query_report_.found = query_hits_.size();
}

}  // namespace collidoscope
