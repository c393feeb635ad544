// Loose quadtree (2D) / octree (3D): the answer to seed 004's centre-line failure. Every
// node's loose box is its region grown by half its side on every side, and a body goes by
// its centre to the node at the depth its size dictates: the deepest whose side is at least
// the body's largest extent (capped at `max depth`), so the body fits in that node's loose
// box. Depth then follows size, not position: small bodies on a centre line sink as deep as
// any others. Pairs, each once and with no global sort, by a dual descent: a subtree's own
// bodies against the other subtrees, node pairs pruned by the fitted bounds of both (or,
// the toggle off, each body descending from the root alone). The tree is rebuilt each frame
// from the bodies sorted by node key, in pre-order; the order is kept between frames, so
// coherent motion re-sorts by a near-linear insertion sort. Nodes exist only where bodies
// are.
#pragma once

#include <algorithm>
#include <array>

#include "broadphase/common/chunked_sweep.hpp"
#include "broadphase/common/tree_nodes.hpp"
#include "collide/broadphase.hpp"
#include "broadphase/common/engine_broadphase.hpp"

namespace collide {

template <int D>
class LooseTree final : public EngineBroadPhase<D> {
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

    // Sort key: the Morton code of the body's node (its centre's grid cell at the finest
    // depth, cut to its own depth) above 5 bits of depth; sorted keys are the pre-order.
    struct Keyed {
        std::uint64_t key;
        BodyId id;
    };
    static constexpr int kDepthBits = 5;
    // Deepest allowed depth: D * depth + 5 bits must fit a key.
    static constexpr int kDeepest = D == 2 ? 29 : 19;

    int max_depth() const {
        return std::clamp(params_[Setting::kMaxDepth].as_whole(), 0, kDeepest);
    }
    bool parallel() const { return params_[Setting::kParallelSweep].is_on(); }
    bool dual() const { return params_[Setting::kDualDescent].is_on(); }
    bool persistent() const { return params_[Setting::kPersistentOrder].is_on(); }

    // A box's sort key under the current root and max depth; made once per update, so each
    // key costs only its own arithmetic. validate() recomputes the keys with it.
    struct KeyRule {
        int cap;
        double side, scale, cells;
        Vec<D> root_center;
        float root_half;
        std::uint64_t operator()(const Aabb<D>& b) const;
    };
    KeyRule key_rule() const;
    void sort_keys(std::span<const Aabb<D>> boxes);
    void build(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
               WatchRecorder<D>* watch);
    // Calls test(slot) for every slot body `s` is to be tested against; `watch` records the
    // nodes entered and pruned.
    template <typename Fn>
    void for_each_candidate(std::size_t s, const Fn& test, WatchRecorder<D>* watch = nullptr) const;
    void sweep_rows(std::size_t r0, std::size_t r1, PairList& pairs, std::uint64_t& tests) const;
    // The dual descent: node against node, pruned by fitted bounds on both sides.
    // Watched: Watch mode's instantiation, which records (watch_); the other passes no
    // recorder down the recursion.
    template <bool Watched>
    void own_vs_subtree(std::uint32_t a, std::uint32_t b, PairList& out,
                        std::uint64_t& tests) const;
    template <bool Watched>
    void cross_trees(std::uint32_t a, std::uint32_t b, PairList& out, std::uint64_t& tests) const;
    template <bool Watched>
    void self_pairs(std::uint32_t node, PairList& out, std::uint64_t& tests) const;

    std::vector<TreeItem<D>> items_;     // bodies in node pre-order
    std::vector<Keyed> order_;           // sorted keys, kept for the next frame's re-sort
    std::vector<std::uint32_t> open_;    // build: the nodes on the path to the current one
    std::vector<TreeNode<D>> nodes_;     // pre-order
    Vec<D> root_center_{0.0f};
    float root_half_ = 0.0f;
    ChunkedSweep chunks_;
    using EngineBroadPhase<D>::costs_;
    int deepest_ = 0;
    // The places of the parameters in params_, in its order; kCount is how many.
    enum Setting : std::uint8_t {
        kMaxDepth,
        kParallelSweep,
        kDualDescent,
        kPersistentOrder,
        kCount
    };
    std::array<Param, Setting::kCount> params_ = {{
        Param::whole("max depth", 20, 1, 30),
        Param::toggle("parallel sweep", true),
        Param::toggle("dual descent", true),
        Param::toggle("persistent order", true),
    }};
};

// Defined here because both the sweep and the selection text (loose_tree_view.cpp) use it.
// Body s at depth d tests the bodies of deeper nodes and, at depth d, the later slots: a
// shallower body is the one that tests it. Nodes whose subtree bounds miss its box are
// skipped whole. Exact pruning rests on the fitted bounds, not on the loose boxes.
template <int D>
template <typename Fn>
void LooseTree<D>::for_each_candidate(std::size_t s, const Fn& test,
                                      WatchRecorder<D>* watch) const {
    const TreeItem<D>& a = items_[s];
    const std::uint32_t n = static_cast<std::uint32_t>(nodes_.size());
    for (std::uint32_t i = 0; i < n;) {
        const TreeNode<D>& m = nodes_[i];
        if (!m.bounds.overlaps(a.box)) {
            if (watch) watch->prune(m.region());
            i = m.skip;
            continue;
        }
        if (watch) watch->enter(m.region());
        if (m.depth >= a.level) {
            std::uint32_t j = m.begin;
            if (m.depth == a.level) j = std::max(j, static_cast<std::uint32_t>(s) + 1);
            for (; j < m.own_end; ++j) test(j);
        }
        ++i;
    }
}

}  // namespace collide
