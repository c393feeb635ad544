#include "floor.hpp"

namespace collide::bench {

template <int D>
void Floor<D>::update(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t>,
                      PairList& out) {
    out.clear();
    if (!have_frame_) {
        Aabb<D> extent = Aabb<D>::empty();
        for (const Aabb<D>& b : boxes) extent.grow(b);
        frame_ = morton::Quantizer<D>::covering(extent);
        have_frame_ = true;
    }
    keys_.resize(boxes.size());
    Vec<D> lo(std::numeric_limits<float>::infinity()), hi(-std::numeric_limits<float>::infinity());
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const Vec<D> c = boxes[i].center();
        lo = glm::min(lo, c);
        hi = glm::max(hi, c);
        keys_[i] = morton::encode<D>(frame_(c));
    }
    if (!boxes.empty()) frame_ = morton::Quantizer<D>::covering(Aabb<D>{lo, hi});
}

template <int D>
void Floor<D>::query(const Aabb<D>&, std::vector<BodyId>& out, QueryTrace<D>*) const {
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
