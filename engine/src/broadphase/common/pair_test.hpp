// The candidate test of two bodies, written once for every algorithm that tests pairs one
// at a time: two static bodies are never a pair; any other test is counted (the stats, and
// for the heat map both bodies while tracking), and the pair is kept when the boxes overlap.
#pragma once

#include <array>
#include <cstdint>

#include "broadphase/common/body_costs.hpp"
#include "collide/core.hpp"
#include "collide/watch.hpp"

namespace collide {

// Pairs appended without a branch on whether each is kept: every candidate is written to a
// small buffer, whose end advances only past kept ones, and the buffer goes to `out` when
// full and at flush(). Where overlap is a coin toss (boxes that nearly touch), a branch on
// it mispredicts often. zorder-sweep, one thread, interleaved: 2D powerlaw 1M 2-3% faster,
// 2D centerline 1M at 0.5 2-4%, 3D rows 0-3%. Not for the sorted grid: most of its runs hit
// nothing, and writing every lane made 3D uniform 100k 40% slower.
class PairBatch {
public:
    explicit PairBatch(PairList& out) : out_(out) {}
    PairBatch(const PairBatch&) = delete;
    PairBatch& operator=(const PairBatch&) = delete;
    ~PairBatch() { flush(); }
    void add(Pair pair, bool keep) {
        buffer_[size_] = pair;
        size_ += keep;
        if (size_ == kSize) flush();
    }
    void flush() {
        out_.insert(out_.end(), buffer_.begin(), buffer_.begin() + size_);
        size_ = 0;
    }

private:
    static constexpr std::size_t kSize = 256;
    std::array<Pair, kSize> buffer_;
    std::size_t size_ = 0;
    PairList& out_;
};

// The pair (a, b) appended when `keep`: with a branch to a PairList, without one to a
// PairBatch.
inline void append_pair(PairList& out, BodyId a, BodyId b, bool keep) {
    if (keep) out.push_back(make_pair(a, b));
}
inline void append_pair(PairBatch& out, BodyId a, BodyId b, bool keep) {
    out.add(make_pair(a, b), keep);
}

// Watch mode's record of one candidate test, and of its pair when it hit.
template <int D>
inline void watch_test(WatchRecorder<D>* watch, BodyId a, BodyId b, bool hit) {
    if (watch == nullptr) return;
    watch->test(a, b, hit);
    if (hit) watch->emit(a, b);
}

// Out: a PairList or a PairBatch. `watch`: Watch mode's recorder, or null.
template <int D, typename Out>
inline void test_pair(BodyId a, const Aabb<D>& box_a, BodyId b, const Aabb<D>& box_b,
                      bool both_static, Out& out, std::uint64_t& tests, const BodyCosts* costs,
                      WatchRecorder<D>* watch = nullptr) {
    if (both_static) return;
    ++tests;
    if (costs) costs->add_pair(a, b);
    const bool hit = box_a.overlaps(box_b);
    watch_test(watch, a, b, hit);
    append_pair(out, a, b, hit);
}

}  // namespace collide
