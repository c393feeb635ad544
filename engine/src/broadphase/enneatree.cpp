#include "broadphase/enneatree.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <sstream>
#include <string>

#include "broadphase/common/aabb_tree.hpp"
#include "broadphase/common/pair_test.hpp"

namespace collide {

namespace {

// Node rows per parallel chunk of the pair search.
constexpr std::size_t kNodesPerChunk = 256;

}  // namespace

template <int D, bool kAlternating>
bool Enneatree<D, kAlternating>::fits(const Aabb<D>& box, const Node& node) const {
    const Aabb<D> r = region(node);
    for (int k = 0; k < D; ++k) {
        if (!(box.lo[k] >= r.lo[k]) || !(box.hi[k] <= r.hi[k])) return false;
    }
    return true;
}

// How often the root side can be halved while staying at least twice `extent`: an interval
// that long then always fits one of the three overlapping halves of each coarser interval.
// Points (and NaN, which fits nowhere below the root) get the deepest.
template <int D, bool kAlternating>
int Enneatree<D, kAlternating>::halvings_for(float extent) const {
    if (!(extent > 0.0f)) return max_depth();
    const float ratio = root_side_ / extent;
    if (!(ratio >= 2.0f)) return 0;
    return std::clamp(std::ilogb(ratio) - 1, 0, max_depth());
}

// The deepest depth a child of every shallower node still holds the box at. Flat: the
// halvings its largest extent allows. Alternating: the split of axis k at depth j * D + k
// is the (j + 1)-th halving of that axis, so the first split its extent there does not
// allow is at h_k * D + k; the box stops at the earliest such depth over the axes.
template <int D, bool kAlternating>
int Enneatree<D, kAlternating>::depth_for(const Aabb<D>& box) const {
    if constexpr (!kAlternating) return halvings_for(box.largest_side());
    int depth = max_levels();
    for (int k = 0; k < D; ++k)
        depth = std::min(depth, halvings_for(box.hi[k] - box.lo[k]) * D + k);
    return depth;
}

template <int D, bool kAlternating>
void Enneatree<D, kAlternating>::reset() {
    nodes_.clear();
    Node root;
    root.lo = frame_.origin;
    root.child.fill(kNone);
    nodes_.push_back(root);
}

// Descends from the root to `depth`, choosing, on each axis the node splits, the child
// interval that holds the box (the centre one first), creating nodes on the way. Float
// rounding at an edge can leave no child holding the box; the body then stays at the node
// it reached, which still holds it, so every pair is still found.
template <int D, bool kAlternating>
std::uint32_t Enneatree<D, kAlternating>::place(const Aabb<D>& box, int depth,
                                                WatchRecorder<D>* watch) {
    static constexpr std::array<int, 3> kCentreFirst = {1, 0, 2};
    static constexpr std::array<int, 3> kLeftFirst = {0, 1, 2};
    const std::array<int, 3>& order = centre_first() ? kCentreFirst : kLeftFirst;
    std::uint32_t at = 0;
    while (nodes_[at].depth < depth) {
        if (watch) watch->enter(region(nodes_[at]));
        const Node& node = nodes_[at];
        const Vec<D> quarter = sides_at(node.depth) * 0.25f;
        Vec<D> child_lo = node.lo;
        int slot = 0;
        const int first = kAlternating ? split_axis(node.depth) : 0;
        const int last = kAlternating ? first + 1 : D;
        for (int k = first, stride = 1; k < last; ++k, stride *= 3) {
            int chosen = -1;
            for (int j : order) {
                const float lo = node.lo[k] + static_cast<float>(j) * quarter[k];
                if (box.lo[k] >= lo && box.hi[k] <= lo + 2.0f * quarter[k]) {
                    chosen = j;
                    child_lo[k] = lo;
                    break;
                }
            }
            if (chosen < 0) return at;
            slot += chosen * stride;
        }
        if (node.child[slot] == kNone) {
            Node child;
            child.lo = child_lo;
            child.parent = at;
            child.depth = node.depth + 1;
            child.child.fill(kNone);
            const auto index = static_cast<std::uint32_t>(nodes_.size());
            nodes_.push_back(child);  // invalidates `node`
            nodes_[at].child[slot] = index;
            nodes_[at].child_mask |= 1u << slot;
        }
        at = nodes_[at].child[slot];
    }
    if (watch) watch->enter(region(nodes_[at]));
    return at;
}

// Groups the bodies by node (a counting sort) and recomputes every node's bounds bottom-up;
// children always have larger indices than their parents, so one reverse pass does it.
template <int D, bool kAlternating>
void Enneatree<D, kAlternating>::lay_out(std::span<const Aabb<D>> boxes,
                                         std::span<const std::uint8_t> is_static) {
    for (Node& node : nodes_) {
        node.count = node.subtree_count = 0;
        node.all_static = true;
        node.own = node.subtree = Aabb<D>::empty();
    }
    for (std::uint32_t node : node_of_) ++nodes_[node].count;
    std::uint32_t begin = 0;
    cursor_.resize(nodes_.size());
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
        nodes_[i].begin = cursor_[i] = begin;
        begin += nodes_[i].count;
    }
    const std::size_t n = boxes.size();
    order_.resize(n);
    sorted_boxes_.resize(n);
    sorted_static_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t slot = cursor_[node_of_[i]]++;
        order_[slot] = BodyId(i);
        sorted_boxes_[slot] = boxes[i];
        sorted_static_[slot] = is_static[i];
        Node& node = nodes_[node_of_[i]];
        node.own.grow(boxes[i]);
        node.all_static = node.all_static && is_static[i] != 0;
    }
    occupied_.clear();
    empty_nodes_ = 0;
    deepest_ = 0;
    for (std::size_t i = nodes_.size(); i-- > 0;) {
        Node& node = nodes_[i];
        node.subtree.grow(node.own);
        node.subtree_count += node.count;
        if (node.count > 0) {
            occupied_.push_back(static_cast<std::uint32_t>(i));
            deepest_ = std::max(deepest_, node.depth);
        }
        if (node.subtree_count == 0) ++empty_nodes_;
        if (node.parent != kNone) {
            nodes_[node.parent].subtree.grow(node.subtree);
            nodes_[node.parent].subtree_count += node.subtree_count;
        }
    }
    std::reverse(occupied_.begin(), occupied_.end());
}

