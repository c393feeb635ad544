// The dynamic AABB tree's invariants (validate()), checked after every update where assertions
// are on, and by the tests.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "broadphase/dynamic_aabb_tree.hpp"

namespace collide {

// Both trees' pools (AabbTree::broken); the proxy numbering a permutation of the bodies, with
// the static flags as given; each proxy's leaf in its tree, holding it and its fat box,
// which holds its real box, and no other leaves; the moved marks and the move buffer
// alike; the fat pairs: each in its first proxy's range, of two fat boxes that overlap,
// not both static, once, and as many as the trees' own join finds (so all of them).
template <int D>
void DynamicAabbTree<D>::validate() const {
    const InvariantFail fail("dynamic-aabb-tree");
    if (frame_ == 0) return;  // nothing built yet
    const std::size_t n = body_of_.size();
    for (const std::size_t size : {proxy_of_.size(), boxes_.size(), fat_.size(), leaf_.size(),
                                   static_.size(), input_static_.size(), moved_.size()}) {
        if (size != n) fail("a per-proxy array holds " + str(size) + " entries for " + str(n));
    }
    if (!(margin_scale_ >= kMinMarginScale && margin_scale_ <= kMaxMarginScale))
        fail("the margin's scale " + str(margin_scale_) + " is outside its range");
    const auto check_tree = [&](const AabbTree<D>& tree, const char* which) {
        std::size_t leaves = 0;
        if (const auto broken = tree.broken(leaves)) fail(std::string(which) + " tree: " + *broken);
        return leaves;
    };
    const std::size_t moving_leaves = check_tree(moving_tree_, "moving");
    const std::size_t static_leaves = check_tree(static_tree_, "static");
    std::size_t statics = 0, moved = 0;
    for (std::uint32_t p = 0; p < n; ++p) {
        const BodyId b = body_of_[p];
        if (b >= n || proxy_of_[b] != p)
            fail("proxy " + str(p) + " is body " + str(b) + ", whose proxy is " +
                 (b < n ? str(proxy_of_[b]) : std::string("none")));
        if (static_[p] != (input_static_[b] != 0))
            fail("proxy " + str(p) + "'s static flag is not body " + str(b) + "'s");
        statics += static_[p];
        moved += moved_[p] != kStayed;
        const AabbTree<D>& tree = tree_of(p);
        const std::int32_t leaf = leaf_[p];
        if (leaf < 0 || static_cast<std::size_t>(leaf) >= tree.slots() || !tree.node(leaf).leaf() ||
            tree.height_of(leaf) != 0 || tree.node(leaf).proxy() != p)
            fail("body " + str(b) + "'s leaf " + str(leaf) + " is not a live leaf of proxy " +
                 str(p));
        if (!same_box(tree.node(leaf).box, fat_[p]))
            fail("body " + str(b) + "'s leaf " + str(leaf) + " holds another box than its fat box");
        if (const auto out = sticks_out(fat_[p], boxes_[p]))
            fail("body " + str(b) + "'s box leaves its fat box (" + *out + ")");
    }
    // Distinct proxies in distinct leaves, as many as each tree has: a bijection.
    if (statics != statics_ || moving_leaves != n - statics || static_leaves != statics)
        fail(str(statics) + " static proxies of " + str(n) + " (counted " + str(statics_) +
             "); the trees have " + str(moving_leaves) + " moving and " + str(static_leaves) +
             " static leaves");
    if (move_buffer_.size() != moved)
        fail(str(moved) + " proxies marked moved, " + str(move_buffer_.size()) + " in the buffer");
    for (std::size_t i = 0; i < move_buffer_.size(); ++i) {
        const std::uint32_t p = move_buffer_[i];
        if (p >= n || !moved_[p] || (i > 0 && p <= move_buffer_[i - 1]))
            fail("move buffer entry " + str(i) + " (proxy " + str(p) +
                 ") is not a moved proxy in ascending order");
    }

    // The fat pairs. No lists at all while no update has rebuilt (the first had no bodies).
    const std::size_t lists = std::max<std::size_t>(1, (n + per_list_ - 1) / per_list_);
    if (fat_lists_.size() != lists && !(n == 0 && fat_lists_.empty()))
        fail(str(fat_lists_.size()) + " pair lists for " + str(n) + " proxies by " +
             str(per_list_));
    std::vector<std::uint64_t> keys;
    for (std::size_t l = 0; l < fat_lists_.size(); ++l) {
        for (const Pair& pr : fat_lists_[l]) {
            const auto what = [&] {
                return "fat pair (" + str(pr.a) + ", " + str(pr.b) + ") of list " + str(l);
            };
            if (pr.a >= n || pr.b >= n || pr.a == pr.b || list_of(pr.a) != l)
                fail(what() + " is not of two proxies, the first in the list's range");
            if (static_[pr.a] && static_[pr.b]) fail(what() + " is of two static bodies");
            if (!fat_[pr.a].overlaps(fat_[pr.b])) fail(what() + ": the fat boxes are apart");
            keys.push_back(make_pair(pr.a, pr.b).key());
        }
    }
    std::sort(keys.begin(), keys.end());
    const auto twice = std::adjacent_find(keys.begin(), keys.end());
    if (twice != keys.end())
        fail("fat pair (" + str(*twice >> 32) + ", " + str(*twice & 0xffffffffu) +
             ") is kept twice");
    // Every overlapping pair of leaves, found by the trees: as many as kept means all kept.
    std::uint64_t overlapping = 0, tests = 0;
    std::vector<std::pair<std::int32_t, std::int32_t>> stack;
    const std::vector<std::uint8_t> all_moving(moving_tree_.slots(), 1);
    const std::vector<std::uint8_t> all_static(static_tree_.slots(), 1);
    const auto count = [&](std::uint32_t, std::uint32_t) { ++overlapping; };
    join_trees(moving_tree_, all_moving, moving_tree_, all_moving, true, stack, tests, count);
    join_trees(moving_tree_, all_moving, static_tree_, all_static, false, stack, tests, count);
    if (overlapping != keys.size())
        fail(str(keys.size()) + " fat pairs kept, the trees hold " + str(overlapping));
}

// The member defined here; the class itself is instantiated in dynamic_aabb_tree.cpp.
template void DynamicAabbTree<2>::validate() const;
template void DynamicAabbTree<3>::validate() const;

}  // namespace collide
