// Centred interval tree (seed 004, comment 6: "how it might perform versus a CIT"). An
// adaptive tree rebuilt every frame: each node picks an axis and a centre on it (the median
// of its bodies' midpoints there) and keeps the bodies whose interval on that axis contains
// the centre; the bodies wholly below go to the left child, those wholly above to the right.
// The median bounds every child by half its parent, so the depth is at most log2(n) + 1
// whatever the input: all bodies at one point simply all stay at the root.
//
// Axis per node: the axis of greatest spread of the node's midpoints (a toggle; off, x, y, z
// alternate by depth). The spread rule follows the shape of what the node holds, as a kd-tree
// does: a column of bodies on a centre line is cut across, never along, so it is split in
// halves instead of piling up at one node, and a node cell stays roughly square.
//
// Why it is exact with few tests: two bodies in different subtrees of a node lie on opposite
// sides of its centre, so they cannot overlap. Every pair is therefore held by one node and
// either both held there or the other below it. A node's held bodies, which all contain the
// centre, are paired by a sweep on another axis (their node axis overlaps by construction);
// each held body then descends the node's subtree, pruned by fitted subtree bounds, and at
// each node walks the shorter of two sorted runs of the held bodies: on the node axis, those
// whose low end reaches it when it lies left of the centre (high end when right, all when it
// straddles), or a window on the sweep axis. Each pair is found once, at the higher of the
// two nodes. Region queries use the same walk.
//
// Cost: n log n to build (a median selection per level); on uniform scenes a node holds a
// few bodies and a descent is O(log n). A node's held set is a (D-1)-dimensional set (the
// bodies across a line, or a plane in 3D), and the walks filter it on one axis at a time, so
// where that set is large (a centre plane in 3D centerline) candidates grow past the loose
// tree's; a multi-level tree (each held set its own tree on the other axes) would fix that.
#pragma once

#include <array>

#include "broadphase/common/engine_broadphase.hpp"
#include "broadphase/common/chunked_sweep.hpp"
#include "collide/broadphase.hpp"

namespace collide {

template <int D>
class CentredIntervalTree final : public EngineBroadPhase<D> {
public:
    void search(const Aabb<D>& region, std::vector<BodyId>& out,
                QueryTrace<D>* trace = nullptr) const override;
    void draw(DebugDraw<D>& draw, const Overlays<D>& which) const override;
    std::string describe(BodyId id) const override;
    std::vector<LegendEntry> legend() const override;
    std::vector<std::string> layers() const override { return {"centre lines", "held intervals"}; }
    BroadPhaseStats stats() const override;
    void validate() const override;
    std::span<Param> params() override { return params_; }
    WatchScript watch_script() const override;

private:
    void build_and_search(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                          PairList& out) override;

    static constexpr std::uint32_t kNone = ~std::uint32_t{0};

    struct Entry {
        Aabb<D> box;
        BodyId id;
        std::uint8_t is_static;
    };
    struct Node {
        Aabb<D> cell;    // the parent's cell cut at its centre; the root's holds every box
        Aabb<D> bounds;  // fitted around every box in the subtree
        float centre;
        std::uint8_t axis;        // the centre's axis
        std::uint8_t sweep_axis;  // another axis, along which the held bodies are swept
        float reach;              // at least the held bodies' largest extent on the sweep axis
        bool all_static;          // every body in the subtree is static
        int depth;
        std::uint32_t parent = kNone, left = kNone, right = kNone;
        std::uint32_t begin, end;  // held: [begin, end) of by_lo_, by_hi_, by_sweep_

        // The cell flattened onto the centre: in 2D, lo and hi are the centre line's ends.
        Aabb<D> plane() const {
            Aabb<D> p = cell;
            p.lo[axis] = p.hi[axis] = centre;
            return p;
        }
    };
    // A range of entries_ still to be made a node.
    struct Task {
        std::uint32_t begin, end, parent;
        bool right;
        Aabb<D> cell;
        int depth;
    };

    bool spread_axis() const { return params_[Setting::kSpreadAxis].is_on(); }

    void build(WatchRecorder<D>* watch);
    void make_node(const Task& task, WatchRecorder<D>* watch);
    void fit_bounds();
    template <bool Watched>
    void find_pairs(std::uint32_t node, PairList& pairs, std::uint64_t& tests,
                    std::vector<std::uint32_t>& stack) const;
    // Calls visit(entry) for the held entries, at `from` (unless `below`) and in its subtree,
    // that may overlap `box`: subtrees whose bounds miss it (or that are all static when
    // `skip_static`) are pruned, and each node walks only the entries that reach `box` on its
    // axis. visit tests the full overlap itself. With a trace (or Watch mode's `watch`),
    // records the centre plane of each node entered and the subtree bounds of each pruned.
    template <typename Fn>
    void walk_held(const Node& n, const Aabb<D>& box, bool left_of, bool right_of,
                   const Fn& visit) const;
    // Watched: Watch mode's instantiation, which records what it enters and prunes.
    template <bool Watched = false, typename Fn>
    void descend(std::uint32_t from, bool below, const Aabb<D>& box, bool skip_static,
                 std::vector<std::uint32_t>& stack, QueryTrace<D>* trace, const Fn& visit) const;
    void draw_structure(DebugDraw<D>& draw, float alpha, std::uint64_t hidden_layers) const;
    std::string path_of(std::uint32_t node) const;

