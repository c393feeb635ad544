// The app's layout model (app/ui_layout.*) on its own: at the window sizes and UI scales the
// app is checked at, with and without a selection and the race, no panel overlaps another
// or the world view, and the right column's panels share its height as their content asks.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "ui/ui_layout.hpp"

namespace collidoscope {
namespace {

bool overlap(const ScreenRect& a, const ScreenRect& b) {
    const bool empty = a.size().x <= 0 || a.size().y <= 0 || b.size().x <= 0 || b.size().y <= 0;
    return !empty && a.min.x < b.max.x && b.min.x < a.max.x && a.min.y < b.max.y &&
           b.min.y < a.max.y;
}

TEST(UiLayout, NothingOverlapsAtTheCheckedSizesAndScales) {
    for (const glm::vec2 screen : {glm::vec2(1280, 720), glm::vec2(1920, 1080)}) {
        for (const float scale : {1.0f, 1.5f}) {
            for (const bool extras : {false, true}) {
                LayoutInput in;
                in.screen = screen;
                in.ui_scale = scale;
                in.race_open = extras;
                in.selection = extras;
                in.stats_wants = 600.0f * scale;  // more than the column holds
                in.race_wants = 500.0f * scale;
                in.selection_wants = 400.0f * scale;
                const UiLayout l = compute_layout(in);
                const std::array<ScreenRect, 6> all = {l.left,      l.stats,    l.race,
                                                       l.selection, l.timeline, l.world};
                const std::string where = std::to_string(static_cast<int>(screen.x)) + " at " +
                                          std::to_string(scale) + (extras ? " with extras" : "");
                for (std::size_t i = 0; i < all.size(); ++i) {
                    EXPECT_GE(all[i].min.x, 0.0f) << where << " rect " << i;
                    EXPECT_LE(all[i].max.y, screen.y) << where << " rect " << i;
                    for (std::size_t k = i + 1; k < all.size(); ++k) {
                        EXPECT_FALSE(overlap(all[i], all[k])) << where << ": " << i << " " << k;
                    }
                }
                EXPECT_GT(l.world.size().x, 0.3f * screen.x) << where;
                EXPECT_EQ(l.selection.size().y > 0, extras) << where;
            }
        }
    }
}

TEST(UiLayout, HiddenLeavesTheWholeWindowToTheWorld) {
    LayoutInput in;
    in.hidden = true;
    in.selection = true;
    const UiLayout l = compute_layout(in);
    EXPECT_EQ(l.world.size(), in.screen);
    EXPECT_EQ(l.stats.size(), glm::vec2(0.0f));
    EXPECT_EQ(l.left.size(), glm::vec2(0.0f));
}

TEST(UiLayout, HeightsGoToWhoWantsThem) {
    // Room for all: each gets what it wants.
    std::array<float, 3> wanted = {100, 200, 50}, got{};
    fit_heights(wanted, got, 1000);
    EXPECT_EQ(got, wanted);
    // Short of room: the small one keeps its 50, the others split the remaining 150.
    fit_heights(wanted, got, 200);
    EXPECT_EQ(got, (std::array<float, 3>{75, 75, 50}));
    // A little short: the middle one keeps its 100, the largest takes the rest.
    fit_heights(wanted, got, 300);
    EXPECT_EQ(got, (std::array<float, 3>{100, 150, 50}));
}

}  // namespace
}  // namespace collidoscope