template <int D, bool kAlternating>
void Enneatree<D, kAlternating>::build_and_search(std::span<const Aabb<D>> boxes,
                                                  std::span<const std::uint8_t> is_static,
                                                  PairList& out) {
    const std::size_t n = boxes.size();
    boxes_.assign(boxes.begin(), boxes.end());

    std::array<float, Setting::kCount> settings;
    std::transform(params_.begin(), params_.end(), settings.begin(),
                   [](const Param& p) { return p.value; });
    bool rebuild = n != node_of_.size() || settings != built_with_ || !persistent() ||
                   nodes_.empty() || empty_nodes_ > nodes_.size() / 2 + 64 ||
                   replaced_since_rebuild_ > n / 4;  // new nodes lost the depth-first order
    if (frame_.refit(boxes)) rebuild = true;
    root_side_ = static_cast<float>(morton::kMaxCoord<D>) / frame_.scale;
    built_with_ = settings;
    WatchRecorder<D>* watch = this->watch_;
    const auto place_body = [&](std::size_t i, int depth) {
        node_of_[i] = place(boxes[i], depth, watch);
        target_depth_[i] = static_cast<std::int8_t>(depth);
        if (watch) watch->place(BodyId(i), region(nodes_[node_of_[i]]));
    };
    if (rebuild) {
        if (watch) watch->phase("sort by Morton code");
        node_of_.resize(n);
        target_depth_.resize(n);
        reset();
        // Placing the bodies in Morton order of their centres creates the nodes in
        // depth-first order, so the walks of neighbouring nodes touch neighbouring memory.
        by_code_.resize(n);
        for (std::size_t i = 0; i < n; ++i)
            by_code_[i] = {morton::encode<D>(frame_(boxes[i].center())), BodyId(i)};
        std::sort(by_code_.begin(), by_code_.end());
        if (watch) watch->phase("place every body");
        for (const auto& [code, id] : by_code_) place_body(id, depth_for(boxes[id]));
        replaced_ = n;
        replaced_since_rebuild_ = 0;
    } else {
        // A body keeps its node while it still fits and its size gives the same depth.
        replaced_ = 0;
        if (watch) watch->phase("keep or re-place");
        for (std::size_t i = 0; i < n; ++i) {
            const int depth = depth_for(boxes[i]);
            if (target_depth_[i] == depth && fits(boxes[i], nodes_[node_of_[i]])) {
                if (watch) watch->visit(region(nodes_[node_of_[i]]));
                continue;
            }
            place_body(i, depth);
            ++replaced_;
        }
        replaced_since_rebuild_ += replaced_;
    }
    if (watch) watch->phase("lay out");
    lay_out(boxes, is_static);
    if (watch) watch->phase("find pairs");

    chunks_.run(
        occupied_.size(), kNodesPerChunk,
        [&](std::size_t begin, std::size_t end, PairList& pairs, std::uint64_t& tests) {
            // Watch mode's search is an instantiation of its own: the timed one has no
            // recorder in its test loops.
            if (watch) {
                for (std::size_t r = begin; r < end; ++r)
                    find_pairs<true>(occupied_[r], pairs, tests);
            } else {
                for (std::size_t r = begin; r < end; ++r)
                    find_pairs<false>(occupied_[r], pairs, tests);
            }
        },
        out);
}

