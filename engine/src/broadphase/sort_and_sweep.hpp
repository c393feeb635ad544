// Sort and sweep (sweep and prune on one axis): boxes sorted by their lower bound on the
// axis of greatest spread; each box is tested only against the boxes that start before it
// ends. The order is kept between updates and repaired with insertion sort, which is near
// linear when bodies move little.
#pragma once

#include "broadphase/common/engine_broadphase.hpp"
#include "broadphase/common/chunked_sweep.hpp"
#include "collide/broadphase.hpp"

namespace collide {

template <int D>
class SortAndSweep final : public EngineBroadPhase<D> {
public:
    void search(const Aabb<D>& region, std::vector<BodyId>& out,
                QueryTrace<D>* trace = nullptr) const override;
    void draw(DebugDraw<D>& draw, const Overlays<D>& which) const override;
    std::string describe(BodyId id) const override;
    BroadPhaseStats stats() const override;
    WatchScript watch_script() const override;
    void validate() const override;

private:
    void build_and_search(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                          PairList& out) override;

    struct Entry {
        float lo;  // lower bound on the sweep axis
        BodyId id;
    };

    int choose_axis(std::span<const Aabb<D>> boxes) const;
    // Where body `id` is in the sweep order (entries_.size() if nowhere), and the last rank
    // its sweep window reaches: the intervals that start inside its own are tested with it.
    std::size_t rank_of(BodyId id) const;
    std::size_t window_end(std::size_t rank) const;
    void sort_entries(std::span<const Aabb<D>> boxes, bool rebuilt);
    template <bool Watched>
    void sweep_on_axis(PairList& out, bool any_static);
    template <int Axis, bool AnyStatic, bool Watched>
    void sweep(PairList& out);
    int axis_ = 0;
    std::vector<Entry> entries_;         // sorted by lo, persistent between updates
    std::vector<Aabb<D>> sorted_;        // boxes in sweep order, for a cache-friendly sweep
    std::vector<std::uint8_t> static_;   // is_static in sweep order
    Aabb<D> extent_ = Aabb<D>::empty();  // bounds of all boxes, to place the overlay
    ChunkedSweep chunks_;
    using EngineBroadPhase<D>::costs_;
};

}  // namespace collide
