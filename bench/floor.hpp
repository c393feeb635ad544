// floor: the physical floor of any broad phase. It streams every box once and writes one
// 64-bit key per box (the Morton code of the box centre) into a member array, and reports
// no pairs. Every broad phase reads each box at least once and writes something per body
// (a key, a cell, a leaf), so no algorithm can beat this; the bench reports each result's
// time as a multiple of it (x_floor). It runs on the bench's --threads, as the algorithms do.
// Bench-only: it breaks the contract on purpose.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "collide/broadphase.hpp"
#include "collide/morton.hpp"

namespace collide::bench {

template <int D>
class Floor final : public BroadPhase<D> {
public:
    void update_whole(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                      PairList& out) override;
    // It keeps no boxes, so it finds nothing.
    void search(const Aabb<D>& region, std::vector<BodyId>& out,
                QueryTrace<D>* trace = nullptr) const override;
    BroadPhaseStats stats() const override;

private:
    std::vector<std::uint64_t> keys_;
    // The frame is fitted to the previous update's extent (tracked during the same pass),
    // so a frame costs one pass over the boxes.
    morton::Quantizer<D> frame_;
    bool have_frame_ = false;
};

}  // namespace collide::bench