// Links: the root at the frame's corner; each child slot set exactly where its mask bit is,
// to a later node that links back one level deeper, at the corner place() gives that slot,
// and is no other slot's child. Bodies: each in one slot, the slots grouped by node in
// node order; each body's depth the one its size gives now, its node no deeper and (below
// the root) holding its box; the sorted copies of boxes and flags. Per node: own and
// subtree bounds and counts, exactly; the static flag; the occupied list, the empty-node
// count and the deepest occupied depth.
template <int D, bool kAlternating>
void Enneatree<D, kAlternating>::validate() const {
    const InvariantFail fail(kAlternating ? "enneatree-alt" : "enneatree");
    const std::size_t n = boxes_.size();
    for (const std::size_t size : {node_of_.size(), target_depth_.size(), order_.size(),
                                   sorted_boxes_.size(), sorted_static_.size()}) {
        if (size != n) fail("a per-body array holds " + str(size) + " entries for " + str(n));
    }
    if (nodes_.empty()) {
        if (n > 0) fail(str(n) + " bodies and no nodes");
        return;  // nothing built yet
    }
    const auto size = static_cast<std::uint32_t>(nodes_.size());
    if (nodes_[0].parent != kNone || nodes_[0].depth != 0 ||
        !same_point<D>(nodes_[0].lo, frame_.origin))
        fail("the root has a parent, a depth or a corner other than the frame's");
    std::vector<std::uint8_t> linked(size, 0);
    std::vector<std::uint8_t> seen(n, 0);
    std::size_t occupied = 0, empty = 0;
    int deepest = 0;
    std::uint32_t next = 0;  // the slot the next node's bodies begin at
    for (std::uint32_t i = 0; i < size; ++i) {
        const Node& node = nodes_[i];
        const auto at = [&] { return "node " + str(i); };
        if (node.depth > max_levels())
            fail(at() + " is at depth " + str(node.depth) + ", past " + str(max_levels()));
        if (node.begin != next || node.count > n - next)
            fail(at() + "'s bodies are slots [" + str(node.begin) + ", +" + str(node.count) +
                 "), the previous node's end at " + str(next));
        next += node.count;
        Aabb<D> own = Aabb<D>::empty();
        bool all_static = true;
        for (std::uint32_t s = node.begin; s < next; ++s) {
            const BodyId b = order_[s];
            if (b >= n) fail("slot " + str(s) + " holds body " + str(b) + " of " + str(n));
            if (seen[b]++) fail("body " + str(b) + " is in slot " + str(s) + " and an earlier one");
            if (node_of_[b] != i)
                fail("body " + str(b) + " is in " + at() + "'s slots, its node is " +
                     str(node_of_[b]));
            if (!same_box(sorted_boxes_[s], boxes_[b]))
                fail("slot " + str(s) + "'s box is not body " + str(b) + "'s");
            if (const auto out = sticks_out(node.own, boxes_[b]))
                fail(at() + "'s box does not hold body " + str(b) + " (" + *out + ")");
            own.grow(boxes_[b]);
            all_static = all_static && sorted_static_[s] != 0;
        }
        if (!same_box(own, node.own)) fail(at() + "'s box is not fitted to its bodies");
        if (node.all_static != all_static) fail(at() + "'s static flag is wrong");
        Aabb<D> subtree = own;
        std::uint32_t count = node.count;
        const Vec<D> quarter = sides_at(node.depth) * 0.25f;
        for (int slot = 0; slot < 32; ++slot) {
            const bool bit = (node.child_mask >> slot) & 1u;
            const std::uint32_t c = slot < kChildren ? node.child[slot] : kNone;
            if (bit != (c != kNone))
                fail(at() + "'s child mask and child " + str(slot) + " disagree");
            if (c == kNone) continue;
            if (c <= i || c >= size || linked[c]++)
                fail(at() + "'s child " + str(slot) + " is node " + str(c) +
                     ", not a later node of no other parent");
            const Node& child = nodes_[c];
            if (child.parent != i || child.depth != node.depth + 1)
                fail("node " + str(c) + ", child of " + str(i) + ", has parent " +
                     str(child.parent) + " and depth " + str(child.depth) + " (its parent's " +
                     str(node.depth) + ")");
            // The corner place() gives the slot: one digit 0..2 per axis split.
            Vec<D> lo = node.lo;
            const int first = kAlternating ? split_axis(node.depth) : 0;
            const int last = kAlternating ? first + 1 : D;
            for (int k = first, rest = slot; k < last; ++k, rest /= 3)
                lo[k] = node.lo[k] + static_cast<float>(rest % 3) * quarter[k];
            if (!same_point<D>(child.lo, lo))
                fail("node " + str(c) + " is not at the corner of child " + str(slot) + " of " +
                     str(i));
            if (const auto out = sticks_out(node.subtree, child.subtree))
                fail(at() + "'s subtree box does not hold child " + str(c) + "'s (" + *out + ")");
            subtree.grow(child.subtree);
            count += child.subtree_count;
        }
        if (!same_box(subtree, node.subtree)) fail(at() + "'s subtree box is not fitted");
        if (node.subtree_count != count)
            fail(at() + " counts " + str(node.subtree_count) + " bodies below it, holds " +
                 str(count));
        if (node.count > 0) {
            if (occupied >= occupied_.size() || occupied_[occupied] != i)
                fail(at() + " holds bodies and is not next in the occupied list");
            ++occupied;
            deepest = std::max(deepest, node.depth);
        }
        if (node.subtree_count == 0) ++empty;
    }
    if (next != n) fail("the nodes hold " + str(next) + " of " + str(n) + " bodies");
    if (occupied != occupied_.size())
        fail(str(occupied_.size()) + " nodes listed occupied, " + str(occupied) + " are");
    if (empty != empty_nodes_) fail(str(empty) + " empty nodes, counted " + str(empty_nodes_));
    if (deepest != deepest_)
        fail("the deepest occupied node is at " + str(deepest) + ", recorded " + str(deepest_));
    for (std::uint32_t i = 1; i < size; ++i) {
        if (!linked[i]) fail("node " + str(i) + " is no node's child");
    }
    for (std::size_t b = 0; b < n; ++b) {
        const Node& node = nodes_[node_of_[b]];
        if (target_depth_[b] != depth_for(boxes_[b]))
            fail("body " + str(b) + " was placed for depth " + str(int(target_depth_[b])) +
                 ", its size gives " + str(depth_for(boxes_[b])));
        if (node.depth > target_depth_[b])
            fail("body " + str(b) + " of depth " + str(int(target_depth_[b])) + " is at node " +
                 str(node_of_[b]) + " of depth " + str(node.depth));
        if (node_of_[b] != 0 && !fits(boxes_[b], node))
            fail("node " + str(node_of_[b]) + " does not hold body " + str(b));
    }
}

