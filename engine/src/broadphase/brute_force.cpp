#include "broadphase/brute_force.hpp"

#include <algorithm>
#include <cassert>
#include <string>

#include "broadphase/common/pair_test.hpp"

namespace collide {

template <int D>
void BruteForce<D>::build_and_search(std::span<const Aabb<D>> boxes,
                                     std::span<const std::uint8_t> is_static, PairList& out) {
    boxes_.assign(boxes.begin(), boxes.end());
    if (this->watch_) {
        this->watch_->phase("test every pair");
        test_all<true>(boxes, is_static, out);
    } else {
        test_all<false>(boxes, is_static, out);
    }
    static_count_ = static_cast<std::size_t>(
        std::count_if(is_static.begin(), is_static.end(), [](std::uint8_t s) { return s != 0; }));
}

// Watched: Watch mode's instantiation; the timed one has no recorder in its loop.
template <int D>
template <bool Watched>
void BruteForce<D>::test_all(std::span<const Aabb<D>> boxes,
                             std::span<const std::uint8_t> is_static, PairList& out) {
    const std::size_t n = boxes.size();
    std::uint64_t tests = 0;
    const BodyCosts* costs = costs_.if_on();
    WatchRecorder<D>* const watch = Watched ? this->watch_ : nullptr;
    for (std::size_t i = 0; i < n; ++i) {
        if (watch) watch->cursor(BodyId(i), 0, boxes[i].lo[0]);
        for (std::size_t j = i + 1; j < n; ++j) {
            test_pair(BodyId(i), boxes[i], BodyId(j), boxes[j], is_static[i] && is_static[j], out,
                      tests, costs, watch);
        }
    }
    tests_ = tests;
}

template <int D>
void BruteForce<D>::validate() const {
    // No structure: what there is to check is that every test was made, and no more.
    const std::uint64_t n = boxes_.size(), s = static_count_;
    const std::uint64_t want = n * (n - 1) / 2 - s * (s - 1) / 2;  // 0 * anything is 0
    if (tests_ != want) {
        invariant_broken("brute-force", std::to_string(tests_) + " tests of " +
                                            std::to_string(n) + " bodies (" + std::to_string(s) +
                                            " static); expected " + std::to_string(want));
    }
}

template <int D>
void BruteForce<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                           QueryTrace<D>* /*trace*/) const {
    out.clear();
    for (std::size_t i = 0; i < boxes_.size(); ++i) {
        if (boxes_[i].overlaps(region)) out.push_back(BodyId(i));
    }
}

template <int D>
WatchScript BruteForce<D>::watch_script() const {
    return {{"no structure: keep a copy of the boxes",
             "  (for queries)",
             "for each body a, in id order:",
             "  for each body b after a:",
             "    skip (a, b) if both are static",
             "    test a's box against b's",
             "      (every axis: lo <= other's hi",
             "       and other's lo <= hi)",
             "    if they overlap: report (a, b)",
             "n (n - 1) / 2 tests, less the static pairs"},
            {{WatchStep::kPhase, nullptr, 0},
             {WatchStep::kCursor, nullptr, 2},
             {WatchStep::kTest, nullptr, 5},
             {WatchStep::kEmit, nullptr, 8}}};
}

template <int D>
BroadPhaseStats BruteForce<D>::stats() const {
    return {.candidate_tests = tests_,
            .structure_bytes = boxes_.capacity() * sizeof(Aabb<D>),
            .nodes = boxes_.size(),
            .depth = 0};
}

template class BruteForce<2>;
template class BruteForce<3>;

}  // namespace collide
