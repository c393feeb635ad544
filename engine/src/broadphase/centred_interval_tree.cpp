#include "broadphase/centred_interval_tree.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

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
void CentredIntervalTree<D>::make_node(const Task& task) {
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
    const auto median = first + (last - first) / 2;
    std::nth_element(first, median, last, [axis](const Entry& x, const Entry& y) {
        return mid(x.box, axis) < mid(y.box, axis);
    });
    // Clamped so the median body is held even where halving a subnormal rounds outside it.
    const float c = std::clamp(mid(median->box, axis), median->box.lo[axis], median->box.hi[axis]);
    // Left | held | right; the median body is held, so every node holds one at least.
    const auto held =
        std::partition(first, last, [&](const Entry& e) { return e.box.hi[axis] < c; });
    const auto right =
        std::partition(held, last, [&](const Entry& e) { return e.box.lo[axis] <= c; });

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
void CentredIntervalTree<D>::build() {
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
        make_node(task);
    }
    fit_bounds();
}

// Node `at`'s held bodies with each other (a sweep on its sweep axis), then each against
// the subtree below it.
template <int D>
void CentredIntervalTree<D>::find_pairs(std::uint32_t at, PairList& pairs, std::uint64_t& tests,
                                        std::vector<std::uint32_t>& stack) const {
    const Node& n = nodes_[at];
    const BodyCosts* costs = costs_.if_on();
    const auto test = [&](const Entry& a, const Entry& b) {
        test_pair(a.id, a.box, b.id, b.box, a.is_static && b.is_static, pairs, tests, costs);
    };
    const int s = n.sweep_axis;
    for (std::uint32_t i = n.begin; i < n.end; ++i) {
        const Entry& a = by_lo_[by_sweep_[i]];
        for (std::uint32_t j = i + 1; j < n.end; ++j) {
            const Entry& b = by_lo_[by_sweep_[j]];
            if (b.box.lo[s] > a.box.hi[s]) break;
            test(a, b);
        }
    }
    if (n.left == kNone && n.right == kNone) return;
    for (std::uint32_t i = n.begin; i < n.end; ++i) {
        const Entry& a = by_lo_[i];
        descend(at, true, a.box, a.is_static != 0, stack, nullptr,
                [&](const Entry& b) { test(a, b); });
    }
}

template <int D>
void CentredIntervalTree<D>::update(std::span<const Aabb<D>> boxes,
                                    std::span<const std::uint8_t> is_static, PairList& out) {
    out.clear();
    assert(is_static.size() == boxes.size());
    const std::size_t n = boxes.size();
    costs_.reset(n);
    // Last frame's order is kept: after a little motion it is nearly partitioned already,
    // which the median selections and partitions of the rebuild run through quickly.
    if (entries_.size() == n) {
        for (Entry& e : entries_) e = {boxes[e.id], e.id, is_static[e.id]};
    } else {
        entries_.resize(n);
        for (std::size_t i = 0; i < n; ++i) entries_[i] = {boxes[i], BodyId(i), is_static[i]};
    }
    node_of_.resize(n);
    build();
    chunks_.run(
        nodes_.size(), kNodesPerChunk,
        [&](std::size_t begin, std::size_t end, PairList& pairs, std::uint64_t& tests) {
            std::vector<std::uint32_t> stack;
            for (std::size_t r = begin; r < end; ++r)
                find_pairs(static_cast<std::uint32_t>(r), pairs, tests, stack);
        },
        out);
}

template <int D>
void CentredIntervalTree<D>::query(const Aabb<D>& region, std::vector<BodyId>& out,
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
