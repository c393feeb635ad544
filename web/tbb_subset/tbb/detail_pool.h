// The web build's stand-in for the part of oneTBB the engine and the app use (oneTBB is not
// built for the browser). run_tasks() spreads tasks over a pool of pthreads in the threaded
// build (__EMSCRIPTEN_PTHREADS__, a cross-origin isolated page) and runs them in order in the
// single-threaded one. The engine's results never depend on how work is split (its tests
// compare 1 and N threads), so either way the pairs and states are the native ones.
#pragma once

#include <cstddef>
#include <functional>

namespace tbb::subset {

// The thread count the innermost task_arena::execute asked for (the pool's size, else).
int current_concurrency();
// How many threads can really run at once: 1 in the single-threaded build.
int pool_threads();
// Runs task(0) .. task(count - 1), on the pool's threads and the caller's, and returns when
// all have run. A call made inside a task runs its tasks on the calling thread alone.
void run_tasks(std::size_t count, const std::function<void(std::size_t)>& task);

// Chunks to cut `n` items into: enough for every thread to take several, none smaller
// than `grain`.
inline std::size_t chunk_count(std::size_t n, std::size_t grain) {
    if (n == 0) return 0;
    const std::size_t threads = static_cast<std::size_t>(current_concurrency());
    const std::size_t by_grain = (n + grain - 1) / (grain == 0 ? 1 : grain);
    const std::size_t wanted = threads <= 1 ? 1 : 4 * threads;
    return by_grain < wanted ? by_grain : wanted;
}

}  // namespace tbb::subset