    // The places of the parameters in params_, in its order; kCount is how many.
    enum Setting : std::uint8_t { kSpreadAxis, kCount };
    std::array<Param, Setting::kCount> params_ = {{Param::toggle("axis of greatest spread", true)}};
    std::vector<Entry> entries_;  // build scratch: the bodies, partitioned node by node
    std::vector<Task> tasks_;
    std::vector<Node> nodes_;  // pre-order: a parent before its children
    // Every node's held bodies, contiguous in node order, by low end on the node axis
    // (ascending); the same ranges as indices into by_lo_, by high end (descending) and by
    // low end on the sweep axis (ascending).
    std::vector<Entry> by_lo_;
    std::vector<std::uint32_t> by_hi_, by_sweep_;
    std::vector<std::uint32_t> node_of_;  // per body
    ChunkedSweep chunks_;
    using EngineBroadPhase<D>::costs_;
    int deepest_ = 0;
};

template <int D>
template <bool Watched, typename Fn>
void CentredIntervalTree<D>::descend(std::uint32_t from, bool below, const Aabb<D>& box,
                                     bool skip_static, std::vector<std::uint32_t>& stack,
                                     QueryTrace<D>* trace, const Fn& visit) const {
    WatchRecorder<D>* const watch = Watched ? this->watch_ : nullptr;
    stack.clear();
    stack.push_back(from);
    while (!stack.empty()) {
        const std::uint32_t at = stack.back();
        stack.pop_back();
        const Node& n = nodes_[at];
        const bool enter = n.bounds.overlaps(box) && !(skip_static && n.all_static);
        if (trace)
            trace->add(enter ? n.plane() : n.bounds,
                       enter ? TraceKind::kDescended : TraceKind::kPruned);
        if (watch) {
            if (enter)
                watch->enter(n.plane());
            else
                watch->prune(n.bounds);
        }
        if (!enter) continue;
        const bool left_of = box.hi[n.axis] < n.centre;
        const bool right_of = box.lo[n.axis] > n.centre;
        if (at != from || !below) walk_held(n, box, left_of, right_of, visit);
        if (n.right != kNone && !left_of) stack.push_back(n.right);
        if (n.left != kNone && !right_of) stack.push_back(n.left);
    }
}

// The node axis sorts the held bodies that reach `box` there into one run: those whose low
// end reaches it when it lies left of the centre, whose high end does when right, all when
// it straddles. The sweep axis gives another run: low ends in [box.lo - reach, box.hi] (the
// test is lo + reach < box.lo, which rounding can never make true for a body that reaches).
// Both runs hold every held body that overlaps `box`; the shorter one is walked, so a big
// held set (a plane of bodies in 3D, a centre line) is cut down on a second axis too.
template <int D>
template <typename Fn>
void CentredIntervalTree<D>::walk_held(const Node& n, const Aabb<D>& box, bool left_of,
                                       bool right_of, const Fn& visit) const {
    const int a = n.axis, s = n.sweep_axis;
    const auto first_not = [&](std::uint32_t lo, const auto& pred) {
        std::uint32_t hi = n.end;
        while (lo < hi) {
            const std::uint32_t m = lo + (hi - lo) / 2;
            if (pred(m))
                lo = m + 1;
            else
                hi = m;
        }
        return lo;
    };
    const auto sweep_lo = [&](std::uint32_t i) { return by_lo_[by_sweep_[i]].box.lo[s]; };
    const std::uint32_t w0 =
        first_not(n.begin, [&](std::uint32_t i) { return sweep_lo(i) + n.reach < box.lo[s]; });
    const std::uint32_t w1 =
        first_not(w0, [&](std::uint32_t i) { return sweep_lo(i) <= box.hi[s]; });
    std::uint32_t run = n.end;
    if (left_of) {
        run = first_not(n.begin, [&](std::uint32_t i) { return by_lo_[i].box.lo[a] <= box.hi[a]; });
    } else if (right_of) {
        run = first_not(n.begin,
                        [&](std::uint32_t i) { return by_lo_[by_hi_[i]].box.hi[a] >= box.lo[a]; });
    }
    if (w1 - w0 < run - n.begin) {
        for (std::uint32_t i = w0; i < w1; ++i) visit(by_lo_[by_sweep_[i]]);
    } else if (right_of) {
        for (std::uint32_t i = n.begin; i < run; ++i) visit(by_lo_[by_hi_[i]]);
    } else {
        for (std::uint32_t i = n.begin; i < run; ++i) visit(by_lo_[i]);
    }
}

}  // namespace collide
