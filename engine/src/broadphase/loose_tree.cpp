#include "broadphase/loose_tree.hpp"

#include <cassert>
#include <cmath>
#include <string>

#include "broadphase/common/nearly_sorted.hpp"
#include "collide/morton.hpp"

namespace collide {

template <int D>
typename LooseTree<D>::KeyRule LooseTree<D>::key_rule() const {
    const int cap = max_depth();
    const double side = 2.0 * root_half_;
    const double cells = std::ldexp(1.0, cap);
    return {cap, side, cells / side, cells, root_center_, root_half_};  // scale: cells per unit
}

// A body's key from its size (the depth) and its centre (the cell on the finest grid over
// the root, cut to that depth).
template <int D>
std::uint64_t LooseTree<D>::KeyRule::operator()(const Aabb<D>& b) const {
    float extent = 0.0f;
    for (int k = 0; k < D; ++k) extent = std::max(extent, b.hi[k] - b.lo[k]);
    // The deepest depth whose node side (side / 2^depth) is at least the extent.
    const double ratio = side / extent;  // +inf for a point; NaN for non-finite boxes
    int level = 0;
    if (ratio >= 1.0) level = ratio >= cells ? cap : std::ilogb(ratio);
    morton::Coords<D> q;
    for (int k = 0; k < D; ++k) {
        const double g =
            (0.5 * (double(b.lo[k]) + b.hi[k]) - (double(root_center[k]) - root_half)) * scale;
        q[k] = !(g > 0.0)   ? 0
               : g >= cells ? static_cast<std::uint32_t>(cells - 1)
                            : static_cast<std::uint32_t>(g);
    }
    const std::uint64_t code = morton::encode<D>(q) & ~morton::level_mask<D>(cap - level);
    return (code << kDepthBits) | static_cast<std::uint64_t>(level);
}

// Each body's key, then the keys sorted: the previous frame's order re-sorted by insertion
// while bodies move little, else a full sort.
template <int D>
void LooseTree<D>::sort_keys(std::span<const Aabb<D>> boxes) {
    const auto n = static_cast<std::uint32_t>(boxes.size());
    const KeyRule rule = key_rule();
    const auto key_of = [&](BodyId id) { return Keyed{rule(boxes[id]), id}; };
    const auto less = [](const Keyed& x, const Keyed& y) { return x.key < y.key; };
    if (persistent() && order_.size() == n) {
        for (Keyed& e : order_) e = key_of(e.id);
        if (!insertion_sort_within(order_, n, less)) std::sort(order_.begin(), order_.end(), less);
    } else {
        order_.resize(n);
        for (BodyId i = 0; i < n; ++i) order_[i] = key_of(i);
        std::sort(order_.begin(), order_.end(), less);
    }
}

// One pass over the sorted keys: a node's own bodies share one key and come first in its
// subtree, so nodes open down the path of each new key and close when the path leaves them.
template <int D>
void LooseTree<D>::build(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                         WatchRecorder<D>* watch) {
    const auto n = static_cast<std::uint32_t>(boxes.size());
    const int cap = max_depth();
    items_.resize(n);
    nodes_.clear();
    open_.clear();
    deepest_ = 0;
    const auto close = [&](std::uint32_t end) {
        const std::uint32_t i = open_.back();
        open_.pop_back();
        TreeNode<D>& node = nodes_[i];
        node.end = end;
        node.skip = static_cast<std::uint32_t>(nodes_.size());
        node.bounds.grow(node.own_bounds);
        if (!open_.empty()) nodes_[open_.back()].bounds.grow(node.bounds);
    };
    const auto open = [&](std::uint32_t begin, Vec<D> center, float half, int depth) {
        const std::uint32_t parent = open_.empty() ? 0 : open_.back();
        open_.push_back(static_cast<std::uint32_t>(nodes_.size()));
        nodes_.push_back({Aabb<D>::empty(), Aabb<D>::empty(), center, half, begin, begin, begin,
                          0, parent, depth});
        if (watch) watch->enter(nodes_.back().region());
    };
    open(0, root_center_, root_half_, 0);
    std::uint64_t path = 0;  // the code of the deepest open node's cell, at its depth
    for (std::uint32_t s = 0; s < n; ++s) {
        const std::uint64_t key = order_[s].key;
        const int level = static_cast<int>(key & ((1u << kDepthBits) - 1));
        const std::uint64_t code = key >> kDepthBits;
        const auto cell_at = [&](int depth) { return code >> (D * (cap - depth)); };
        // Close the open nodes not on this body's path.
        while (nodes_[open_.back()].depth > level ||
               (open_.size() > 1 && cell_at(nodes_[open_.back()].depth) != path)) {
            close(s);
            path >>= D;
        }
        // Open the missing ones down to its depth.
        for (int depth = nodes_[open_.back()].depth; depth < level; ++depth) {
            const TreeNode<D>& top = nodes_[open_.back()];
            path = cell_at(depth + 1);
            const float h = 0.5f * top.half;
            Vec<D> center = top.center;
            for (int k = 0; k < D; ++k) center[k] += (path >> k) & 1u ? h : -h;
            open(s, center, h, depth + 1);
        }
        const BodyId id = order_[s].id;
        items_[s] = {boxes[id], id, is_static[id], static_cast<std::uint8_t>(level)};
        TreeNode<D>& node = nodes_[open_.back()];
        node.own_end = s + 1;
        node.own_bounds.grow(boxes[id]);
        // Its loose box is what holds it.
        if (watch) watch->place(id, node.region(2.0f));
        deepest_ = std::max(deepest_, level);
    }
    while (!open_.empty()) close(n);
}

template <int D>
void LooseTree<D>::sweep_rows(std::size_t r0, std::size_t r1, PairList& pairs,
                              std::uint64_t& tests) const {
    const BodyCosts* costs = costs_.if_on();
    WatchRecorder<D>* watch = this->watch_;
    for (std::size_t s = r0; s < r1; ++s) {
        const TreeItem<D>& a = items_[s];
        if (watch) watch->cursor(a.id, 0, a.box.lo[0]);
        for_each_candidate(
            s, [&](std::uint32_t j) { test_pair(a, items_[j], pairs, tests, costs, watch); },
            watch);
    }
}

// The own bodies of node a against every body in the subtree of node b.
template <int D>
template <bool Watched>
void LooseTree<D>::own_vs_subtree(std::uint32_t a, std::uint32_t b, PairList& out,
                                  std::uint64_t& tests) const {
    WatchRecorder<D>* const watch = Watched ? this->watch_ : nullptr;
    const TreeNode<D>& na = nodes_[a];
    if (na.own_end == na.begin) return;
    for (std::uint32_t i = b; i < nodes_[b].skip;) {
        const TreeNode<D>& m = nodes_[i];
        if (!m.bounds.overlaps(na.own_bounds)) {
            if (watch) watch->prune(m.region());
            i = m.skip;
            continue;
        }
        if (watch) watch->enter(m.region());
        if (m.own_end > m.begin && m.own_bounds.overlaps(na.own_bounds)) {
            for (std::uint32_t s = na.begin; s < na.own_end; ++s) {
                const TreeItem<D>& x = items_[s];
                if (!x.box.overlaps(m.own_bounds)) continue;
                for (std::uint32_t t = m.begin; t < m.own_end; ++t)
                    test_pair(x, items_[t], out, tests, costs_.if_on(), watch);
            }
        }
        ++i;
    }
}

// Every body of subtree a against every body of the disjoint subtree b: a's own bodies
// against all of b, b's own against a's children, then the children pairwise.
template <int D>
template <bool Watched>
void LooseTree<D>::cross_trees(std::uint32_t a, std::uint32_t b, PairList& out,
                               std::uint64_t& tests) const {
    WatchRecorder<D>* const watch = Watched ? this->watch_ : nullptr;
    if (!nodes_[a].bounds.overlaps(nodes_[b].bounds)) {
        // The pair of subtrees is dropped: shown as b, the one a is not descended against.
        if (watch) watch->prune(nodes_[b].region());
        return;
    }
    own_vs_subtree<Watched>(a, b, out, tests);
    const std::uint32_t a_end = nodes_[a].skip, b_end = nodes_[b].skip;
    for (std::uint32_t c = a + 1; c < a_end; c = nodes_[c].skip)
        own_vs_subtree<Watched>(b, c, out, tests);
    for (std::uint32_t c = a + 1; c < a_end; c = nodes_[c].skip) {
        for (std::uint32_t e = b + 1; e < b_end; e = nodes_[e].skip)
            cross_trees<Watched>(c, e, out, tests);
    }
}

// Every pair within the subtree of `node`.
template <int D>
template <bool Watched>
void LooseTree<D>::self_pairs(std::uint32_t node, PairList& out, std::uint64_t& tests) const {
    WatchRecorder<D>* const watch = Watched ? this->watch_ : nullptr;
    const TreeNode<D>& n = nodes_[node];
    if (watch) watch->visit(n.region());
    for (std::uint32_t s = n.begin; s < n.own_end; ++s) {
        for (std::uint32_t t = s + 1; t < n.own_end; ++t)
            test_pair(items_[s], items_[t], out, tests, costs_.if_on(), watch);
    }
    const std::uint32_t end = n.skip;
    for (std::uint32_t c = node + 1; c < end; c = nodes_[c].skip) {
        own_vs_subtree<Watched>(node, c, out, tests);
        self_pairs<Watched>(c, out, tests);
        for (std::uint32_t e = nodes_[c].skip; e < end; e = nodes_[e].skip) {
            cross_trees<Watched>(c, e, out, tests);
        }
    }
}

template <int D>
void LooseTree<D>::build_and_search(std::span<const Aabb<D>> boxes,
                                    std::span<const std::uint8_t> is_static, PairList& out) {
    const auto n = static_cast<std::uint32_t>(boxes.size());
    WatchRecorder<D>* watch = this->watch_;
    if (watch) watch->phase("sort by node key");
    // The root is kept while it holds every box and is not too loose, so coherent motion
    // keeps the keys (and the order) nearly as they were.
    Vec<D> center;
    float half;
    root_square(boxes, center, half);
    bool keep = persistent() && half <= root_half_ && half >= 0.5f * root_half_;
    for (int k = 0; k < D && keep; ++k) {
        keep = center[k] - half >= root_center_[k] - root_half_ &&
               center[k] + half <= root_center_[k] + root_half_;
    }
    if (!keep) {
        root_center_ = center;
        root_half_ = persistent() ? 1.125f * half : half;
    }
    sort_keys(boxes);
    if (watch) watch->phase("build");
    build(boxes, is_static, watch);
    const auto sweep = [&](std::size_t b, std::size_t e, PairList& p, std::uint64_t& t) {
        sweep_rows(b, e, p, t);
    };
    if (dual()) {
        if (watch) watch->phase("dual descent");
        chunks_.run_serial(
            n,
            [&](std::size_t, std::size_t rows, PairList& p, std::uint64_t& t) {
                // Watch mode's descent is an instantiation of its own: the timed one
                // passes no recorder down its recursion.
                if (rows > 0 && watch) self_pairs<true>(0, p, t);
                if (rows > 0 && !watch) self_pairs<false>(0, p, t);
            },
            out);
    } else {
        if (watch) watch->phase("descend");
        chunks_.run(parallel(), n, 2048, sweep, out);
    }
}

// The shared checks (validate_tree), then this tree's own: the keys sorted, each the one
// its body's box gives now (so each body at the depth its size dictates, in the cell of
// its centre), in step with the slots; a node's own bodies all of its depth, its subtree
// all in its cell; children in distinct cells of their parent's, in key order, centred a
// quarter of its side away; every node but the root holding bodies; each body inside its
// node's loose box, up to rounding; the deepest depth.
template <int D>
void LooseTree<D>::validate() const {
    const InvariantFail fail("loose-tree");
    validate_tree(nodes_, items_, fail);
    const auto n = static_cast<std::uint32_t>(items_.size());
    if (nodes_.empty()) return;
    if (order_.size() != n) fail(str(order_.size()) + " keys for " + str(n) + " slots");
    const KeyRule rule = key_rule();
    int deepest = 0;
    for (std::uint32_t s = 0; s < n; ++s) {
        const std::uint64_t key = order_[s].key;
        const int level = static_cast<int>(key & ((1u << kDepthBits) - 1));
        const auto body = [&] { return "body " + str(items_[s].id); };
        if (order_[s].id != items_[s].id)
            fail("slot " + str(s) + " holds " + body() + ", its key body " + str(order_[s].id));
        if (key != rule(items_[s].box))
            fail(body() + "'s key " + str(key) + " is not its box's, " + str(rule(items_[s].box)));
        if (s > 0 && key < order_[s - 1].key)
            fail(body() + "'s key is out of order at slot " + str(s));
        if (items_[s].level != level)
            fail(body() + " has depth " + str(int(items_[s].level)) + ", its key " + str(level));
        deepest = std::max(deepest, level);
    }
    if (deepest_ != deepest)
        fail("the deepest body is at depth " + str(deepest) + ", recorded " + str(deepest_));
    const int cap = rule.cap;
    // The cell at `depth` of the body in slot s: its key's code cut to that depth.
    const auto cell = [&](std::uint32_t s, int depth) {
        return (order_[s].key >> kDepthBits) >> (D * (cap - depth));
    };
    float scale = root_half_;
    for (int k = 0; k < D; ++k) scale = std::max(scale, std::abs(root_center_[k]));
    const TreeNode<D>& root = nodes_[0];
    if (!same_point<D>(root.center, root_center_) || root.half != root_half_)
        fail("the root is not the root square");
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
        if (nodes_[i].depth > cap)
            fail("node " + str(i) + " is at depth " + str(nodes_[i].depth) + ", past " + str(cap));
    }
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
        const TreeNode<D>& node = nodes_[i];
        const auto at = [&] { return "node " + str(i); };
        if (node.end == node.begin) {
            if (i > 0) fail(at() + " holds no bodies");
            continue;
        }
        const std::uint64_t path = cell(node.begin, node.depth);
        if (cell(node.end - 1, node.depth) != path)
            fail(at() + "'s subtree spans two cells at its depth " + str(node.depth));
        // Rounding of the node centres and of the body extents, which grows with the depth.
        const float slack = static_cast<float>(node.depth + 2) * std::ldexp(scale, -20);
        Aabb<D> loose = node.region(2.0f);
        loose.lo -= Vec<D>(slack);
        loose.hi += Vec<D>(slack);
        for (std::uint32_t s = node.begin; s < node.own_end; ++s) {
            if (items_[s].level != node.depth)
                fail("body " + str(items_[s].id) + " of depth " + str(int(items_[s].level)) +
                     " is held by " + at() + " of depth " + str(node.depth));
            // A non-finite box has no centre or size to be placed by (cell 0, or the root).
            const Aabb<D>& box = items_[s].box;
            bool finite = true;
            for (int k = 0; k < D; ++k)
                finite = finite && std::isfinite(box.lo[k]) && std::isfinite(box.hi[k]);
            if (const auto out = finite ? sticks_out(loose, box) : std::nullopt)
                fail("body " + str(items_[s].id) + " sticks out of " + at() + "'s loose box (" +
                     *out + ")");
        }
        const float h = 0.5f * node.half;
        std::uint64_t last = 0;
        for (std::uint32_t c = i + 1; c < node.skip; c = nodes_[c].skip) {
            const std::uint64_t sub = cell(nodes_[c].begin, node.depth + 1);
            if (sub >> D != path || (c > i + 1 && sub <= last))
                fail("node " + str(c) + " is not a new cell within its parent " + str(i));
            last = sub;
            Vec<D> center = node.center;
            for (int k = 0; k < D; ++k) center[k] += (sub >> k) & 1u ? h : -h;
            if (!same_point<D>(nodes_[c].center, center))
                fail("node " + str(c) + " is not centred on its cell within node " + str(i));
        }
    }
}

template <int D>
void LooseTree<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                          QueryTrace<D>* trace) const {
    tree_query(nodes_, items_, region, out, trace);
}

template <int D>
BroadPhaseStats LooseTree<D>::stats() const {
    const std::size_t bytes = items_.capacity() * sizeof(TreeItem<D>) +
                              order_.capacity() * sizeof(Keyed) +
                              open_.capacity() * sizeof(std::uint32_t) +
                              nodes_.capacity() * sizeof(TreeNode<D>) +
                              chunks_.bytes();
    return {.candidate_tests = chunks_.tests(),
            .structure_bytes = bytes,
            .nodes = nodes_.size(),
            .depth = deepest_};
}

template class LooseTree<2>;
template class LooseTree<3>;

}  // namespace collide
