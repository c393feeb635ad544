#include "main/browser.hpp"

#include <emscripten/emscripten.h>

#include <cstdlib>
#include <utility>

namespace collidoscope::browser {

namespace {

// clang-format off
EM_JS(char*, unmasked_renderer_js, (), {
    const gl = document.createElement('canvas').getContext('webgl2');
    const info = gl && gl.getExtension('WEBGL_debug_renderer_info');
    const name = info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : "";
    const bytes = lengthBytesUTF8(name) + 1;
    const text = _malloc(bytes);
    stringToUTF8(name, text, bytes);
    return text;
});

EM_JS(void, offer_download_js, (const char* path), {
    const name = UTF8ToString(path);
    const bytes = FS.readFile(name);
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([bytes]));
    link.download = name.split('/').pop();
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 60000);
});

EM_JS(void, watch_page_hidden_js, (const char* path), {
    const name = UTF8ToString(path);
    const save = () => {
        Module._collidoscope_page_hidden();
        try {
            localStorage.setItem('collidoscope:' + name, FS.readFile(name, {encoding: 'utf8'}));
        } catch (e) {
            console.warn('collidoscope: settings not kept in the browser: ' + e.message);
        }
    };
    document.addEventListener('visibilitychange', () => {
        if (document.visibilityState === 'hidden') save();
    });
    window.addEventListener('pagehide', save);
});

EM_JS(void, choose_file_js, (const char* flag), {
    Module.chooseFileAndReload(UTF8ToString(flag));
});
// clang-format on

std::function<void()>& page_hidden_save() {
    static std::function<void()>& save = *new std::function<void()>;
    return save;
}

void call_frame(void* arg) {
    auto& frame = *static_cast<std::function<bool()>*>(arg);
    if (!frame()) emscripten_cancel_main_loop();
}

}  // namespace

std::string unmasked_renderer() {
    char* text = unmasked_renderer_js();
    std::string name = text;
    std::free(text);
    return name;
}

void offer_download(const std::string& path) {
    offer_download_js(path.c_str());
}

void on_page_hidden(std::function<void()> save, const std::string& path) {
    page_hidden_save() = std::move(save);
    watch_page_hidden_js(path.c_str());
}

void choose_file_and_reload(const std::string& flag) {
    choose_file_js(flag.c_str());
}

void run_frames(std::function<bool()> frame) {
    // 0: at the display's refresh (requestAnimationFrame). Not simulating an infinite loop:
    // main() returns, and the page keeps the runtime alive.
    emscripten_set_main_loop_arg(&call_frame, new std::function<bool()>(std::move(frame)), 0,
                                 false);
}

}  // namespace collidoscope::browser

extern "C" EMSCRIPTEN_KEEPALIVE void collidoscope_page_hidden() {
    if (auto& save = collidoscope::browser::page_hidden_save()) save();
}
