// See detail_pool.h: the subset of oneTBB the web build needs. An arena only sets the thread
// count the engine sizes its work by; the pool is shared.
#pragma once

#include "tbb/detail_pool.h"

namespace tbb {

namespace subset {
// The concurrency execute() runs its function under; restores the caller's afterwards.
class ConcurrencyScope {
public:
    explicit ConcurrencyScope(int threads);
    ~ConcurrencyScope();
    ConcurrencyScope(const ConcurrencyScope&) = delete;
    ConcurrencyScope& operator=(const ConcurrencyScope&) = delete;

private:
    int previous_;
};
}  // namespace subset

class task_arena {
public:
    explicit task_arena(int max_concurrency = subset::pool_threads())
        : threads_(max_concurrency < 1 ? 1 : max_concurrency) {}
    int max_concurrency() const { return threads_; }
    template <typename F>
    auto execute(const F& f) -> decltype(f()) {
        subset::ConcurrencyScope scope(threads_);
        return f();
    }

private:
    int threads_;
};

namespace this_task_arena {
inline int max_concurrency() { return subset::current_concurrency(); }
}  // namespace this_task_arena

}  // namespace tbb
