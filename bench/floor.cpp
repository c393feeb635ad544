#include "floor.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

namespace collide::bench {

namespace {
// The extent of the box centres: min and max reduce the same in any order, so the frame is
// the same at any thread count.
template <int D>
struct Extent {
    Vec<D> lo{std::numeric_limits<float>::infinity()};
    Vec<D> hi{-std::numeric_limits<float>::infinity()};
    Extent join(const Extent& o) const { return {glm::min(lo, o.lo), glm::max(hi, o.hi)}; }
};
// Bodies per task: large enough that a task's overhead is noise beside its pass.
constexpr std::size_t kGrain = 16384;
}  // namespace

template <int D>
void Floor<D>::update_whole(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t>,
                            PairList& out) {
    out.clear();
    if (!have_frame_) {
        Aabb<D> extent = Aabb<D>::empty();
        for (const Aabb<D>& b : boxes) extent.grow(b);
        frame_ = morton::Quantizer<D>::covering(extent);
        have_frame_ = true;
    }
    keys_.resize(boxes.size());
    // On the bench's --threads, as the algorithms it measures, so x floor stays honest at
    // T > 1 (a one-core floor against T cores flattered every ratio).
    const Extent<D> e = tbb::parallel_reduce(
        tbb::blocked_range<std::size_t>(0, boxes.size(), kGrain), Extent<D>{},
        [&](const tbb::blocked_range<std::size_t>& r, Extent<D> acc) {
            for (std::size_t i = r.begin(); i != r.end(); ++i) {
                const Vec<D> c = boxes[i].center();
                acc.lo = glm::min(acc.lo, c);
                acc.hi = glm::max(acc.hi, c);
                keys_[i] = morton::encode<D>(frame_(c));
            }
            return acc;
        },
        [](const Extent<D>& a, const Extent<D>& b) { return a.join(b); });
    if (!boxes.empty()) frame_ = morton::Quantizer<D>::covering(Aabb<D>{e.lo, e.hi});
}

template <int D>
void Floor<D>::search(const Aabb<D>&, std::vector<BodyId>& out, QueryTrace<D>*) const {
    out.clear();
}

template <int D>
BroadPhaseStats Floor<D>::stats() const {
    return {.candidate_tests = 0,
            .structure_bytes = keys_.capacity() * sizeof(std::uint64_t),
            .nodes = keys_.size()};
}

template class Floor<2>;
template class Floor<3>;

}  // namespace collide::bench
