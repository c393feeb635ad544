// Emscripten 3.1.6 has no EM_JS_DEPS, which SDL >= 2.28 uses to declare the JavaScript
// functions its EM_JS code calls; those are linked in by the flags in web/CMakeLists.txt.
#define EM_JS_DEPS(tag, deps) extern int em_js_deps_dummy_##tag
