// The browser build's side of the page (web/site/): the frame loop the browser drives, and
// the files a desktop app would read and write, as downloads, uploads and browser storage.
// Compiled only by the web presets (web/app_link.cmake).
#pragma once

#include <functional>
#include <string>

namespace collidoscope::browser {

// Calls `frame` once per display refresh until it returns false; returns at once.
void run_frames(std::function<bool()> frame);

// The GPU behind WebGL as WEBGL_debug_renderer_info names it ("ANGLE (Google, Vulkan 1.3.0
// (SwiftShader Device ...))"); empty where the browser hides it. WebGL's own GL_RENDERER is
// always "WebKit WebGL". Asked on a canvas of its own, so it works before the window opens.
std::string unmasked_renderer();

// Hands the file at `path` (in the page's memory file system) to the browser as a download.
void offer_download(const std::string& path);

// Calls `save` when the page is hidden or closed (a tab switched, the window closed), the
// moments a web page gets to save; then keeps the file at `path` in the browser's storage,
// where the next visit's loader puts it back before main() runs.
void on_page_hidden(std::function<void()> save, const std::string& path);

// Opens the browser's file chooser; the chosen file is kept for this tab and the page
// reloads with `--flag /uploads/NAME` added to its address (`flag` without dashes), as if
// the command line had named the file.
void choose_file_and_reload(const std::string& flag);

}  // namespace collidoscope::browser
