#include "cli/controls.hpp"

#include <SDL.h>

#include <algorithm>
#include <array>

namespace collidoscope {
namespace {

constexpr int kAlgorithmsPerDigitRow = 10;

constexpr std::array kBindings = {
    Binding{0, SDL_BUTTON_LEFT, Shift::kNo, Command::kSelect, "Left click / drag",
            "select a body (empty space: none) / move it; it keeps the drag's velocity"},
    Binding{0, SDL_BUTTON_LEFT, Shift::kYes, Command::kQueryRegion, "Shift + left drag",
            "query a region (3D: a box at the orbit target's depth); shift + click clears it"},
    Binding{0, SDL_BUTTON_RIGHT, Shift::kNo, Command::kTurn, "Right drag", "2D: pan   3D: orbit"},
    Binding{0, SDL_BUTTON_RIGHT, Shift::kYes, Command::kPan, "Shift + right drag", "pan"},
    Binding{0, SDL_BUTTON_MIDDLE, Shift::kAny, Command::kPan, "Middle drag", "pan"},
    Binding{0, kWheel, Shift::kAny, Command::kZoom, "Wheel",
            "2D: zoom about the cursor   3D: dolly (not over a panel)"},
    Binding{SDLK_p, 0, Shift::kNo, Command::kPause, "P", "pause / run"},
    Binding{SDLK_o, 0, Shift::kNo, Command::kStep, "O", "one step (pauses)"},
    Binding{SDLK_r, 0, Shift::kNo, Command::kReset, "R", "reset the scene"},
    Binding{SDLK_c, 0, Shift::kNo, Command::kFitCamera, "C / Home", "fit the camera"},
    Binding{SDLK_HOME, 0, Shift::kAny, Command::kFitCamera, nullptr, nullptr},
    Binding{kDigitKeys, 0, Shift::kNo, Command::kAlgorithm, "1-9, 0",
            "algorithms 1 to 10, with the pointer off the panels (the Algorithm menu shows "
            "each one's key)"},
    Binding{kDigitKeys, 0, Shift::kYes, Command::kAlgorithm, "Shift + 1-9, 0",
            "algorithms 11 to 20"},
    Binding{SDLK_LEFTBRACKET, 0, Shift::kAny, Command::kPreviousAlgorithm, "[ / ]",
            "previous / next algorithm"},
    Binding{SDLK_RIGHTBRACKET, 0, Shift::kAny, Command::kNextAlgorithm, nullptr, nullptr},
    Binding{SDLK_s, 0, Shift::kNo, Command::kSaveScene, "S",
            "save the scene as scene-DATE-TIME.csv in the current folder"},
    Binding{SDLK_COMMA, 0, Shift::kAny, Command::kStepBack, ", / .",
            "one step back / forward (rewind; the Timeline panel scrubs)"},
    Binding{SDLK_PERIOD, 0, Shift::kAny, Command::kStepForward, nullptr, nullptr},
    Binding{SDLK_F1, 0, Shift::kAny, Command::kHelp, "F1 or ?", "this help (again: close it)"},
    Binding{SDLK_SLASH, 0, Shift::kYes, Command::kHelp, nullptr, nullptr},  // ? on US keyboards
    Binding{SDLK_QUESTION, 0, Shift::kAny, Command::kHelp, nullptr, nullptr},
    Binding{SDLK_TAB, 0, Shift::kAny, Command::kHideUi, "Tab",
            "hide every panel (the world fills the window); again: show them"},
    Binding{SDLK_F12, 0, Shift::kAny, Command::kScreenshot, "F12",
            "screenshot: a timestamped PNG in the screenshot folder (--screenshot-dir)"},
    Binding{SDLK_DELETE, 0, Shift::kAny, Command::kRemove, "Delete",
            "remove the selected body, else every body in the query region"},
    Binding{SDLK_w, 0, Shift::kNo, Command::kWatch, "W",
            "Watch mode: play one update of the algorithm step by step (again: close it)"},
    Binding{SDLK_RIGHT, 0, Shift::kAny, Command::kWatchStep, "Left / Right",
            "Watch mode: one event back / on"},
    Binding{SDLK_LEFT, 0, Shift::kAny, Command::kWatchBack, nullptr, nullptr},
    Binding{SDLK_SPACE, 0, Shift::kAny, Command::kWatchPlay, "Space", "Watch mode: play / pause"},
    Binding{SDLK_ESCAPE, 0, Shift::kAny, Command::kEscape, "Esc",
            "close the help, else clear the query region, else deselect; with nothing to "
            "clear, ask before quitting (Enter quits, any other key stays)"},
};

bool shift_matches(Shift want, bool shift) {
    return want == Shift::kAny || (want == Shift::kYes) == shift;
}

bool is_digit(int key) {
    return key >= SDLK_0 && key <= SDLK_9;
}

}  // namespace

std::span<const Binding> bindings() {
    return kBindings;
}

const Binding* find_key(int key, bool shift) {
    const auto it = std::find_if(kBindings.begin(), kBindings.end(), [&](const Binding& b) {
        const bool key_matches = b.key == key || (b.key == kDigitKeys && is_digit(key));
        return b.button == 0 && key_matches && shift_matches(b.shift, shift);
    });
    return it == kBindings.end() ? nullptr : &*it;
}

const Binding* find_button(int button, bool shift) {
    const auto it = std::find_if(kBindings.begin(), kBindings.end(), [&](const Binding& b) {
        return b.key == 0 && b.button == button && shift_matches(b.shift, shift);
    });
    return it == kBindings.end() ? nullptr : &*it;
}

int algorithm_for_key(int key, bool shift) {
    if (!is_digit(key)) return -1;
    // 1-9 then 0, as on the keyboard's top row.
    const int on_row = key == SDLK_0 ? 9 : key - SDLK_1;
    return on_row + (shift ? kAlgorithmsPerDigitRow : 0);
}

std::string algorithm_key(std::size_t index) {
    if (index >= 2 * kAlgorithmsPerDigitRow) return {};
    const std::size_t on_row = index % kAlgorithmsPerDigitRow;
    const std::string digit = std::to_string((on_row + 1) % 10);
    return index < kAlgorithmsPerDigitRow ? digit : "Shift+" + digit;
}

std::string controls_text() {
    std::string out;
    for (const Binding& b : kBindings) {
        if (b.keys == nullptr) continue;
        std::string keys(b.keys);
        keys.resize(std::max<std::size_t>(keys.size() + 2, 22), ' ');
        out += "  " + keys + b.what + "\n";
    }
    return out;
}

}  // namespace collidoscope
