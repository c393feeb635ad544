#include "tbb/detail_pool.h"
#include "tbb/task_arena.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tbb::subset {

namespace {

thread_local int arena_threads = 0;  // 0: no execute() is running on this thread
#ifdef __EMSCRIPTEN_PTHREADS__
thread_local bool inside_task = false;
#endif

#ifdef __EMSCRIPTEN_PTHREADS__
// One job: the workers and the caller take task indices from `next` until none are left. A
// worker still holding a finished job only finds its indices used up, so each job has its own.
struct Job {
    const std::function<void(std::size_t)>* task;
    std::size_t count;
    std::atomic<std::size_t> next{0}, done{0};

    void take() {
        inside_task = true;
        for (std::size_t k = next.fetch_add(1); k < count; k = next.fetch_add(1)) {
            (*task)(k);
            done.fetch_add(1, std::memory_order_release);
        }
        inside_task = false;
    }
};

// One job at a time; a second caller while a job runs (a nested call) runs its tasks alone.
class Pool {
public:
    explicit Pool(int workers) {
        for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
    }
    int size() const { return static_cast<int>(threads_.size()) + 1; }

    bool try_run(std::size_t count, const std::function<void(std::size_t)>& task) {
        std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
        if (!busy.owns_lock()) return false;
        auto job = std::make_shared<Job>();
        job->task = &task;
        job->count = count;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            job_ = job;
        }
        wake_.notify_all();
        job->take();
        // The browser's main thread may not sleep on a condition variable: it spins.
        while (job->done.load(std::memory_order_acquire) < count) std::this_thread::yield();
        std::lock_guard<std::mutex> lock(mutex_);
        job_.reset();
        return true;
    }

private:
    void work() {
        std::shared_ptr<Job> seen;
        for (;;) {
            std::shared_ptr<Job> job;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return job_ != nullptr && job_ != seen; });
                job = seen = job_;
            }
            job->take();
        }
    }

    std::mutex busy_, mutex_;
    std::condition_variable wake_;
    std::shared_ptr<Job> job_;
    std::vector<std::thread> threads_;  // never joined: they live as long as the page
};

Pool& pool() {
    // The page starts at most 8 workers (web/app_link.cmake); the caller is one more thread.
    constexpr int kPageWorkers = 8;
    const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    static Pool* p = new Pool(std::min(cores, kPageWorkers) - 1);
    return *p;
}
#endif

}  // namespace

int pool_threads() {
#ifdef __EMSCRIPTEN_PTHREADS__
    return pool().size();
#else
    return 1;
#endif
}

int current_concurrency() {
    const int wanted = arena_threads > 0 ? arena_threads : pool_threads();
    return std::min(wanted, pool_threads());
}

void run_tasks(std::size_t count, const std::function<void(std::size_t)>& task) {
#ifdef __EMSCRIPTEN_PTHREADS__
    if (count > 1 && !inside_task && current_concurrency() > 1 && pool().try_run(count, task))
        return;
#endif
    for (std::size_t k = 0; k < count; ++k) task(k);
}

ConcurrencyScope::ConcurrencyScope(int threads) : previous_(arena_threads) {
    arena_threads = threads;
}

ConcurrencyScope::~ConcurrencyScope() {
    arena_threads = previous_;
}

}  // namespace tbb::subset