// The pairs of node `at`'s bodies with each other and with the bodies of every shallower
// node (and every equal-depth node of lower index) whose bounds meet theirs.
template <int D, bool kAlternating>
template <bool Watched>
void Enneatree<D, kAlternating>::find_pairs(std::uint32_t at, PairList& pairs,
                                            std::uint64_t& tests) const {
    const Node& home = nodes_[at];
    const std::uint32_t b0 = home.begin, b1 = home.begin + home.count;
    const BodyCosts* costs = costs_.if_on();
    WatchRecorder<D>* const watch = Watched ? this->watch_ : nullptr;
    const auto test = [&](std::uint32_t i, std::uint32_t j) {
        test_pair(order_[i], sorted_boxes_[i], order_[j], sorted_boxes_[j],
                  sorted_static_[i] && sorted_static_[j], pairs, tests, costs, watch);
    };
    if (watch) watch->visit(region(home));
    for (std::uint32_t i = b0; i < b1; ++i) {
        for (std::uint32_t j = i + 1; j < b1; ++j) test(i, j);
    }
    walk<Watched>(
        home.own, home.depth, nullptr,
        [&](std::uint32_t other_at, const Node& other) {
            if (other.count == 0 || other_at == at) return;
            if (other.depth == home.depth && other_at > at) return;  // found from the other side
            if (home.all_static && other.all_static) return;
            if (!other.own.overlaps(home.own)) return;
            const std::uint32_t o0 = other.begin, o1 = other.begin + other.count;
            for (std::uint32_t i = b0; i < b1; ++i) {
                for (std::uint32_t j = o0; j < o1; ++j) test(i, j);
            }
        });
}

