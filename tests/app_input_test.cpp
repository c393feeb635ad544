// The real app driven with real input: each test starts its own Xvfb (on a display it picks
// itself, -displayfd), launches collidoscope with --report-state, sends mouse and keys with
// xdotool, and reads the app's own report of what happened. Waits poll the report with a
// generous bound, so the tests hold on a loaded machine; a check that something did NOT
// happen is made after a later action that did (events are handled in order).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/presets.hpp"
#include "collide/gpu/catalog.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr auto kWait = std::chrono::seconds(10);  // for anything the app should do

// Body 0: large, in the middle, moving; two small ones near the corners.
constexpr const char* kScene =
    "world,0,0,100,100\n"
    "x,y,r,vx,vy\n"
    "50,50,12,3,1\n"
    "15,15,3,0,0\n"
    "85,20,3,0,0\n";

pid_t spawn(const std::vector<std::string>& argv, const std::string& display,
            const std::string& log, int keep_fd = -1) {
    const pid_t pid = fork();
    if (pid != 0) return pid;
    if (!display.empty()) setenv("DISPLAY", display.c_str(), 1);
    const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out >= 0 && out != keep_fd) {
        dup2(out, STDOUT_FILENO);
        dup2(out, STDERR_FILENO);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
}

// One Xvfb and one app in it, with a scratch folder; both stopped at the end.
class Session {
public:
    // `screen`: Xvfb's screen, WxHxDEPTH.
    explicit Session(const std::string& args, const std::string& screen = "1280x720x24") {
        dir_ = fs::path(INPUT_OUT_DIR) /
               (::testing::UnitTest::GetInstance()->current_test_info()->name() +
                std::to_string(getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        std::ofstream(dir_ / "scene.csv") << kScene;
        start_xvfb(screen);
        report_ = (dir_ / "state.json").string();
        std::vector<std::string> argv = {COLLIDOSCOPE_APP, "--msaa", "0", "--report-state", report_,
                                         "--screenshot-dir", dir_.string(),
                                         // A session that quits would write the settings file;
                                         // tests neither read nor write it.
                                         "--no-settings"};
        // The small CSV scene unless the test names its own (or a preset's).
        if (args.find("--scene") == std::string::npos &&
            args.find("--preset") == std::string::npos) {
            argv.insert(argv.begin() + 1, {"--scene", "csv:" + (dir_ / "scene.csv").string()});
        }
        std::istringstream extra(args);
        for (std::string a; extra >> a;) argv.push_back(a);
        app_ = spawn(argv, display_, (dir_ / "app.log").string());
        // Ready once the window exists and the first frame wrote the report.
        wait_for([&](const json&) {
            return std::system(("DISPLAY=" + display_ +
                                " xdotool search --name '^Collidoscope$' >/dev/null 2>&1")
                                   .c_str()) == 0;
        });
        // Keys go to the window under the pointer (Xvfb has no window manager).
        xdo("mousemove " + point(centre()));
        // A few frames on, the panels have their places.
        barrier();
    }

    ~Session() {
        if (app_ > 0 && !exited_) {
            kill(app_, SIGTERM);  // SDL turns it into a quit
            waitpid(app_, nullptr, 0);
        }
        if (xvfb_ > 0) {
            kill(xvfb_, SIGTERM);
            waitpid(xvfb_, nullptr, 0);
        }
    }

    // The report, or null while it cannot be read.
    json state() const {
        std::ifstream in(report_);
        if (!in) return nullptr;
        return json::parse(in, nullptr, false);
    }

    // Polls the report until `pred` holds; fails the test and returns the last report if it
    // does not within kWait.
    json wait_for(const std::function<bool(const json&)>& pred, const char* what = "") {
        const auto deadline = Clock::now() + kWait;
        json s;
        while (Clock::now() < deadline) {
            s = state();
            if (!s.is_null() && !s.is_discarded() && pred(s)) return s;
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        ADD_FAILURE() << "timed out waiting for " << what << "; last report:\n" << s.dump(1);
        return s;
    }

    void xdo(const std::string& args) const {
        const std::string cmd = "DISPLAY=" + display_ + " xdotool " + args;
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }

    // Something that shows in the report, so that everything sent before it has been handled:
    // the help window opened and closed again.
    void barrier() {
        xdo("key F1");
        wait_for([](const json& s) { return s["help_open"] == true; }, "help to open");
        xdo("key F1");
        wait_for([](const json& s) { return s["help_open"] == false; }, "help to close");
    }

    // The app's exit status if it has quit (within `within`), else -1.
    int exit_status(std::chrono::milliseconds within) {
        const auto deadline = Clock::now() + within;
        do {
            int status = 0;
            if (waitpid(app_, &status, WNOHANG) == app_) {
                exited_ = true;
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        } while (Clock::now() < deadline);
        return -1;
    }

    // Where the world's centre (body 0's place) is on the screen.
    std::pair<int, int> centre() const {
        const json s = state();
        return {static_cast<int>(std::lround(s["world_centre_screen"][0].get<double>())),
                static_cast<int>(std::lround(s["world_centre_screen"][1].get<double>()))};
    }

    static std::string point(std::pair<int, int> p) {
        return std::to_string(p.first) + " " + std::to_string(p.second);
    }
    // The middle of a panel's title bar, or of the whole panel.
    std::pair<int, int> panel(const json& s, const char* name, bool title) const {
        const json& w = s["windows"][name];
        const double y = title ? w["y"].get<double>() + 0.5 * w["title_h"].get<double>()
                               : w["y"].get<double>() + 0.5 * w["h"].get<double>();
        return {static_cast<int>(w["x"].get<double>() + 0.5 * w["w"].get<double>()),
                static_cast<int>(y)};
    }

    // A point in a widget the report names (Ui::widgets): `across` of its width from its left
    // edge, half-way down.
    static std::pair<int, int> widget(const json& s, const char* name, double across = 0.5) {
        const json& r = s["widgets"][name];
        return {static_cast<int>(r["x"].get<double>() + across * r["w"].get<double>()),
                static_cast<int>(r["y"].get<double>() + 0.5 * r["h"].get<double>())};
    }

    const fs::path& dir() const { return dir_; }

private:
    void start_xvfb(const std::string& screen) {
        int fds[2];
        ASSERT_EQ(pipe(fds), 0);
        xvfb_ = spawn({"Xvfb", "-displayfd", std::to_string(fds[1]), "-screen", "0", screen,
                       "-nolisten", "tcp"},
                      "", (dir_ / "xvfb.log").string(), fds[1]);
        close(fds[1]);
        // Xvfb writes the display number it took once it is ready.
        std::string number;
        pollfd p{fds[0], POLLIN, 0};
        char c = 0;
        while (poll(&p, 1, 10000) > 0 && read(fds[0], &c, 1) == 1 && c != '\n') number += c;
        close(fds[0]);
        ASSERT_FALSE(number.empty()) << "Xvfb did not start";
        display_ = ":" + number;
    }

    fs::path dir_;
    std::string display_;
    std::string report_;
    pid_t xvfb_ = -1;
    pid_t app_ = -1;
    bool exited_ = false;
};

bool selected(const json& s, int id) {
    return s["selected"].is_object() && s["selected"]["id"] == id;
}

// Bug: a click was handled as a drag without motion, which smoothed the velocity to zero.
TEST(AppInput, ClickKeepsTheVelocity) {
    Session app("--paused");
    // Held as long as a hand holds a click, so that frames pass with the button down.
    app.xdo("mousemove " + Session::point(app.centre()) + " mousedown 1 sleep 0.2 mouseup 1");
    const json s = app.wait_for([](const json& s) { return selected(s, 0); }, "body 0 selected");
    EXPECT_EQ(s["selected"]["velocity"], json::array({3.0, 1.0}));
    EXPECT_EQ(s["selected"]["position"], json::array({50.0, 50.0}));
}

// Delete removes the selected body: the world holds one body fewer, and nothing is selected.
TEST(AppInput, DeleteRemovesTheSelectedBody) {
    Session app("--paused");
    app.xdo("mousemove " + Session::point(app.centre()) + " mousedown 1 sleep 0.2 mouseup 1");
    const json before = app.wait_for([](const json& s) { return selected(s, 0); }, "body 0 selected");
    const int present = before["bodies"]["moving"].get<int>() + before["bodies"]["static"].get<int>();
    ASSERT_EQ(present, 3);
    app.xdo("key Delete");
    const json after = app.wait_for(
        [](const json& s) {
            return s["bodies"]["moving"].get<int>() + s["bodies"]["static"].get<int>() == 2;
        },
        "two bodies left");
    EXPECT_TRUE(after["selected"].is_null()) << after["selected"].dump();
}

// The Spray checkbox, clicked with the real mouse, makes a left drag in the world add bodies
// along the drag instead of selecting.
TEST(AppInput, SprayDragAddsBodies) {
    Session app("--paused");
    const json s = app.wait_for([](const json& s) { return s["widgets"].contains("spray"); },
                                "the Spray checkbox");
    const json& r = s["widgets"]["spray"];
    app.xdo("mousemove " + std::to_string(r["x"].get<int>() + r["h"].get<int>() / 2) + " " +
            std::to_string(r["y"].get<int>() + r["h"].get<int>() / 2) + " click 1");
    app.wait_for([](const json& s) { return s["spray"] == true; }, "the spray tool on");
    const auto [x, y] = app.centre();
    std::string drag = "mousemove " + std::to_string(x - 60) + " " + std::to_string(y - 120) +
                       " mousedown 1";
    for (int i = 0; i < 12; ++i) drag += " sleep 0.05 mousemove_relative 0 20";
    app.xdo(drag + " mouseup 1");
    const json after = app.wait_for(
        [](const json& s) {
            return s["bodies"]["moving"].get<int>() + s["bodies"]["static"].get<int>() >= 6;
        },
        "bodies sprayed along the drag");
    EXPECT_TRUE(after["selected"].is_null()) << "a spray drag selects nothing";
}

// Bug: after using a panel, the first click in the world was ignored (ImGui's "wants the
// mouse" was still the previous frame's, when the pointer was over the panel).
TEST(AppInput, FirstClickAfterAPanelSelects) {
    Session app("--paused");
    const json s = app.state();
    app.xdo("mousemove " + Session::point(app.panel(s, "Collidoscope", true)) + " click 1");
    app.barrier();
    // Straight from the panel to the body, as one burst of events.
    app.xdo("mousemove " + Session::point(app.panel(s, "Collidoscope", true)) + " click 1 " +
            "mousemove " + Session::point(app.centre()) + " click 1");
    app.wait_for([](const json& s) { return selected(s, 0); }, "body 0 selected");
}

// Bug: the wheel over the Selected-body panel zoomed the world behind it.
TEST(AppInput, WheelOverAPanelDoesNotZoom) {
    Session app("--paused --select 0");
    const json s =
        app.wait_for([](const json& s) { return s["windows"].contains("Selected body"); },
                     "the Selected body panel");
    app.xdo("mousemove " + Session::point(app.panel(s, "Selected body", false)) +
            " click 4 click 4 click 4");
    app.barrier();
    EXPECT_EQ(app.state()["zoom"], 1.0);
    // The same wheel over the world does zoom.
    app.xdo("mousemove " + Session::point(app.centre()) + " click 4");
    app.wait_for([](const json& s) { return s["zoom"].get<double>() > 1.01; }, "a zoom");
}

// Bug: a click on the Race panel's title went through to the world and cleared the
// selection; only the title's arrow opened the panel.
TEST(AppInput, RaceTitleClickOpensItAndKeepsTheSelection) {
    Session app("--paused --select 0");
    const json s =
        app.wait_for([](const json& s) { return s["windows"].contains("Race"); }, "the Race panel");
    ASSERT_EQ(s["windows"]["Race"]["collapsed"], true);
    app.xdo("mousemove " + Session::point(app.panel(s, "Race", true)) + " click 1");
    const json after = app.wait_for(
        [](const json& s) { return s["windows"]["Race"]["collapsed"] == false; }, "Race open");
    EXPECT_TRUE(selected(after, 0)) << after.dump(1);
}

// The key of algorithm i (0-based) in the menu: 1-9, 0, then with shift.
std::string key_of(std::size_t i) {
    const std::string digit = std::to_string((i % 10 + 1) % 10);
    return i < 10 ? digit : "shift+" + digit;
}

// Bug: a double click on Bodies jumped the slider to where the mouse fell (915) and rebuilt
// the scene. Now a plain click changes nothing; the double click opens the text field, and
// a typed count rebuilds on Enter.
TEST(AppInput, DoubleClickOnBodiesRebuildsOnlyForATypedCount) {
    Session app("--scene uniform --count 300 --paused");
    const json s = app.state();
    ASSERT_GT(s["widgets"]["bodies"]["w"].get<double>(), 10.0) << s.dump(1);
    app.xdo("mousemove " + Session::point(Session::widget(s, "bodies", 0.6)));
    app.xdo("click --repeat 2 --delay 150 1");
    // Frames pass (the text field holds the keys, so no key barrier): the world is as it was.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_EQ(app.state()["count"], 300);
    // The field opens with its text selected. Return is held across frames: a key pressed and
    // released between two frames of a loaded machine would not be seen.
    app.xdo("type 500");
    app.xdo("keydown Return");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    app.xdo("keyup Return");
    app.wait_for([](const json& s) { return s["count"] == 500; }, "the typed count");
    // One click alone leaves the count.
    app.xdo("click 1");
    app.barrier();
    EXPECT_EQ(app.state()["count"], 500);
}

// Bug: a missed double click on Bodies, then "100000" typed, switched the algorithm at each
// digit (to brute force, then to centred-interval-tree). Digits typed over a panel now change
// nothing; over the world a digit still picks its algorithm.
TEST(AppInput, DigitsTypedOverAPanelKeepTheAlgorithm) {
    Session app("--scene uniform --count 300 --paused --broadphase sort-and-sweep");
    const json s = app.state();
    app.xdo("mousemove " + Session::point(Session::widget(s, "bodies", 0.6)) + " click 1");
    app.xdo("type 100000");
    app.barrier();
    const json after = app.state();
    EXPECT_EQ(after["algorithm"], "sort-and-sweep");
    EXPECT_EQ(after["count"], 300);
    app.xdo("mousemove " + Session::point(app.centre()) + " sleep 0.2 mousemove_relative 1 1");
    app.barrier();
    app.xdo("key 1");
    const json switched = app.wait_for(
        [](const json& s) { return s["algorithm"] != "sort-and-sweep"; }, "key 1 over the world");
    EXPECT_EQ(switched["algorithm"], "brute-force");
}

// Bug: the Stats panel's means carried over from one world to the next: 800 bodies read
// "5.6 fps, step 68.8 ms" for seconds after Back from the a-million stop. A new world (here
// R, a reset, which builds it again as a tour stop does) starts them over.
TEST(AppInput, StatsStartOverWithANewWorld) {
    Session app("--scene uniform --count 2000");
    app.wait_for([](const json& s) { return s["frame"]["steps"] == 120; }, "120 steps measured");
    app.xdo("key p");
    app.wait_for([](const json& s) { return s["paused"] == true; }, "paused");
    app.xdo("key r");
    app.barrier();
    const json s = app.state();
    EXPECT_EQ(s["paused"], true);
    EXPECT_EQ(s["frame"]["steps"], 0) << "the step's means still hold the last world's steps";
}

// Bug: Tab promised that the world fills the window, but it kept its size and place and left
// an empty band where the panels had been. Now what the view showed fills the whole window.
TEST(AppInput, TabLetsTheWorldFillTheWindow) {
    Session app("--scene uniform --count 300 --paused");
    const json before = app.state();
    app.xdo("key Tab");
    app.wait_for([](const json& s) { return s["ui_hidden"] == true; }, "the panels hidden");
    app.barrier();
    const json now = app.state();
    const auto centre_of = [](const json& r) {
        return std::pair(r["x"].get<double>() + 0.5 * r["w"].get<double>(),
                         r["y"].get<double>() + 0.5 * r["h"].get<double>());
    };
    EXPECT_EQ(now["world_view"]["w"], now["screen"][0]);
    EXPECT_EQ(now["world_view"]["h"], now["screen"][1]);
    const double zoomed = before["world_per_point"].get<double>() / now["world_per_point"].get<double>();
    EXPECT_GT(zoomed, 1.1) << "the world kept its size";
    // The world's centre keeps its place relative to the view's centre, scaled by the zoom.
    const auto [vx0, vy0] = centre_of(before["world_view"]);
    const auto [vx1, vy1] = centre_of(now["world_view"]);
    EXPECT_NEAR(now["world_centre_screen"][0].get<double>() - vx1,
                (before["world_centre_screen"][0].get<double>() - vx0) * zoomed, 2.0);
    EXPECT_NEAR(now["world_centre_screen"][1].get<double>() - vy1,
                (before["world_centre_screen"][1].get<double>() - vy0) * zoomed, 2.0);

    // Bug: each hide and show zoomed out by half again (1.0, 1.16, 0.59, 0.35...). Tab again
    // puts back the view it took away.
    app.xdo("key Tab");
    app.wait_for([](const json& s) { return s["ui_hidden"] == false; }, "the panels shown");
    app.barrier();
    const json back = app.state();
    EXPECT_NEAR(back["world_per_point"].get<double>(), before["world_per_point"].get<double>(),
                1e-3 * before["world_per_point"].get<double>());
    EXPECT_NEAR(back["world_centre_screen"][0].get<double>(),
                before["world_centre_screen"][0].get<double>(), 1.0);
    EXPECT_NEAR(back["world_centre_screen"][1].get<double>(),
                before["world_centre_screen"][1].get<double>(), 1.0);
}

// Bug: F12's message was drawn at the window's foot, under the Timeline panel, where it could
// not be read. It sits at the foot of the world view now, over no panel.
TEST(AppInput, ScreenshotMessageIsOverNoPanel) {
    Session app("--scene uniform --count 300 --paused");
    app.wait_for([](const json& s) { return s["windows"].contains("Timeline"); }, "the Timeline");
    app.xdo("key F12");
    const json s = app.wait_for([](const json& s) { return s["windows"].contains("Message"); },
                                "the screenshot's message");
    const json& message = s["windows"]["Message"];
    const json& view = s["world_view"];
    const json& timeline = s["windows"]["Timeline"];
    const double bottom = message["y"].get<double>() + message["h"].get<double>();
    EXPECT_LE(bottom, view["y"].get<double>() + view["h"].get<double>()) << s["windows"];
    EXPECT_LE(bottom, timeline["y"].get<double>()) << "under the Timeline: " << s["windows"];
    EXPECT_GE(message["x"].get<double>(), view["x"].get<double>()) << s["windows"];
}

// Bug: the Stats panel cut its labels: "broad pha" and "present / w" at --ui-scale 2,
// "Structure memor" at 1x. At both scales every label now has its room (the parts' shares
// give way to the bar where the three columns would not fit).
TEST(AppInput, StatsLabelsFitAtEveryScale) {
    for (const char* scale : {"1", "2"}) {
        Session app(std::string("--scene uniform --count 300 --broadphase centred-interval-tree "
                                "--ui-scale ") +
                    scale);
        const json s = app.wait_for(
            [](const json& s) { return s["windows"].contains("Stats") && s.contains("stats_cut"); },
            "the Stats panel");
        EXPECT_EQ(s["stats_cut"], json::array()) << "--ui-scale " << scale;
    }
}

// Bug: the compare view ran brute force at 100,000 bodies (5e9 tests, 12 s a frame), so a key
// took seconds to act. Now the pane sits out over its time budget and says why, and a key
// press takes effect within a second.
TEST(AppInput, CompareViewAtAHundredThousandStaysResponsive) {
    Session app("--scene uniform --count 100000 --compare brute-force,sort-and-sweep");
    const json s = app.wait_for([](const json& s) { return s["compare_notes"].size() == 2; },
                                "the compare panes");
    EXPECT_NE(s["compare_notes"][0].get<std::string>().find(
                  "brute-force: 5.0e+09 tests at this n, paused"),
              std::string::npos)
        << s["compare_notes"];
    EXPECT_EQ(s["compare_notes"][1], "");
    const bool paused = s["paused"].get<bool>();
    const auto start = Clock::now();
    app.xdo("key p");
    app.wait_for([&](const json& s) { return s["paused"] != paused; }, "the pause key");
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));
}

// Bug: "Run once" on the brute-force pane at 100,000 bodies froze the window for 85 s and
// then showed nothing. The button is now refused there, its tooltip saying why, and a click
// on it leaves the window answering at once.
TEST(AppInput, RunOnceRefusesWhatWouldFreezeTheWindow) {
    Session app("--scene uniform --count 100000 --compare brute-force,sort-and-sweep");
    const json s = app.wait_for([](const json& s) { return s["widgets"].contains("run_once_1"); },
                                "the Run once button");
    app.xdo("mousemove " + Session::point(Session::widget(s, "run_once_1")) +
            " sleep 0.2 mousemove_relative 1 1 click 1");
    const bool paused = s["paused"].get<bool>();
    const auto start = Clock::now();
    app.xdo("mousemove " + Session::point(app.centre()) + " key p");
    app.wait_for([&](const json& s) { return s["paused"] != paused; }, "the pause key");
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(2));
    EXPECT_NE(app.state()["compare_notes"][0].get<std::string>().find("paused"),
              std::string::npos);
}

// What a tour stop shows: its world, selection and view (compare panes, colours, overlays).
json stop_view(const json& s) {
    return {{"algorithm", s["algorithm"]},
            {"dim", s["dim"]},
            {"scene", s["scene"]},
            {"count", s["count"]},
            {"seed", s["seed"]},
            {"compare", s["compare"]},
            {"color_mode", s["color_mode"]},
            {"overlays", s["overlays"]},
            {"selected", s["selected"].is_object() ? s["selected"]["id"] : json(nullptr)}};
}

// Bug: stop 4 (two panes coloured by cost) showed one pane coloured by speed when reached
// with Next or Back, and leaving it with Next kept its panes. Every stop reached by Next and
// Back now looks as it does started with --preset.
TEST(AppInput, TourStopsByNextAndBackLookAsTheirPresets) {
    std::vector<json> want;
    for (const collidoscope::Preset& p : collidoscope::presets()) {
        Session app("--paused --preset " + std::string(p.name));
        want.push_back(stop_view(app.state()));
    }
    Session app("--paused --preset " + std::string(collidoscope::presets().front().name));
    const auto click = [&](const char* widget) {
        app.xdo("mousemove " + Session::point(Session::widget(app.state(), widget)));
        app.xdo("click 1");
    };
    for (std::size_t i = 1; i < want.size(); ++i) {
        click("tour_next");
        const json got = app.wait_for([&](const json& s) { return stop_view(s) == want[i]; },
                                      collidoscope::presets()[i].name.data());
        EXPECT_EQ(stop_view(got), want[i]) << "Next to " << collidoscope::presets()[i].name;
    }
    for (std::size_t i = want.size() - 1; i-- > 0;) {
        click("tour_back");
        const json got = app.wait_for([&](const json& s) { return stop_view(s) == want[i]; },
                                      collidoscope::presets()[i].name.data());
        EXPECT_EQ(stop_view(got), want[i]) << "Back to " << collidoscope::presets()[i].name;
    }
}

// Bug: the tour's list box showed the stop's title, cut off at the panel's width. It shows
// the stop's number and name, whole, at every stop and in a small window too.
TEST(AppInput, TourListBoxShowsItsTextWhole) {
    for (const char* size : {"1280x720x24", "640x480x24"}) {
        Session app("--paused --preset welcome", size);
        for (std::size_t i = 0; i < collidoscope::presets().size(); ++i) {
            const json s = app.state();
            EXPECT_EQ(s["tour_preview_fits"], true)
                << size << " " << collidoscope::presets()[i].name;
            if (i + 1 == collidoscope::presets().size()) break;
            app.xdo("mousemove " + Session::point(Session::widget(s, "tour_next")));
            app.xdo("click 1");
            const std::string next(collidoscope::presets()[i + 1].name);
            app.wait_for([&](const json& s) { return s["scene"].is_string(); }, next.c_str());
            app.barrier();
        }
    }
}

// Bug: in the compare view coloured by cost, each pane's scale bar was wider than the pane
// and was drawn over its neighbour or the panel. Each now lies inside its pane.
TEST(AppInput, CompareScaleBarsStayInTheirPanes) {
    for (const char* size : {"1280x720", "800x600"}) {
        Session app(std::string("--preset compare-centerline --size ") + size,
                    std::string(size) + "x24");
        const json s = app.wait_for(
            [](const json& s) {
                return s["compare_layout"].size() == 2 && s["compare_layout"][1]["legend"]["w"] > 0;
            },
            "two panes with their scale bars");
        for (const json& p : s["compare_layout"]) {
            const json& pane = p["pane"];
            const json& bar = p["legend"];
            EXPECT_GE(bar["x"].get<double>(), pane["x"].get<double>()) << p;
            EXPECT_LE(bar["x"].get<double>() + bar["w"].get<double>(),
                      pane["x"].get<double>() + pane["w"].get<double>())
                << p;
            EXPECT_GE(bar["y"].get<double>(), pane["y"].get<double>()) << p;
        }
    }
}

// Bug: the tour kept showing the 3D stop's paragraph after a switch to 2D. It is put away
// once the world is no longer the stop's.
TEST(AppInput, TourParagraphGoesWhenTheWorldChanges) {
    Session app("--paused --preset octree-3d");
    const json s = app.state();
    EXPECT_EQ(s["tour_paragraph"], true);
    const json& r = s["widgets"]["dim_2d"];
    app.xdo("mousemove " + std::to_string(r["x"].get<int>() + r["h"].get<int>() / 2) + " " +
            std::to_string(r["y"].get<int>() + r["h"].get<int>() / 2));
    app.xdo("click 1");
    app.wait_for([](const json& s) { return s["dim"] == 2 && s["tour_paragraph"] == false; },
                 "2D without the 3D stop's paragraph");
}

// The GPU world's checkbox, clicked with the real mouse: the bodies move to the GPU world
// (llvmpipe's compute here) and go on stepping there; a second click brings them back.
TEST(AppInput, GpuWorldCheckboxTakesTheBodiesThereAndBack) {
    Session app("--scene uniform --count 3000");
    const auto click = [&](const json& s) {
        app.xdo("mousemove " + Session::point(Session::widget(s, "gpu_world")) + " click 1");
    };
    json s = app.wait_for([](const json& s) { return s["widgets"].contains("gpu_world"); },
                          "the GPU world checkbox");
    ASSERT_EQ(s["gpu_world"], false);
    click(s);
    s = app.wait_for([](const json& s) { return s["gpu_world"] == true; }, "on the GPU world");
    const auto from = s["steps"].get<std::uint64_t>();
    s = app.wait_for([&](const json& s) { return s["steps"].get<std::uint64_t>() > from + 5; },
                     "steps on the GPU world");
    EXPECT_EQ(s["algorithm"], "sort-and-sweep") << "kept for the way back";
    click(s);
    app.wait_for([](const json& s) { return s["gpu_world"] == false; }, "back on the CPU world");
}

// Bug: the legend covered about a quarter of the world view at 1280x720 (morton-cells, every
// overlay on). It now goes beside the bodies where it fits, and elsewhere shrinks to a
// one-line button that opens it over them.
TEST(AppInput, LegendCoversNoBodyUntilOpened) {
    const auto overlap = [](const json& a, const json& b) {
        const double w = std::min(a["x"].get<double>() + a["w"].get<double>(),
                                  b["x"].get<double>() + b["w"].get<double>()) -
                         std::max(a["x"].get<double>(), b["x"].get<double>());
        const double h = std::min(a["y"].get<double>() + a["h"].get<double>(),
                                  b["y"].get<double>() + b["h"].get<double>()) -
                         std::max(a["y"].get<double>(), b["y"].get<double>());
        return std::max(w, 0.0) * std::max(h, 0.0);
    };
    const auto legend_drawn = [](const json& s) {
        return s["widgets"]["legend"]["w"] > 0 && s["widgets"]["bodies_on_screen"]["w"] > 0;
    };
    const char* scene =
        "--paused --scene uniform --broadphase morton-cells --count 20000 --overlay all";
    {
        // The world fills the view's height: no strip beside it holds the legend.
        Session app(scene);
        json s = app.wait_for(legend_drawn, "the legend");
        const json& toggle = s["widgets"]["legend_toggle"];
        ASSERT_GT(toggle["w"], 0) << "a legend that does not fit is a button";
        EXPECT_EQ(overlap(s["widgets"]["legend"], s["widgets"]["bodies_on_screen"]), 0.0)
            << s["widgets"];
        const std::string at = std::to_string(toggle["x"].get<int>() + 10) + " " +
                               std::to_string(toggle["y"].get<int>() + toggle["h"].get<int>() / 2);
        app.xdo("mousemove " + at + " click 1");
        s = app.wait_for([](const json& s) { return s["widgets"]["legend"]["h"] > 100; },
                         "the legend opened by its button");
        app.xdo("mousemove " + at + " click 1");
        app.wait_for([](const json& s) { return s["widgets"]["legend"]["h"] < 40; },
                     "the legend closed again");
    }
    {
        // Zoomed out, the bodies leave room: the whole legend, beside them.
        Session app(std::string(scene) + " --camera -150,-150,250,250");
        const json s = app.wait_for([](const json& s) { return s["widgets"]["legend"]["h"] > 100; },
                                    "the whole legend");
        EXPECT_EQ(s["widgets"]["legend_toggle"]["w"], 0);
        EXPECT_EQ(overlap(s["widgets"]["legend"], s["widgets"]["bodies_on_screen"]), 0.0)
            << s["widgets"];
    }
    // Nor for a frame while it grows: the density tint's row appears on the second frame,
    // and ImGui sizes a window from its last frame's content (a screenshot of frame 3 had
    // the whole legend over the bodies).
    for (int frames = 2; frames <= 5; ++frames) {
        const fs::path report =
            fs::path(INPUT_OUT_DIR) /
            ("legend-frames-" + std::to_string(frames) + "-" + std::to_string(getpid()) + ".json");
        const std::string cmd = std::string("SDL_VIDEODRIVER=offscreen ") + COLLIDOSCOPE_APP +
                                " --no-settings --msaa 0 " + scene + " --frames " +
                                std::to_string(frames) + " --report-state " + report.string() +
                                " >/dev/null 2>&1";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        std::ifstream in(report);
        const json s = json::parse(in, nullptr, false);
        ASSERT_FALSE(s.is_discarded()) << report;
        EXPECT_EQ(overlap(s["widgets"]["legend"], s["widgets"]["bodies_on_screen"]), 0.0)
            << "frame " << frames << ": " << s["widgets"];
    }
}

// Every algorithm of a dimension has a key, and [ ] step through them all.
TEST(AppInput, EveryAlgorithmIsReachableFromTheKeyboard) {
    Session app("--paused");
    std::vector<std::string> names;
    for (const collide::BroadPhaseEntry& e : collide::all_broadphases()) {
        if (e.supports(2)) names.emplace_back(e.name);
    }
    ASSERT_LE(names.size(), 20u) << "more algorithms than digit keys: only [ ] reach the rest";
    // Backwards, so that each key changes the algorithm (the first is the default's neighbour).
    for (std::size_t i = names.size(); i-- > 0;) {
        app.xdo("key " + key_of(i));
        app.wait_for([&](const json& s) { return s["algorithm"] == names[i]; }, names[i].c_str());
    }
    for (std::size_t i = 1; i <= names.size(); ++i) {
        app.xdo("key bracketright");
        const std::string& want = names[i % names.size()];
        app.wait_for([&](const json& s) { return s["algorithm"] == want; }, want.c_str());
    }
    app.xdo("key bracketleft");
    app.wait_for([&](const json& s) { return s["algorithm"] == names.back(); }, "[");
}

// Bug: Esc with nothing to clear quit at once. Now it asks: Enter quits, any other key stays.
TEST(AppInput, EscAsksBeforeQuitting) {
    Session app("--paused --select 0");
    app.xdo("key Escape");  // first it deselects
    app.wait_for([](const json& s) { return s["selected"].is_null(); }, "deselected");
    EXPECT_EQ(app.state()["quit_prompt"], false);
    for (const char* stay : {"x", "Escape"}) {
        app.xdo("key Escape");
        app.wait_for([](const json& s) { return s["quit_prompt"] == true; }, "the quit prompt");
        app.xdo(std::string("key ") + stay);
        app.wait_for([](const json& s) { return s["quit_prompt"] == false; }, "prompt gone");
        EXPECT_EQ(app.exit_status(std::chrono::milliseconds(0)), -1) << "quit after " << stay;
    }
    app.xdo("key Escape");
    app.wait_for([](const json& s) { return s["quit_prompt"] == true; }, "the quit prompt");
    app.xdo("key Return");
    EXPECT_EQ(app.exit_status(std::chrono::milliseconds(10000)), 0);
    EXPECT_EQ(app.state()["exit"], "confirmed");
}

// Bug: dragging a body while paused moved it, but the structure (overlay, panel) still held
// it at its old place until the next step.
// The line the pseudocode pane lights says what the event does.
void expect_line_matches_event(const json& w) {
    const std::string step = w["step"], line = w["line_text"];
    ASSERT_GE(w["line"].get<int>(), 0) << w;
    if (step == "test") {
        EXPECT_TRUE(line.find("test") != std::string::npos ||
                    line.find("overlap") != std::string::npos)
            << w;
    }
    if (step == "emit") EXPECT_NE(line.find("report"), std::string::npos) << w;
}

TEST(AppInput, WatchStepsBackPlaysScrubsAndCloses) {
    Session app("--scene uniform --count 40 --seed 5 --broadphase sort-and-sweep");
    const auto watch = [](const json& s) { return s["watch"]; };
    app.xdo("key w");
    json s = app.wait_for([&](const json& s) { return !watch(s).is_null() && watch(s)["events"] > 20; },
                          "Watch to open with a recording");
    EXPECT_TRUE(s["paused"]) << "opening Watch pauses the world";
    EXPECT_EQ(watch(s)["position"], 0);
    for (int i = 1; i <= 3; ++i) {
        app.xdo("key Right");
        s = app.wait_for([&](const json& s) { return watch(s)["position"] == i; }, "a step");
        expect_line_matches_event(watch(s));
    }
    app.xdo("key Left");
    s = app.wait_for([&](const json& s) { return watch(s)["position"] == 2; }, "one back");
    expect_line_matches_event(watch(s));
    // The Step button steps too.
    app.xdo("mousemove " + Session::point(Session::widget(s, "watch_step")) + " click 1");
    s = app.wait_for([&](const json& s) { return watch(s)["position"] == 3; }, "the step button");

    // Play at a set speed: drag the speed slider to its right end (10,000 a second).
    const auto speed_lo = Session::widget(s, "watch_speed", 0.02);
    const auto speed_hi = Session::widget(s, "watch_speed", 0.99);
    app.xdo("mousemove " + Session::point(speed_lo) + " mousedown 1 mousemove_relative " +
            std::to_string(speed_hi.first - speed_lo.first) + " 0 mouseup 1");
    s = app.wait_for([&](const json& s) { return watch(s)["speed"] > 5000; }, "the speed set");
    app.xdo("key space");
    s = app.wait_for([&](const json& s) { return watch(s)["position"] == watch(s)["events"]; },
                     "play to reach the end");
    EXPECT_FALSE(watch(s)["playing"]) << "play stops at the end";

    // Scrub: a click at the scrubber's left quarter goes to about a quarter of the events.
    app.xdo("mousemove " + Session::point(Session::widget(s, "watch_scrub", 0.25)) + " click 1");
    s = app.wait_for(
        [&](const json& s) {
            const double at = watch(s)["position"].get<double>() / watch(s)["events"].get<double>();
            return at > 0.15 && at < 0.35;
        },
        "the scrubber to seek");
    if (!watch(s)["step"].is_null()) expect_line_matches_event(watch(s));

    app.xdo("key w");
    app.wait_for([&](const json& s) { return watch(s).is_null(); }, "Watch to close");
}

TEST(AppInput, WatchQuizAsksBeforeEachTest) {
    Session app("--scene uniform --count 40 --seed 5 --broadphase brute-force --watch --watch-quiz");
    const auto watch = [](const json& s) { return s["watch"]; };
    json s = app.wait_for([&](const json& s) { return !watch(s).is_null() && watch(s)["events"] > 0; },
                          "Watch open");
    // brute force: a phase, a cursor, then the first test, which waits for a guess.
    for (int i = 0; i < 4; ++i) app.xdo("key Right");
    s = app.wait_for([&](const json& s) { return watch(s)["question"] == true; }, "a question");
    const int at = watch(s)["position"];
    app.xdo("key Right");
    app.barrier();
    EXPECT_EQ(app.state()["watch"]["position"], at) << "a step waits for the answer";
    app.xdo("mousemove " + Session::point(Session::widget(s, "watch_miss")) + " click 1");
    s = app.wait_for([&](const json& s) { return watch(s)["position"] == at + 1; }, "the answer");
    EXPECT_EQ(watch(s)["step"], "test");
}

// With a query region, the recording ends with the query on the structure it built: the
// regions its trace looked in and skipped, then each body it returned.
TEST(AppInput, WatchPlaysTheQueryAfterTheUpdate) {
    Session app("--scene uniform --count 200 --seed 3 --broadphase quadtree --query 20,20,40,40 "
                "--watch --watch-event found");
    const json s = app.wait_for([](const json& s) { return !s["watch"].is_null(); }, "Watch");
    const json& w = s["watch"];
    EXPECT_EQ(w["phase"], "query") << w;
    EXPECT_EQ(w["step"], "found") << w;
    EXPECT_NE(w["line_text"].get<std::string>().find("return"), std::string::npos) << w;
    app.xdo("key Left");
    const json b = app.wait_for(
        [&](const json& t) { return t["watch"]["position"] == w["position"].get<int>() - 1; },
        "one back");
    EXPECT_EQ(b["watch"]["phase"], "query") << "the quadtree's query traces its nodes: "
                                             << b["watch"];
}

TEST(AppInput, WatchSaysWhyAGpuRowIsNotRecordedAndFocusesALargeWorld) {
    {
        Session app("--scene uniform --count 500 --broadphase gpu-grid --watch");
        const json s = app.wait_for([](const json& s) { return !s["watch"].is_null(); }, "Watch");
        EXPECT_NE(s["watch"]["not_recorded"], "") << s["watch"];
        EXPECT_EQ(s["watch"]["events"], 0);
    }
    {
        // Over the bound only the selection's events are kept; the rest are counted.
        Session app("--scene uniform --count 20000 --select 7 --broadphase sort-and-sweep --watch "
                    "--watch-event selected");
        const json s = app.wait_for([](const json& s) { return !s["watch"].is_null(); }, "Watch");
        EXPECT_FALSE(s["watch"]["everything"]) << s["watch"];
        EXPECT_GT(s["watch"]["events"], 0);
        EXPECT_NE(s["watch"]["text"].get<std::string>().find("#7"), std::string::npos)
            << "starts at the selection's first event: " << s["watch"];
    }
}

TEST(AppInput, DragWhilePausedUpdatesTheStructure) {
    Session app("--paused --select 0 --broadphase spatial-hash --overlay structure");
    app.xdo("key o");  // one step builds the structure
    const json before = app.wait_for(
        [](const json& s) {
            return s["steps"] == 1 && !s["selected"]["describe"].get<std::string>().empty();
        },
        "one step");
    const std::string cell_before = before["selected"]["describe"];
    // Drag body 0 from the centre towards the top left corner of the world, in a few moves.
    const auto [cx, cy] = app.centre();
    const int reach = static_cast<int>(30.0 / before["world_per_point"].get<double>());
    std::string moves = "mousemove " + Session::point({cx, cy}) + " mousedown 1";
    for (int k = 1; k <= 5; ++k) {
        moves += " mousemove " + Session::point({cx - reach * k / 5, cy - reach * k / 5}) +
                 " sleep 0.05";
    }
    app.xdo(moves + " sleep 0.3 mouseup 1");
    const json after = app.wait_for(
        [](const json& s) { return s["selected"]["position"][0].get<double>() < 30.0; },
        "body 0 dragged");
    EXPECT_EQ(after["steps"], 1) << "the drag stepped the world";
    // spatial-hash names the fat box it bucketed the body by; it must hold the body now.
    const std::string text = after["selected"]["describe"];
    EXPECT_NE(text, before["selected"]["describe"].get<std::string>());
    const std::size_t at = text.find("Fat box (");
    ASSERT_NE(at, std::string::npos) << text;
    double lo_x = 0, lo_y = 0, hi_x = 0, hi_y = 0;
    ASSERT_EQ(std::sscanf(text.c_str() + at, "Fat box (%lf, %lf) - (%lf, %lf)", &lo_x, &lo_y, &hi_x,
                          &hi_y),
              4)
        << text;
    const double x = after["selected"]["position"][0], y = after["selected"]["position"][1];
    EXPECT_TRUE(lo_x <= x && x <= hi_x && lo_y <= y && y <= hi_y)
        << "body at " << x << ", " << y << "; " << text;
}

// A panel's or the world view's rectangle in the report.
struct Box {
    std::string name;
    double x0, y0, x1, y1;
};

Box box_of(const std::string& name, const json& r) {
    const double x = r["x"], y = r["y"], w = r["w"], h = r["h"];
    return {name, x, y, x + w, y + h};
}

bool overlap(const Box& a, const Box& b) {
    constexpr double kSlack = 0.5;  // touching edges are no overlap
    return a.x0 < b.x1 - kSlack && b.x0 < a.x1 - kSlack && a.y0 < b.y1 - kSlack &&
           b.y0 < a.y1 - kSlack;
}

// Every panel lies inside the window, none overlaps another, none covers the world view, and
// the world view keeps a useful size.
void expect_layout_holds(const json& s) {
    const double sw = s["screen"][0], sh = s["screen"][1];
    const Box world = box_of("world view", s["world_view"]);
    EXPECT_GT(world.x1 - world.x0, 0.3 * sw) << s.dump(1);
    EXPECT_GT(world.y1 - world.y0, 0.5 * sh) << s.dump(1);
    std::vector<Box> panels;
    for (const auto& [name, w] : s["windows"].items()) panels.push_back(box_of(name, w));
    for (std::size_t i = 0; i < panels.size(); ++i) {
        const Box& a = panels[i];
        EXPECT_TRUE(a.x0 >= 0 && a.y0 >= 0 && a.x1 <= sw + 0.5 && a.y1 <= sh + 0.5)
            << a.name << " runs off the " << sw << "x" << sh << " window";
        EXPECT_FALSE(overlap(a, world)) << a.name << " covers the world view";
        for (std::size_t k = i + 1; k < panels.size(); ++k) {
            EXPECT_FALSE(overlap(a, panels[k])) << a.name << " overlaps " << panels[k].name;
        }
    }
}

// The frame's parts add up to the frame, and the named ones explain most of it.
void expect_frame_adds_up(const json& s) {
    const json& f = s["frame"];
    const double frame = f["frame_ms"];
    double sum = 0.0;
    for (const auto& [name, ms] : f["parts_ms"].items()) {
        EXPECT_GE(ms.get<double>(), 0.0) << name;
        sum += ms.get<double>();
    }
    EXPECT_GT(frame, 0.0);
    EXPECT_NEAR(sum, frame, 0.01 + 1e-3 * frame) << f.dump(1);
    for (const char* part : {"UI build", "draw submission", "present / wait"}) {
        EXPECT_GT(f["parts_ms"][part].get<double>(), 0.0) << part;
    }
    EXPECT_LT(f["parts_ms"]["other"].get<double>(), 0.5 * frame) << f.dump(1);
    EXPECT_TRUE(f["gpu_ms"].is_number() || f["gpu_ms"] == "n/a") << f["gpu_ms"];
}

// Bug: the Selected-body panel slid up over Stats and Race and hid its own title, and the
// race list ran below the window. One launch: 1280x720, then the window made 1920x1080,
// then Tab hides every panel and shows them again.
TEST(AppLayout, PanelsNeitherOverlapNorCoverTheWorld) {
    Session app("--select 0 --race --ui-scale 1", "1920x1080x24");
    const auto all_shown = [](const json& s) {
        const json& w = s["windows"];
        return w.contains("Collidoscope") && w.contains("Stats") && w.contains("Timeline") &&
               w.contains("Selected body") && w.contains("Race") &&
               w["Race"]["collapsed"] == false && s["frame"]["frames"].get<int>() >= 20;
    };
    json s = app.wait_for(all_shown, "every panel at 1280x720");
    EXPECT_EQ(s["screen"], json::array({1280.0, 720.0}));
    expect_layout_holds(s);
    expect_frame_adds_up(s);

    app.xdo("search --name '^Collidoscope$' windowmove 0 0 windowsize 1920 1080");
    s = app.wait_for([&](const json& s) { return s["screen"][0] == 1920.0 && all_shown(s); },
                     "1920x1080");
    expect_layout_holds(s);

    app.xdo("key Tab");
    s = app.wait_for([](const json& s) { return s["ui_hidden"] == true; }, "Tab to hide");
    s = app.wait_for([](const json& s) { return !s["windows"].contains("Stats"); }, "no panels");
    EXPECT_EQ(box_of("", s["world_view"]).x1 - box_of("", s["world_view"]).x0, 1920.0);
    app.xdo("key Tab");
    app.wait_for([](const json& s) { return s["windows"].contains("Stats"); }, "Tab to show");
}

}  // namespace
