#include "broadphase/quadtree.hpp"

#include <cassert>
#include <string>

namespace collide {

template <int D>
std::uint8_t RegionTree<D>::child_code(const Aabb<D>& b, const Vec<D>& center) {
    std::uint8_t code = 0;
    for (int k = 0; k < D; ++k) {
        if (b.hi[k] < center[k]) continue;
        if (!(b.lo[k] > center[k])) return kStraddles;
        code |= static_cast<std::uint8_t>(1u << k);
    }
    return code;
}

// Splits [begin, end) of items_ among the node's 2^D children: bodies that fit strictly on
// one side of every centre plane go to that child, the others stay here. Strictly, so two
// bodies in different children are separated by a plane and never overlap, even touching;
// exactness rests on that alone, not on the rounding of node regions.
template <int D>
void RegionTree<D>::build(std::uint32_t begin, std::uint32_t end, Vec<D> center, float half,
                          int depth, std::uint32_t parent, WatchRecorder<D>* watch) {
    const auto self = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back({Aabb<D>::empty(), Aabb<D>::empty(), center, half, begin, end, end, 0, parent, depth});
    if (watch) watch->enter(nodes_[self].region());
    std::array<std::uint32_t, kStraddles + 1> count{};
    const bool split = end - begin > capacity() && depth < max_depth();
    if (split) {
        for (std::uint32_t s = begin; s < end; ++s) {
            const std::uint8_t code = child_code(items_[s].box, center);
            codes_[s] = code;
            ++count[code];
        }
    }
    if (!split || count[kStraddles] == end - begin) {
        if (watch) {
            for (std::uint32_t s = begin; s < end; ++s)
                watch->place(items_[s].id, nodes_[self].region());
        }
        for (std::uint32_t s = begin; s < end; ++s) row_end_[s] = end;
        if (end > begin) deepest_ = std::max(deepest_, depth);
        nodes_[self].skip = self + 1;
        fit_bounds(nodes_, items_, self);
        return;
    }
    // Counting sort: the bodies staying here first, then child 0, 1, ...
    std::array<std::uint32_t, kStraddles + 1> at;
    at[kStraddles] = begin;
    std::uint32_t next = begin + count[kStraddles];
    for (std::uint8_t c = 0; c < kStraddles; ++c) {
        at[c] = next;
        next += count[c];
    }
    const std::array<std::uint32_t, kStraddles + 1> first = at;
    for (std::uint32_t s = begin; s < end; ++s) scratch_[at[codes_[s]]++] = items_[s];
    std::copy(scratch_.begin() + begin, scratch_.begin() + end, items_.begin() + begin);
    const std::uint32_t own_end = first[0];
    nodes_[self].own_end = own_end;
    if (watch) {
        for (std::uint32_t s = begin; s < own_end; ++s)
            watch->place(items_[s].id, nodes_[self].region());
    }
    for (std::uint32_t s = begin; s < own_end; ++s) row_end_[s] = end;
    if (own_end > begin) deepest_ = std::max(deepest_, depth);
    // Every child exists once a node splits, as in the classic tree.
    const float h = 0.5f * half;
    for (std::uint8_t c = 0; c < kStraddles; ++c) {
        Vec<D> sub = center;
        for (int k = 0; k < D; ++k) sub[k] += (c >> k) & 1u ? h : -h;
        build(first[c], first[c] + count[c], sub, h, depth + 1, self, watch);
    }
    nodes_[self].skip = static_cast<std::uint32_t>(nodes_.size());
    fit_bounds(nodes_, items_, self);
}

// Row s tests the later bodies of its node and all of the node's subregions: slots
// (s, row_end_[s]), contiguous in pre-order.
template <int D>
template <bool kWatched>
void RegionTree<D>::sweep_rows(std::size_t r0, std::size_t r1, PairList& pairs,
                               std::uint64_t& tests) const {
    const BodyCosts* costs = costs_.if_on();
    WatchRecorder<D>* const watch = kWatched ? this->watch_ : nullptr;
    // Watch mode shows the node whose bodies the rows have reached: nodes' own slots follow
    // each other in pre-order, so one index follows the rows.
    std::uint32_t node = watch && r0 < r1 ? node_of_slot(nodes_, r0) : 0;
    for (std::size_t s = r0; s < r1; ++s) {
        const TreeItem<D>& a = items_[s];
        const std::uint32_t end = row_end_[s];
        if (watch) {
            while (s >= nodes_[node].own_end) ++node;
            if (s == nodes_[node].begin) watch->visit(nodes_[node].region());
            watch->cursor(a.id, 0, a.box.lo[0]);
        }
        for (std::uint32_t t = static_cast<std::uint32_t>(s) + 1; t < end; ++t) {
            test_pair(a, items_[t], pairs, tests, costs, watch);
        }
    }
}

template <int D>
void RegionTree<D>::build_and_search(std::span<const Aabb<D>> boxes,
                                     std::span<const std::uint8_t> is_static, PairList& out) {
    const auto n = static_cast<std::uint32_t>(boxes.size());
    items_.resize(n);
    for (BodyId i = 0; i < n; ++i) items_[i] = {boxes[i], i, is_static[i], 0};
    scratch_.resize(n);
    codes_.resize(n);
    row_end_.resize(n);
    nodes_.clear();
    deepest_ = 0;
    WatchRecorder<D>* watch = this->watch_;
    if (watch) watch->phase("build");
    Vec<D> center;
    float half;
    root_square(boxes, center, half);
    build(0, n, center, half, 0, 0, watch);
    if (watch) watch->phase("find pairs");
    const auto sweep = [&](std::size_t b, std::size_t e, PairList& p, std::uint64_t& t) {
        if (watch)
            sweep_rows<true>(b, e, p, t);
        else
            sweep_rows<false>(b, e, p, t);
    };
    chunks_.run(parallel(), n, 2048, sweep, out);
}

// The shared checks (validate_tree), then this tree's own: a split node has all 2^D
// children, centred a quarter of its side away on each axis; every body below a child lies
// strictly on that child's side of the node's centre planes (what exactness rests on),
// while a split node's own bodies straddle or touch one; a leaf holds more than `capacity`
// only at `max depth` or when all its bodies straddle; each slot's row ends at its node's
// subtree end; the deepest node holding bodies.
template <int D>
void RegionTree<D>::validate() const {
    const char* name = D == 2 ? "quadtree" : "octree";
    const InvariantFail fail(name);
    validate_tree(nodes_, items_, fail);
    if (row_end_.size() != items_.size())
        fail(str(row_end_.size()) + " row ends for " + str(items_.size()) + " slots");
    int deepest = 0;
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
        const TreeNode<D>& node = nodes_[i];
        const float h = 0.5f * node.half;
        std::uint8_t code = 0;
        for (std::uint32_t c = i + 1; c < node.skip; c = nodes_[c].skip, ++code) {
            Vec<D> center = node.center;
            for (int k = 0; k < D; ++k) center[k] += (code >> k) & 1u ? h : -h;
            if (code >= kStraddles || !same_point<D>(nodes_[c].center, center))
                fail("node " + str(c) + " is not where child " + str(code) + " of node " + str(i) +
                     " lies");
            for (std::uint32_t s = nodes_[c].begin; s < nodes_[c].end; ++s) {
                if (child_code(items_[s].box, node.center) != code)
                    fail("body " + str(items_[s].id) + " under node " + str(c) +
                         " is not strictly inside child " + str(code) + " of node " + str(i));
            }
        }
        if (code != 0 && code != kStraddles)
            fail("node " + str(i) + " has " + str(code) + " children");
        const bool full = node.own() > capacity() && node.depth < max_depth();
        for (std::uint32_t s = node.begin; s < node.own_end; ++s) {
            if ((code != 0 || full) && child_code(items_[s].box, node.center) != kStraddles)
                fail("body " + str(items_[s].id) + " stays at node " + str(i) + " (" +
                     str(node.own()) + " bodies, " + str(code) +
                     " children) though it fits one child");
            if (row_end_[s] != node.end)
                fail("slot " + str(s) + "'s row ends at " + str(row_end_[s]) + ", not at " +
                     str(node.end));
        }
        if (node.own() > 0) deepest = std::max(deepest, node.depth);
    }
    if (deepest_ != deepest)
        fail("the deepest node holding bodies is at " + str(deepest) + ", recorded " +
             str(deepest_));
}

template <int D>
void RegionTree<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                           QueryTrace<D>* trace) const {
    tree_query(nodes_, items_, region, out, trace);
}

template <int D>
BroadPhaseStats RegionTree<D>::stats() const {
    const std::size_t bytes = (items_.capacity() + scratch_.capacity()) * sizeof(TreeItem<D>) +
                              codes_.capacity() + row_end_.capacity() * sizeof(std::uint32_t) +
                              nodes_.capacity() * sizeof(TreeNode<D>) + chunks_.bytes();
    return {.candidate_tests = chunks_.tests(),
            .structure_bytes = bytes,
            .nodes = nodes_.size(),
            .depth = deepest_};
}

template class RegionTree<2>;
template class RegionTree<3>;

}  // namespace collide
