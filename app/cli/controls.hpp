// The app's mouse and key bindings in one table. Input dispatches every event through it, and
// the help window (F1) and `collidoscope --help` print it, so what they say cannot drift
// from what the keys and buttons do. Keys are SDL keycodes, kept as ints so that the command
// line's help can include this without SDL.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace collidoscope {

enum class Command {
    // Mouse.
    kSelect,       // left click / drag: select a body, drag it
    kQueryRegion,  // shift + left drag
    kTurn,         // right drag: 2D pan, 3D orbit
    kPan,
    kZoom,  // the wheel
    // Keys.
    kPause,
    kStep,
    kReset,
    kFitCamera,
    kAlgorithm,  // a digit: the algorithm with that key (algorithm_for_key)
    kPreviousAlgorithm,
    kNextAlgorithm,
    kHelp,
    kHideUi,
    kScreenshot,
    kSaveScene,
    kStepBack,     // rewind one step
    kStepForward,
    kEscape,
    kRemove,  // the selected body, else the bodies in the query region
    kWatch,   // open or close Watch mode
    kWatchStep,  // while Watch is open: one event on, one back, play or pause
    kWatchBack,
    kWatchPlay,
};

enum class Shift { kNo, kYes, kAny };

// A pseudo key: any of the digits 0-9 (kAlgorithm reads which).
inline constexpr int kDigitKeys = -1;
// A pseudo mouse button: the wheel.
inline constexpr int kWheel = -1;

struct Binding {
    int key = 0;     // an SDL keycode or kDigitKeys; 0 for a mouse binding
    int button = 0;  // an SDL mouse button or kWheel; 0 for a key binding
    Shift shift = Shift::kNo;
    Command command;
    const char* keys;  // as the help shows them; nullptr: a second key for the row above
    const char* what;
};

std::span<const Binding> bindings();
// The binding of a key or a mouse button with or without shift; nullptr if none.
const Binding* find_key(int key, bool shift);
const Binding* find_button(int button, bool shift);

// The algorithm (an index into the dimension's registry rows) that a digit picks: 1-9 and
// 0 the first ten, with shift the next ten; -1 if `key` is not a digit.
int algorithm_for_key(int key, bool shift);
// The key that picks algorithm `index` ("1", "0", "Shift+3"); empty past the twentieth.
std::string algorithm_key(std::size_t index);

// The table as text, one binding a line, for the command line's help.
std::string controls_text();

}  // namespace collidoscope