template <int D, bool kAlternating>
void Enneatree<D, kAlternating>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                                        QueryTrace<D>* trace) const {
    out.clear();
    std::vector<Visit> visits;
    walk(region, kMaxLevels, trace ? &visits : nullptr, [&](std::uint32_t, const Node& node) {
        if (node.count == 0 || !node.own.overlaps(region)) return;
        for (std::uint32_t i = node.begin; i < node.begin + node.count; ++i) {
            if (sorted_boxes_[i].overlaps(region)) out.push_back(order_[i]);
        }
    });
    for (const Visit& v : visits) {
        trace->add(Enneatree::region(nodes_[v.node]),
                   v.kind == Visit::kPruned ? TraceKind::kPruned : TraceKind::kDescended);
    }
}

template <int D, bool kAlternating>
BroadPhaseStats Enneatree<D, kAlternating>::stats() const {
    const std::size_t bytes =
        nodes_.capacity() * sizeof(Node) + node_of_.capacity() * 4 + target_depth_.capacity() +
        order_.capacity() * sizeof(BodyId) + sorted_boxes_.capacity() * sizeof(Aabb<D>) +
        sorted_static_.capacity() + occupied_.capacity() * 4 + cursor_.capacity() * 4 +
        boxes_.capacity() * sizeof(Aabb<D>) + chunks_.bytes();
    return {.candidate_tests = chunks_.tests(),
            .structure_bytes = bytes,
            .nodes = nodes_.size(),
            .depth = deepest_};
}

template class Enneatree<2, false>;
template class Enneatree<3, false>;
template class Enneatree<2, true>;
template class Enneatree<3, true>;

}  // namespace collide
