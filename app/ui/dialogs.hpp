// The app's own windows that keys open and close (help, the quit prompt, the hidden
// panels): the input handler sets them, the panels draw them.
#pragma once

namespace collidoscope {

// They stay open across frames.
struct Dialogs {
    bool help = false;
    bool quit_prompt = false;  // "Quit?": Enter quits, any other key stays
    bool ui_hidden = false;    // Tab: every panel hidden, the world fills the window
};

}  // namespace collidoscope
