// What the quadtree/octree and the loose tree share: bodies laid out in one array in the
// pre-order of the tree's nodes (a node's own bodies, then each child's subtree), nodes in
// pre-order with a skip index past their subtree, so a pruned descent is one forward loop
// with no stack. Each node keeps the fitted bounds of its subtree's boxes: pruning by them
// is exact whatever the rounding of the node regions, and never looser than the regions.
// Also here: the region query, the overlays and the selection text both trees draw alike,
// and the checks of validate() both trees share.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <span>
#include <string>
#include <vector>

#include "broadphase/common/aabb_tree.hpp"
#include "broadphase/common/body_costs.hpp"
#include "broadphase/common/pair_test.hpp"
#include "collide/broadphase.hpp"

namespace collide {

template <int D>
struct TreeItem {
    Aabb<D> box;
    BodyId id;
    std::uint8_t is_static;
    std::uint8_t level;  // the loose tree's depth for the body's size; unused by the quadtree
};

template <int D>
struct TreeNode {
    Aabb<D> bounds;      // fitted around every box in the subtree; empty() when none
    Aabb<D> own_bounds;  // fitted around the node's own boxes
    Vec<D> center;
    float half;      // half the side of the node's (tight) region
    std::uint32_t begin, own_end, end;  // slots: own bodies [begin, own_end), subtree [begin, end)
    std::uint32_t skip;    // the node after this subtree, in pre-order
    std::uint32_t parent;  // the root is its own parent
    int depth;

