#include "broadphase/centred_interval_tree.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <string>

#include "broadphase/common/aabb_tree.hpp"
#include "broadphase/common/pair_test.hpp"

namespace collide {

namespace {

// Node rows per parallel chunk of the pair search.
constexpr std::size_t kNodesPerChunk = 64;

// The midpoint on axis k; halving first never overflows, and the result lies in [lo, hi].
template <int D>
float mid(const Aabb<D>& b, int k) {
    return 0.5f * b.lo[k] + 0.5f * b.hi[k];
}

}  // namespace

// Turns the range of a task into a node: its axis and centre, its held bodies copied out
// three ways, the bodies left and right of the centre queued as its children (left on top,
// so nodes come out in pre-order).
template <int D>
void CentredIntervalTree<D>::make_node(const Task& task, WatchRecorder<D>* watch) {
    if (watch) watch->enter(task.cell);
    const auto first = entries_.begin() + task.begin, last = entries_.begin() + task.end;
    // The range of the midpoints on every axis, in one pass.
    const auto spread = [&](auto from, auto to) {
        Vec<D> lo(std::numeric_limits<float>::infinity()), hi(-lo);
        for (auto e = from; e != to; ++e) {
            const Vec<D> m = 0.5f * e->box.lo + 0.5f * e->box.hi;
            lo = glm::min(lo, m);
            hi = glm::max(hi, m);
        }
        return hi - lo;
    };
    int axis = task.depth % D;
    if (spread_axis()) {
        const Vec<D> s = spread(first, last);
        axis = 0;
        for (int k = 1; k < D; ++k) axis = s[k] > s[axis] ? k : axis;
    }
    // NaN midpoints order last, so the order is strict and weak, and the bodies right of the
    // median (NaN ones too) are at most half of the range, as validate() requires.
    const auto median = first + (last - first) / 2;
    std::nth_element(first, median, last, [axis](const Entry& x, const Entry& y) {
        const float mx = mid(x.box, axis), my = mid(y.box, axis);
        return mx < my || (my != my && mx == mx);
    });
    // Clamped so the median body is held even where halving a subnormal rounds outside it.
    const float c = std::clamp(mid(median->box, axis), median->box.lo[axis], median->box.hi[axis]);
    // Left | held | right; the median body is held, so every node holds one at least.
    const auto held =
        std::partition(first, last, [&](const Entry& e) { return e.box.hi[axis] < c; });
    auto right = std::partition(held, last, [&](const Entry& e) { return e.box.lo[axis] <= c; });
    // A NaN centre (boxes with NaN sides) compares false with everything, so it would hold
    // no body and queue the same range again forever: such a node holds its whole range.
    if (held == right) right = last;

    // The sweep axis: in 3D, of the two others, the one the held bodies spread most along.
    int sweep = (axis + 1) % D;
    if constexpr (D == 3) {
        const Vec<D> s = spread(held, right);
        if (s[(axis + 2) % D] > s[sweep]) sweep = (axis + 2) % D;
    }
    const auto index = static_cast<std::uint32_t>(nodes_.size());
    Node node;
    node.cell = task.cell;
    node.centre = c;
    node.axis = static_cast<std::uint8_t>(axis);
    node.sweep_axis = static_cast<std::uint8_t>(sweep);
    // One ulp up, so it bounds every exact extent however the subtraction rounded.
    node.reach = 0.0f;
    for (auto e = held; e != right; ++e)
        node.reach = std::max(node.reach, e->box.hi[sweep] - e->box.lo[sweep]);
    node.reach = std::nextafter(node.reach, std::numeric_limits<float>::infinity());
    node.depth = task.depth;
    node.parent = task.parent;
    node.begin = static_cast<std::uint32_t>(by_lo_.size());
    for (auto e = held; e != right; ++e) node_of_[e->id] = index;
    if (watch) {
        for (auto e = held; e != right; ++e) watch->place(e->id, node.plane());
    }
    // The entries sorted by low end; the other two orders as indices into them.
    const auto begin = by_lo_.insert(by_lo_.end(), held, right);
    std::sort(begin, by_lo_.end(),
              [axis](const Entry& x, const Entry& y) { return x.box.lo[axis] < y.box.lo[axis]; });
    const auto index_sorted = [&](std::vector<std::uint32_t>& to, auto before) {
        const std::size_t from = to.size();
        for (std::uint32_t i = node.begin; i < by_lo_.size(); ++i) to.push_back(i);
        std::sort(to.begin() + from, to.end(), [&](std::uint32_t x, std::uint32_t y) {
            return before(by_lo_[x].box, by_lo_[y].box);
        });
    };
    index_sorted(by_hi_,
                 [axis](const Aabb<D>& x, const Aabb<D>& y) { return x.hi[axis] > y.hi[axis]; });
    index_sorted(by_sweep_,
                 [sweep](const Aabb<D>& x, const Aabb<D>& y) { return x.lo[sweep] < y.lo[sweep]; });
    node.end = static_cast<std::uint32_t>(by_lo_.size());
    if (task.parent != kNone)
        (task.right ? nodes_[task.parent].right : nodes_[task.parent].left) = index;
    nodes_.push_back(node);
    deepest_ = std::max(deepest_, task.depth);

    const auto at = [&](auto it) { return static_cast<std::uint32_t>(it - entries_.begin()); };
    Aabb<D> cell = task.cell;
    if (right != last) {
        cell.lo[axis] = c;
        tasks_.push_back({at(right), task.end, index, true, cell, task.depth + 1});
    }
    if (held != first) {
        cell = task.cell;
        cell.hi[axis] = c;
        tasks_.push_back({task.begin, at(held), index, false, cell, task.depth + 1});
    }
}

// Subtree bounds and static flags, bottom-up: children come after their parent.
template <int D>
void CentredIntervalTree<D>::fit_bounds() {
    for (std::size_t i = nodes_.size(); i-- > 0;) {
        Node& n = nodes_[i];
        n.bounds = Aabb<D>::empty();
        n.all_static = true;
        for (std::uint32_t e = n.begin; e < n.end; ++e) {
            n.bounds.grow(by_lo_[e].box);
            n.all_static = n.all_static && by_lo_[e].is_static != 0;
        }
        for (const std::uint32_t c : {n.left, n.right}) {
            if (c == kNone) continue;
            n.bounds.grow(nodes_[c].bounds);
            n.all_static = n.all_static && nodes_[c].all_static;
        }
    }
}

template <int D>
void CentredIntervalTree<D>::build(WatchRecorder<D>* watch) {
    nodes_.clear();
    by_lo_.clear();
    by_hi_.clear();
    by_sweep_.clear();
    tasks_.clear();
    deepest_ = 0;
    if (entries_.empty()) return;
    Aabb<D> all = Aabb<D>::empty();
    for (const Entry& e : entries_) all.grow(e.box);
    tasks_.push_back({0, static_cast<std::uint32_t>(entries_.size()), kNone, false, all, 0});
    while (!tasks_.empty()) {
        const Task task = tasks_.back();
        tasks_.pop_back();
        make_node(task, watch);
    }
    if (watch) watch->phase("fit bounds");
    fit_bounds();
}

// Node `at`'s held bodies with each other (a sweep on its sweep axis), then each against
// the subtree below it.
template <int D>
template <bool Watched>
void CentredIntervalTree<D>::find_pairs(std::uint32_t at, PairList& pairs, std::uint64_t& tests,
                                        std::vector<std::uint32_t>& stack) const {
    const Node& n = nodes_[at];
    const BodyCosts* costs = costs_.if_on();
    WatchRecorder<D>* const watch = Watched ? this->watch_ : nullptr;
    const auto test = [&](const Entry& a, const Entry& b) {
        test_pair(a.id, a.box, b.id, b.box, a.is_static && b.is_static, pairs, tests, costs, watch);
    };
    const int s = n.sweep_axis;
    if (watch) watch->visit(n.cell);
    for (std::uint32_t i = n.begin; i < n.end; ++i) {
        const Entry& a = by_lo_[by_sweep_[i]];
        if (watch) watch->cursor(a.id, s, a.box.lo[s]);
        for (std::uint32_t j = i + 1; j < n.end; ++j) {
            const Entry& b = by_lo_[by_sweep_[j]];
            if (b.box.lo[s] > a.box.hi[s]) break;
            test(a, b);
        }
    }
    if (n.left == kNone && n.right == kNone) return;
    for (std::uint32_t i = n.begin; i < n.end; ++i) {
        const Entry& a = by_lo_[i];
        descend<Watched>(at, true, a.box, a.is_static != 0, stack, nullptr,
                         [&](const Entry& b) { test(a, b); });
    }
}

template <int D>
void CentredIntervalTree<D>::build_and_search(std::span<const Aabb<D>> boxes,
                                              std::span<const std::uint8_t> is_static,
                                              PairList& out) {
    const std::size_t n = boxes.size();
    // Last frame's order is kept: after a little motion it is nearly partitioned already,
    // which the median selections and partitions of the rebuild run through quickly.
    if (entries_.size() == n) {
        for (Entry& e : entries_) e = {boxes[e.id], e.id, is_static[e.id]};
    } else {
        entries_.resize(n);
        for (std::size_t i = 0; i < n; ++i) entries_[i] = {boxes[i], BodyId(i), is_static[i]};
    }
    node_of_.resize(n);
    WatchRecorder<D>* watch = this->watch_;
    if (watch) watch->phase("build");
    build(watch);
    if (watch) watch->phase("find pairs");
    chunks_.run(
        nodes_.size(), kNodesPerChunk,
        [&](std::size_t begin, std::size_t end, PairList& pairs, std::uint64_t& tests) {
            // Watch mode's search is an instantiation of its own: the timed one has no
            // recorder in its loops.
            std::vector<std::uint32_t> stack;
            for (std::size_t r = begin; r < end; ++r) {
                if (watch) {
                    find_pairs<true>(static_cast<std::uint32_t>(r), pairs, tests, stack);
                } else {
                    find_pairs<false>(static_cast<std::uint32_t>(r), pairs, tests, stack);
                }
            }
        },
        out);
}

// Nodes in pre-order (left child next, right child after the left subtree), linking back
// one level deeper, with cells cut at their parent's centre, the root's around every box;
// held ranges in node order covering every body once, none empty, each node_of_ entry the
// node that holds the body, the held copies equal to the bodies' boxes and flags. Per
// node: its centre in its cell; held intervals containing the centre on the node axis, the
// left subtree's wholly below it and the right's wholly above (what exactness rests on);
// each child subtree at most half its parent's (the depth bound); the three orders of the
// held bodies (low end ascending, high end descending, sweep-axis low end ascending); the
// reach; fitted bounds and the static flag, exactly; the deepest depth.
template <int D>
void CentredIntervalTree<D>::validate() const {
    const InvariantFail fail("centred-interval-tree");
    const std::size_t n = node_of_.size();
    for (const std::size_t size :
         {entries_.size(), by_lo_.size(), by_hi_.size(), by_sweep_.size()}) {
        if (size != n) fail("a per-body array holds " + str(size) + " entries for " + str(n));
    }
    if (nodes_.empty()) {
        if (n > 0) fail(str(n) + " bodies and no nodes");
        return;
    }
    const auto size = static_cast<std::uint32_t>(nodes_.size());
    for (std::uint32_t i = 0; i < size; ++i) {
        const Node& node = nodes_[i];
        if (node.begin != (i == 0 ? 0 : nodes_[i - 1].end) || node.begin >= node.end ||
            node.end > n)
            fail("node " + str(i) + " holds [" + str(node.begin) + ", " + str(node.end) +
                 "), not a range after the previous node's");
    }
    // Each node's subtree: its last node and its body count, bottom-up.
    std::vector<std::uint32_t> last(size), count(size);
    for (std::uint32_t i = size; i-- > 0;) {
        const Node& node = nodes_[i];
        last[i] = i;
        count[i] = node.end - node.begin;
        for (const std::uint32_t c : {node.left, node.right}) {
            if (c == kNone) continue;
            if (c <= i || c >= size)
                fail("node " + str(i) + "'s child " + str(c) + " is not a later node");
            last[i] = std::max(last[i], last[c]);
            count[i] += count[c];
        }
    }
    std::vector<std::uint32_t> where(n, kNone);   // body -> its held entry
    std::vector<std::uint8_t> indexed(2 * n, 0);  // entries reached from by_hi_, by_sweep_
    const Node& root = nodes_[0];
    if (root.parent != kNone || root.depth != 0 || !same_box(root.cell, root.bounds))
        fail("the root has a parent, a depth, or a cell other than the bounds of every box");
    int deepest = 0;
    for (std::uint32_t i = 0; i < size; ++i) {
        const Node& node = nodes_[i];
        const auto at = [&] { return "node " + str(i); };
        const int a = node.axis, s = node.sweep_axis;
        const float c = node.centre;
        if (a >= D || s >= D || s == a)
            fail(at() + " has axis " + str(a) + ", sweep axis " + str(s));
        if (c < node.cell.lo[a] || c > node.cell.hi[a])
            fail(at() + "'s centre is outside its cell");
        deepest = std::max(deepest, node.depth);
        // Children: pre-order, linked back, cells cut at the centre, subtrees on their side.
        std::uint32_t expected = i + 1;
        for (const bool right : {false, true}) {
            const std::uint32_t ci = right ? node.right : node.left;
            if (ci == kNone) continue;
            const Node& child = nodes_[ci];
            const auto which = [&] {
                return std::string(right ? "right" : "left") + " child " + str(ci);
            };
            if (ci != expected) fail(at() + "'s " + which() + " is out of pre-order");
            expected = last[ci] + 1;
            if (child.parent != i || child.depth != node.depth + 1)
                fail(at() + "'s " + which() + " has parent " + str(child.parent) + " and depth " +
                     str(child.depth) + " (its parent's " + str(node.depth) + ")");
            Aabb<D> cell = node.cell;
            (right ? cell.lo : cell.hi)[a] = c;
            if (!same_box(child.cell, cell))
                fail(at() + "'s " + which() + "'s cell is not cut at its centre");
            if (2 * count[ci] > count[i])
                fail(at() + "'s " + which() + " holds " + str(count[ci]) + " of its " +
                     str(count[i]) + " bodies, more than half");
            for (std::uint32_t e = child.begin; e < nodes_[last[ci]].end; ++e) {
                const Aabb<D>& box = by_lo_[e].box;
                if (right ? box.lo[a] <= c : box.hi[a] >= c)
                    fail("body " + str(by_lo_[e].id) + " under " + at() + "'s " + which() +
                         " is not wholly on its side of the centre");
            }
            if (const auto out = sticks_out(node.bounds, child.bounds))
                fail(at() + "'s bounds do not hold its " + which() + "'s (" + *out + ")");
        }
        if (i > 0) {
            const Node& parent = nodes_[node.parent < i ? node.parent : 0];
            if (node.parent >= i || (parent.left != i && parent.right != i))
                fail(at() + " is not a child of its parent " + str(node.parent));
        }
        // Held bodies and their three orders.
        Aabb<D> bounds = Aabb<D>::empty();
        bool all_static = true;
        for (std::uint32_t e = node.begin; e < node.end; ++e) {
            const Entry& held = by_lo_[e];
            const auto body = [&] { return "body " + str(held.id); };
            if (held.id >= n || where[held.id] != kNone)
                fail(body() + " is held twice or is past the " + str(n) + " bodies");
            where[held.id] = e;
            if (node_of_[held.id] != i)
                fail(body() + " is held by " + at() + ", its node is " + str(node_of_[held.id]));
            if (held.box.lo[a] > c || held.box.hi[a] < c)
                fail(body() + " is held by " + at() + " but does not contain its centre");
            if (e > node.begin && held.box.lo[a] < by_lo_[e - 1].box.lo[a])
                fail(at() + "'s held bodies are out of low-end order at " + body());
            if (node.reach < held.box.hi[s] - held.box.lo[s])
                fail(at() + "'s reach does not cover " + body());
            if (const auto out = sticks_out(node.bounds, held.box))
                fail(at() + "'s bounds do not hold " + body() + " (" + *out + ")");
            bounds.grow(held.box);
            all_static = all_static && held.is_static != 0;
            for (const bool sweep : {false, true}) {
                const std::uint32_t x = (sweep ? by_sweep_ : by_hi_)[e];
                const char* order = sweep ? "sweep order" : "high-end order";
                if (x < node.begin || x >= node.end || indexed[2 * x + sweep]++)
                    fail(at() + "'s " + order + " is not a permutation of its held bodies");
                if (e == node.begin) continue;
                const Aabb<D>& prev = by_lo_[(sweep ? by_sweep_ : by_hi_)[e - 1]].box;
                const Aabb<D>& box = by_lo_[x].box;
                if (sweep ? box.lo[s] < prev.lo[s] : box.hi[a] > prev.hi[a])
                    fail(at() + "'s held bodies are out of " + order + " at body " +
                         str(by_lo_[x].id));
            }
        }
        for (const std::uint32_t ci : {node.left, node.right}) {
            if (ci == kNone) continue;
            bounds.grow(nodes_[ci].bounds);
            all_static = all_static && nodes_[ci].all_static;
        }
        if (!same_box(bounds, node.bounds)) fail(at() + "'s bounds are not fitted");
        if (node.all_static != all_static) fail(at() + "'s static flag is wrong");
    }
    if (nodes_.back().end != n || last[0] != size - 1)
        fail("the nodes hold " + str(nodes_.back().end) + " of " + str(n) +
             " bodies and the root's subtree ends at node " + str(last[0]) + " of " + str(size));
    if (deepest != deepest_)
        fail("the deepest node is at " + str(deepest) + ", recorded " + str(deepest_));
    for (const Entry& e : entries_) {
        const std::uint32_t h = e.id < n ? where[e.id] : kNone;
        if (h == kNone || !same_box(by_lo_[h].box, e.box) || by_lo_[h].is_static != e.is_static)
            fail("body " + str(e.id) + "'s held copy is not the body as given");
    }
}

template <int D>
void CentredIntervalTree<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                                    QueryTrace<D>* trace) const {
    out.clear();
    if (nodes_.empty()) return;
    std::vector<std::uint32_t> stack;
    descend(0, false, region, false, stack, trace, [&](const Entry& e) {
        if (e.box.overlaps(region)) out.push_back(e.id);
    });
}

template <int D>
BroadPhaseStats CentredIntervalTree<D>::stats() const {
    const std::size_t bytes =
        (entries_.capacity() + by_lo_.capacity()) * sizeof(Entry) +
        (by_hi_.capacity() + by_sweep_.capacity() + node_of_.capacity()) * sizeof(std::uint32_t) +
        tasks_.capacity() * sizeof(Task) + nodes_.capacity() * sizeof(Node) + chunks_.bytes();
    return {.candidate_tests = chunks_.tests(),
            .structure_bytes = bytes,
            .nodes = nodes_.size(),
            .depth = deepest_};
}

template class CentredIntervalTree<2>;
template class CentredIntervalTree<3>;

}  // namespace collide
