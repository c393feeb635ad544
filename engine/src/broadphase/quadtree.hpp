// Region quadtree (2D) / octree (3D), the classic tree of seed 004: a square or cube root
// around all boxes, split into 2^D equal children when a node holds more than `capacity`
// bodies (down to `max depth`). A body goes to the smallest node that contains it entirely;
// a body that straddles (or touches) a child boundary stays at the parent. A body is tested
// against the later bodies of its own node and every body of its subregions, so each pair
// once. It is here to show the seed's failure: bodies on the centre lines all stay at the
// root, where each is tested against everything, so candidate tests grow like n^2 on the
// `centerline` scene. That failure is kept on purpose; everything else is made fast: the
// tree is rebuilt each frame by partitioning one array of boxes top-down, which leaves every
// node's subtree contiguous, so a body's tests are one forward scan of that array.
#pragma once

#include <array>

#include "broadphase/common/chunked_sweep.hpp"
#include "broadphase/common/tree_nodes.hpp"
#include "collide/broadphase.hpp"
#include "broadphase/common/engine_broadphase.hpp"

namespace collide {

template <int D>
class RegionTree final : public EngineBroadPhase<D> {
public:
    void search(const Aabb<D>& region, std::vector<BodyId>& out,
                QueryTrace<D>* trace = nullptr) const override;
    void draw(DebugDraw<D>& draw, const Overlays<D>& which) const override;
    std::string describe(BodyId id) const override;
    std::vector<LegendEntry> legend() const override;
    BroadPhaseStats stats() const override;
    void validate() const override;
    std::span<Param> params() override { return params_; }
    WatchScript watch_script() const override;

private:
    void build_and_search(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                          PairList& out) override;

    static constexpr std::uint8_t kStraddles = 1u << D;

    // The child of a node centred at `center` that holds `b` strictly, or kStraddles.
    static std::uint8_t child_code(const Aabb<D>& b, const Vec<D>& center);

    std::uint32_t capacity() const {
        return static_cast<std::uint32_t>(params_[Setting::kCapacity].as_whole());
    }
    int max_depth() const { return params_[Setting::kMaxDepth].as_whole(); }
    bool parallel() const { return params_[Setting::kParallelSweep].is_on(); }

    void build(std::uint32_t begin, std::uint32_t end, Vec<D> center, float half, int depth,
               std::uint32_t parent, WatchRecorder<D>* watch);
    // kWatched: Watch mode records the rows. One instance each way, out of line: with the
    // recorder tested per candidate, or inlined into the chunk driver, the rows of 2D
    // powerlaw 100k ran 10-12% slower (one thread, interleaved runs).
    template <bool kWatched>
    [[gnu::noinline]] void sweep_rows(std::size_t r0, std::size_t r1, PairList& pairs,
                                      std::uint64_t& tests) const;

    std::vector<TreeItem<D>> items_;     // bodies in node pre-order
    std::vector<TreeItem<D>> scratch_;   // partition buffer
    std::vector<std::uint8_t> codes_;    // per slot: child index, or kStraddles
    std::vector<std::uint32_t> row_end_; // per slot: the end of its node's subtree
    std::vector<TreeNode<D>> nodes_;     // pre-order
    ChunkedSweep chunks_;
    using EngineBroadPhase<D>::costs_;
    int deepest_ = 0;                    // deepest node holding bodies
    // The places of the parameters in params_, in its order; kCount is how many.
    enum Setting : std::uint8_t { kCapacity, kMaxDepth, kParallelSweep, kCount };
    std::array<Param, Setting::kCount> params_ = {{
        Param::whole("capacity", 8, 1, 64),
        Param::whole("max depth", 20, 1, 30),
        Param::toggle("parallel sweep", true),
    }};
};

}  // namespace collide