    Aabb<D> region(float grow = 1.0f) const {
        return {center - Vec<D>(half * grow), center + Vec<D>(half * grow)};
    }
    std::uint32_t own() const { return own_end - begin; }
};

// The pair test (pair_test.hpp) of two tree items; `watch`: Watch mode's recorder, or null.
template <int D>
void test_pair(const TreeItem<D>& a, const TreeItem<D>& b, PairList& out, std::uint64_t& tests,
               const BodyCosts* costs, WatchRecorder<D>* watch = nullptr) {
    test_pair(a.id, a.box, b.id, b.box, a.is_static && b.is_static, out, tests, costs, watch);
}

// The square/cube around all boxes: centred on their bounds, side their largest extent.
template <int D>
void root_square(std::span<const Aabb<D>> boxes, Vec<D>& center, float& half) {
    Aabb<D> all = Aabb<D>::empty();
    for (const Aabb<D>& b : boxes) all.grow(b);
    center = all.center();
    half = 0.0f;
    for (int k = 0; k < D; ++k) half = std::max(half, 0.5f * (all.hi[k] - all.lo[k]));
    if (boxes.empty()) center = Vec<D>(0.0f);
}

// Fills in a node's bounds from its own boxes and its children (which follow it in
// pre-order up to its skip), once the subtree is built.
template <int D>
void fit_bounds(std::vector<TreeNode<D>>& nodes, const std::vector<TreeItem<D>>& items,
                std::uint32_t node) {
    TreeNode<D>& n = nodes[node];
    Aabb<D> b = Aabb<D>::empty();
    for (std::uint32_t s = n.begin; s < n.own_end; ++s) b.grow(items[s].box);
    n.own_bounds = b;
    for (std::uint32_t c = node + 1; c < n.skip; c = nodes[c].skip) b.grow(nodes[c].bounds);
    n.bounds = b;
}

// Bodies overlapping `region`: descends through the nodes whose fitted bounds overlap it.
template <int D>
void tree_query(const std::vector<TreeNode<D>>& nodes, const std::vector<TreeItem<D>>& items,
                const Aabb<D>& region, std::vector<BodyId>& out,
                QueryTrace<D>* trace = nullptr) {
    out.clear();
    for (std::uint32_t i = 0; i < nodes.size();) {
        const TreeNode<D>& n = nodes[i];
        const bool enter = n.bounds.overlaps(region);
        if (trace) trace->add(n.region(), enter ? TraceKind::kDescended : TraceKind::kPruned);
        if (!enter) {
            i = n.skip;
            continue;
        }
        for (std::uint32_t s = n.begin; s < n.own_end; ++s) {
            if (items[s].box.overlaps(region)) out.push_back(items[s].id);
        }
        ++i;
    }
}

// validate()'s checks common to both trees, calling fail(text) (which throws) on the first
// broken one: every body id in one slot; the root spans every slot; a node's own slots and
// then its children's subtrees, in turn, fill its range with no gap or overlap; children
// link back, one level deeper and half the size, and the skips land past each subtree, so
// the nodes are in pre-order; own bounds fitted around the own boxes and bounds around
// those and the children's, exactly.
template <int D, typename Fail>
void validate_tree(const std::vector<TreeNode<D>>& nodes, const std::vector<TreeItem<D>>& items,
                   const Fail& fail) {
    const auto n = static_cast<std::uint32_t>(items.size());
    const auto size = static_cast<std::uint32_t>(nodes.size());
    std::vector<std::uint8_t> seen(n, 0);
    for (std::uint32_t s = 0; s < n; ++s) {
        const BodyId id = items[s].id;
        if (id >= n) fail("slot " + str(s) + " holds body " + str(id) + " of " + str(n));
        if (seen[id]++) fail("body " + str(id) + " is in slot " + str(s) + " and an earlier one");
    }
    if (nodes.empty()) {
        if (n > 0) fail(str(n) + " bodies and no nodes");
        return;  // nothing built yet
    }
    const TreeNode<D>& root = nodes[0];
    if (root.begin != 0 || root.end != n || root.skip != size || root.parent != 0 ||
        root.depth != 0)
        fail("the root spans slots [" + str(root.begin) + ", " + str(root.end) + ") of " + str(n) +
             " and skips to " + str(root.skip) + " of " + str(size) + " nodes");
    for (std::uint32_t i = 0; i < size; ++i) {
        const TreeNode<D>& node = nodes[i];
        const auto at = [&] { return "node " + str(i); };
        if (!(node.begin <= node.own_end && node.own_end <= node.end && node.end <= n))
            fail(at() + " has slots " + str(node.begin) + ", " + str(node.own_end) + ", " +
                 str(node.end) + " of " + str(n));
        if (node.skip <= i || node.skip > size)
            fail(at() + " skips to node " + str(node.skip) + " of " + str(size));
        Aabb<D> own = Aabb<D>::empty();
        for (std::uint32_t s = node.begin; s < node.own_end; ++s) {
            if (const auto out = sticks_out(node.own_bounds, items[s].box))
                fail(at() + "'s own bounds do not hold body " + str(items[s].id) + " (" + *out +
                     ")");
            own.grow(items[s].box);
        }
        if (!same_box(own, node.own_bounds)) fail(at() + "'s own bounds are not fitted");
        Aabb<D> all = own;
        std::uint32_t slot = node.own_end, c = i + 1;
        for (; c < node.skip; c = nodes[c].skip) {
            const TreeNode<D>& child = nodes[c];
            if (child.parent != i || child.depth != node.depth + 1 ||
                child.half != 0.5f * node.half)
                fail("node " + str(c) + ", child of " + str(i) + ", has parent " +
                     str(child.parent) + ", depth " + str(child.depth) + " (its parent's " +
                     str(node.depth) + ") and not half its parent's side");
            if (child.begin != slot)
                fail("node " + str(c) + ", child of " + str(i) + ", begins at slot " +
                     str(child.begin) + ", not " + str(slot));
            if (child.skip <= c) fail("node " + str(c) + " skips back to " + str(child.skip));
            if (const auto out = sticks_out(node.bounds, child.bounds))
                fail(at() + "'s bounds do not hold child " + str(c) + "'s (" + *out + ")");
            all.grow(child.bounds);
            slot = child.end;
        }
        if (c != node.skip)
            fail(at() + "'s last child skips to " + str(c) + ", past " + str(node.skip));
        if (slot != node.end)
            fail(at() + "'s children end at slot " + str(slot) + ", the node at " + str(node.end));
        if (const auto out = sticks_out(node.bounds, own))
            fail(at() + "'s bounds do not hold its own bodies (" + *out + ")");
        if (!same_box(all, node.bounds)) fail(at() + "'s bounds are not fitted");
    }
}

// The slot of body `id`, or items.size().
template <int D>
std::size_t slot_of(const std::vector<TreeItem<D>>& items, BodyId id) {
    for (std::size_t s = 0; s < items.size(); ++s) {
        if (items[s].id == id) return s;
    }
    return items.size();
}

// The node whose own bodies hold `slot`: down from the root through the child holding it.
template <int D>
std::uint32_t node_of_slot(const std::vector<TreeNode<D>>& nodes, std::size_t slot) {
    std::uint32_t i = 0;
    while (slot >= nodes[i].own_end) {
        std::uint32_t c = i + 1;
        while (slot >= nodes[c].end) c = nodes[c].skip;
        i = c;
    }
    return i;
}

}  // namespace collide
