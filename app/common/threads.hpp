// The threads the app's parallel work can use, and how they come: the machine's cores on the
// desktop (oneTBB); in the browser, the page's pthread pool (web/app_link.cmake starts at
// most 8 workers) where the page is cross-origin isolated, else the single-threaded build.
#pragma once

#include <algorithm>
#include <thread>

#ifdef __EMSCRIPTEN__
#include "tbb/detail_pool.h"  // web/tbb_subset: the page's pool
#endif

namespace collidoscope {

inline int available_threads() {
#ifdef __EMSCRIPTEN__
    return tbb::subset::pool_threads();  // 1 in the single-threaded build
#else
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
#endif
}

// One line for the Stats panel: where the threads come from.
inline const char* threads_origin() {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
    return "one thread: this page is not cross-origin isolated, so the browser gives it no "
           "shared memory for threads (docs/web.md)";
#elif defined(__EMSCRIPTEN__)
    return "pthreads in Web Workers (the page is cross-origin isolated)";
#else
    return "oneTBB";
#endif
}

}  // namespace collidoscope
