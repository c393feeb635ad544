#include "broadphase/brute_force.hpp"

#include <cassert>

namespace collide {

template <int D>
void BruteForce<D>::update(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                           PairList& out) {
    out.clear();
    assert(is_static.size() == boxes.size());
    boxes_.assign(boxes.begin(), boxes.end());
    const std::size_t n = boxes.size();
    std::uint64_t tests = 0;
    costs_.reset(n);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) {
            if (is_static[i] && is_static[j]) continue;
            ++tests;
            costs_.add_pair(BodyId(i), BodyId(j));
            if (boxes[i].overlaps(boxes[j])) out.push_back({BodyId(i), BodyId(j)});
        }
    }
    tests_ = tests;
}

template <int D>
void BruteForce<D>::query(const Aabb<D>& region, std::vector<BodyId>& out,
                      QueryTrace<D>* /*trace*/) const {
    out.clear();
    for (std::size_t i = 0; i < boxes_.size(); ++i) {
        if (boxes_[i].overlaps(region)) out.push_back(BodyId(i));
    }
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
