// Brute force: every pair of boxes is tested. O(n^2), no structure, obviously right:
// the reference every other algorithm is checked against.
#pragma once

#include "broadphase/common/engine_broadphase.hpp"
#include "collide/broadphase.hpp"

namespace collide {

template <int D>
class BruteForce final : public EngineBroadPhase<D> {
public:
    void search(const Aabb<D>& region, std::vector<BodyId>& out,
                QueryTrace<D>* trace = nullptr) const override;
    BroadPhaseStats stats() const override;
    WatchScript watch_script() const override;
    void validate() const override;

private:
    void build_and_search(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                          PairList& out) override;
    template <bool Watched>
    void test_all(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                  PairList& out);

    std::vector<Aabb<D>> boxes_;  // copy of the last update, for query()
    std::uint64_t tests_ = 0;
    std::size_t static_count_ = 0;
    using EngineBroadPhase<D>::costs_;
};

}  // namespace collide
