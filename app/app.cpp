#include "app.hpp"

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

#include "cost_legend.hpp"
#include "imgui_color.hpp"
#include "scene_save.hpp"
#include "screenshot.hpp"
#include "settings_store.hpp"
#include "tooling/input_error.hpp"

namespace collidoscope {
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

constexpr float kRingPx = 7.0f;  // smallest selection ring, in pixels

bool same_box(const Box3& a, const Box3& b) {
    return a.lo == b.lo && a.hi == b.hi;
}

}  // namespace

int run_app(const Options& options) {
    // The world first: a scene that cannot be built is a usage error, reported before any
    // window appears.
    std::unique_ptr<Demo> demo;
    try {
        demo = std::make_unique<Demo>(options);
    } catch (const collide::InputError& e) {
        std::fprintf(stderr, "collidoscope: %s\nTry 'collidoscope --help' for usage.\n", e.what());
        return 2;
    }
    try {
        Platform platform("Collidoscope", options.width, options.height, options.msaa,
                          /*vsync=*/!options.frames.has_value());
        App app(options, *demo, platform);
        return app.run();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "collidoscope: %s\n", e.what());
        return 1;
    }
}

App::App(const Options& options, Demo& demo, Platform& platform)
    : options_(options), demo_(demo), platform_(platform), report_(options.report_state) {
    // What the settings file keeps (settings_store.hpp), as the options carry it.
    ui_.panels() = options.panels;
    demo_.view().color_mode = options.color_mode;
    demo_.view().compare = options.compare;
    demo_.view().overlays_on_top = options.overlays_on_top;
    ImGui::GetIO().FontGlobalScale = options.ui_scale;
    set_threads(options.threads > 0
                    ? options.threads
                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

void App::set_threads(int threads) {
    threads_ = threads;
    thread_limit_.reset();  // one limit at a time: TBB would keep the lowest of several
    thread_limit_.emplace(tbb::global_control::max_allowed_parallelism,
                          static_cast<std::size_t>(threads));
}

namespace {

// The last race, one line: each algorithm's time, and which ones differ from the reference.
void print_race(const RaceReport& race) {
    if (race.entries.empty()) return;
    std::string line = "collidoscope: race at step " + std::to_string(race.step) + " (" +
                       std::to_string(race.bodies) + " bodies, reference " + race.reference +
                       "):";
    std::string differ;
    for (const RaceEntry& e : race.entries) {
        if (!e.ran) continue;
        char part[96];
        std::snprintf(part, sizeof part, " %s %.3f ms;", e.name.c_str(), e.ms);
        line += part;
        if (e.differs) differ += " " + e.name;
    }
    std::printf("%s differ:%s\n", line.c_str(), differ.empty() ? " none" : differ.c_str());
}

}  // namespace

int App::run() {
    int exit_code = 0;
    std::int64_t frame = 0;
    const char* exit = "window";
    Clock::time_point previous = Clock::now();
    while (true) {
        const glm::vec2 screen(platform_.window_size());
        Requests requests;
        InputTargets targets{demo_, camera(), screen, requests, dialogs_};
        events_.clear();
        SDL_Event event;
        while (SDL_PollEvent(&event)) {
            ImGui_ImplSDL2_ProcessEvent(&event);
            events_.push_back(event);
        }
        // ImGui's new frame first, so that whether it wants the mouse is decided where the
        // mouse is now: a click or a wheel turn just after the mouse moved onto or off a
        // panel goes where the pointer is, not where it was a frame ago.
        platform_.begin_imgui_frame();
        for (const SDL_Event& e : events_) input_.handle(e, targets);
        if (requests.save_scene) ui_.save_scene(demo_);
        ++frame;

        // Step first, so the panels describe the world the frame draws.
        input_.update_drag(targets);
        const bool stepped = demo_.update();
        demo_.update_race(stepped);
        run_query();  // every frame, since the bodies move

        const UiActions actions = ui_.draw(
            demo_,
            {stats_, overlay_report_, query_report_, screen, platform_.gl_description(), threads_},
            dialogs_);
        if (actions.threads > 0) set_threads(actions.threads);
        if (actions.quit) requests.quit_confirmed = true;
        fit_camera_if_needed(screen, requests.fit_camera || actions.fit_camera);
        // The frame in which the user quits is still drawn, so a screenshot can capture it.
        const bool quit = requests.quit || requests.quit_confirmed;
        if (requests.quit_confirmed) exit = "confirmed";
        const bool last_frame = quit || (options_.frames && frame >= *options_.frames);
        if (!quit && last_frame) exit = "frames";
        report_state(screen, "running");

        const Clock::time_point render_start = Clock::now();
        const glm::ivec2 framebuffer = platform_.framebuffer_size();
        overlay_report_ = render_world(screen, framebuffer);
        draw_labels(screen);
        ImGui::Render();
        renderer_.add_draw_calls(platform_.render_imgui(ImGui::GetDrawData()));
        const double render_ms = ms_between(render_start, Clock::now());

        if (requests.screenshot) save_timestamped_screenshot(framebuffer);
        if (last_frame && !options_.screenshot.empty()) {
            std::string error = save_screenshot(options_.screenshot, framebuffer);
            if (!error.empty()) {
                std::fprintf(stderr, "collidoscope: screenshot: %s\n", error.c_str());
                exit_code = 1;
            }
        }
        platform_.swap();

        const Clock::time_point now = Clock::now();
        const SimWorld& world = demo_.world();
        stats_.record(ms_between(previous, now), stepped, world.timings(), render_ms,
                      {world.pair_count(), world.contact_count(),
                       world.broad_phase_stats().candidate_tests, renderer_.draw_calls()});
        previous = now;
        if (last_frame) {
            report_state(screen, exit);
            break;
        }
    }
    if (!options_.save_scene.empty()) {
        const SceneSaveResult saved = save_scene(demo_.world(), options_.save_scene);
        std::fprintf(saved.ok ? stdout : stderr, "collidoscope: %s\n", saved.message.c_str());
        if (!saved.ok) exit_code = 1;
    }
    // A scripted run (--frames) reads the settings but leaves the file as it was.
    if (!options_.frames && !options_.settings_file.empty()) store_settings();
    if (options_.frames) {
        std::fputs(stats_
                       .summary(demo_.broad_phase(), demo_.dim(), demo_.scene(),
                                demo_.world().body_count())
                       .c_str(),
                   stdout);
        print_race(demo_.race());
        std::fputs(demo_.session_summary().c_str(), stdout);
        const Physics physics = demo_.world().physics();
        if (physics.count_tunnelling) {
            const ContinuousFacts f = demo_.world().continuous_facts();
            std::printf("collidoscope: swept boxes %s; %llu pairs tunnelled in all.\n",
                        physics.swept ? "on" : "off",
                        static_cast<unsigned long long>(f.tunnelled_total));
        }
    }
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
    s.ui_scale = ImGui::GetIO().FontGlobalScale;
    s.dim = demo_.dim();
    s.scene = demo_.scene();
    s.broadphase = demo_.broad_phase();
    const std::string error = save_settings(options_.settings_file, s);
    if (!error.empty())
        std::fprintf(stderr, "collidoscope: settings not saved: %s\n", error.c_str());
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
    const std::string error = save_screenshot(path.string(), framebuffer);
    if (error.empty()) {
        last_screenshot_ = path.string();
        ui_.toast("Screenshot saved in " + dir.string() + "/\n" + path.filename().string());
    } else {
        ui_.toast("Screenshot failed: " + error);
        std::fprintf(stderr, "collidoscope: screenshot: %s\n", error.c_str());
    }
}

void App::report_state(glm::vec2 screen, const char* exit) {
    const Camera& cam = camera();
    const Box3 bounds = demo_.world().bounds();
    const glm::vec3 centre = bounds.center();
    glm::vec2 centre_px(-1.0f);
    cam.world_to_screen(centre, screen, centre_px);
    const float pixel = cam.pixel_size_at(centre, screen);
    report_.update(demo_, {dialogs_, pixel > 0.0f ? fitted_pixel_ / pixel : 0.0f, pixel, centre_px,
                           threads_, last_screenshot_, exit});
}

void App::fit_camera_if_needed(glm::vec2 screen, bool asked) {
    const Box3 bounds = demo_.world().bounds();
    const std::size_t panes = demo_.view().compare.size();
    if (!asked && fitted_dim_ == demo_.dim() && same_box(bounds, fitted_bounds_) &&
        fitted_panes_ == panes)
        return;
    Box3 framed = bounds;
    // 2D: leave room under the world: structure overlays such as sort-and-sweep's sorted
    // intervals are drawn in a strip there.
    if (demo_.dim() == 2) framed.lo.y -= 0.14f * (bounds.hi.y - bounds.lo.y);
    if (panes > 0) {
        // Compare panes each draw the whole of their own viewport: frame the world in one.
        const glm::vec2 pane = compare_panes(Ui::free_area(screen), panes)[0].size();
        camera().fit(framed, {{0.0f, 0.0f}, pane}, pane);
    } else {
        camera().fit(framed, Ui::free_area(screen), screen);
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

OverlayReport App::render_world(glm::vec2 screen, glm::ivec2 framebuffer) {
    SimWorld& world = demo_.world();
    const ViewOptions& view = demo_.view();
    renderer_.begin_frame(framebuffer);
    world.fill_instances(view.color_mode, instances_);

    OverlayRequest req;
    req.flags = view.overlays;
    req.predicted_impact = world.physics().swept;
    req.selected = demo_.selected();
    req.query = demo_.query();
    req.query_hits = query_hits_;
    const Camera& cam = camera();
    req.view = cam.visible(world.bounds(), screen);
    req.ring_right = cam.right();
    req.ring_up = cam.up();
    if (req.query) {
        // One size for all, taken at the region's centre.
        req.query_pixel = cam.pixel_size_at(req.query->center(), screen);
    }
    if (req.selected != collide::kNoBody) {
        req.min_ring_radius = kRingPx * cam.pixel_size_at(world.position(req.selected), screen);
    }
    overlays_.clear();
    world.fill_shapes(shapes_);
    if (!view.compare.empty()) {
        compare_.render(
            world, view.compare, view.color_mode, req, cam, Ui::free_area(screen), screen,
            framebuffer, instances_, renderer_,
            [&](glm::vec2 size, std::span<const Instance> bodies, const OverlayGeometry& overlays) {
                draw_scene(size, screen, framebuffer, bodies, overlays);
            });
        return {};
    }
    const OverlayReport report = world.fill_overlays(req, overlays_);
    draw_scene(screen, screen, framebuffer, instances_, overlays_);
    if (view.color_mode == ColorMode::kCost) {
        draw_cost_legend(*ImGui::GetBackgroundDrawList(), world.cost_scale(), demo_.broad_phase(),
                         Ui::free_area(screen));
    }
    return report;
}

void App::draw_scene(glm::vec2 size, glm::vec2 screen, glm::ivec2 framebuffer,
                     std::span<const Instance> bodies, const OverlayGeometry& overlays) {
    const Camera& cam = camera();
    const glm::mat4 view_proj = cam.view_proj(size);
    // The bodies are drawn differently (flat discs, lit impostors), the overlays the same.
    if (demo_.dim() == 2) {
        // GL works in framebuffer pixels, the cameras in window points; they differ on HiDPI.
        const float pixels_per_point =
            static_cast<float>(framebuffer.y) / std::max(screen.y, 1.0f);
        renderer_.draw_triangles(overlays.triangles, view_proj, false);  // under the bodies
        renderer_.draw_circles(bodies, view_proj, camera_2d_.world_per_pixel() / pixels_per_point);
        renderer_.draw_lines(shapes_.lines, view_proj, false);
        renderer_.draw_lines(overlays.lines, view_proj, false);
    } else {
        const bool depth = !demo_.view().overlays_on_top;
        renderer_.draw_spheres(bodies, camera_3d_.view(), camera_3d_.proj(size));
        renderer_.draw_mesh(shapes_.triangles, view_proj);
        renderer_.draw_triangles(overlays.triangles, view_proj, depth);
        renderer_.draw_lines(overlays.lines, view_proj, depth);
    }
}

void App::draw_labels(glm::vec2 screen) const {
    if (overlays_.labels.empty()) return;
    ImDrawList* draw = ImGui::GetBackgroundDrawList();
    for (const Label& label : overlays_.labels) {
        glm::vec2 at;
        if (!camera().world_to_screen(label.at, screen, at)) continue;
        draw->AddText(ImVec2(at.x, at.y), to_imgui(label.color), label.text.c_str());
    }
}

}  // namespace collidoscope
