// See detail_pool.h: the subset of oneTBB the web build needs.
#pragma once

#include <cstddef>

namespace tbb {

template <typename Value>
class blocked_range {
public:
    blocked_range(Value begin, Value end, std::size_t grainsize = 1)
        : begin_(begin), end_(end), grainsize_(grainsize == 0 ? 1 : grainsize) {}
    Value begin() const { return begin_; }
    Value end() const { return end_; }
    std::size_t size() const { return static_cast<std::size_t>(end_ - begin_); }
    std::size_t grainsize() const { return grainsize_; }
    bool empty() const { return !(begin_ < end_); }

private:
    Value begin_, end_;
    std::size_t grainsize_;
};

}  // namespace tbb
