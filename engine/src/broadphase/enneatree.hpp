// Enneatree (seed 004): every node's interval on each axis splits into three overlapping
// halves, (0, 1/2), (1/4, 3/4) and (1/2, 1), so a node has 9 children in 2D and 27 in 3D.
// Any box no wider than a quarter of a node fits in one of its children, so a body's depth
// follows from its size alone, and small bodies can never pile up high in the tree the way
// they do in a quadtree on its centre lines. When several children fit, the centre one
// wins, which keeps a body that hovers near a boundary from flipping between deep nodes.
//
// Alternating form (kAlternating, the row `enneatree-alt`): the tree as the seed's author
// built it, "alternate cutting horizontally and vertically". A node at depth d splits only
// axis d mod D into the same three halves, so it has 3 children, and D consecutive levels
// cover what one flat node does. A body goes as deep as every split on the way still fits
// it: with h_k the halvings its extent on axis k allows, that is min over k of h_k * D + k.
//
// Pairs: a node's bodies are tested against each other, then the node "walks up and back
// down": a descent from the root, never deeper than the node, pruned by the bounds of what
// each subtree holds, testing the bodies of every shallower node it reaches (and of equal
// depth nodes with a lower index), so each pair is found once, from its deeper body. This
// holds wherever a body is placed, so both forms share it unchanged.
//
// Layout: nodes with all their child slots inline. Bodies stay in their node while they still
// fit and their size class is unchanged (persistent placement, a toggle), and are laid
// out by node each update with a counting sort so a node's bodies and boxes are contiguous.
#pragma once

#include <array>

#include "broadphase/common/engine_broadphase.hpp"
#include "broadphase/common/chunked_sweep.hpp"
#include "collide/broadphase.hpp"
#include "collide/morton.hpp"

namespace collide {

template <int D, bool kAlternating = false>
class Enneatree final : public EngineBroadPhase<D> {
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

    static constexpr int kChildren = kAlternating ? 3 : D == 2 ? 9 : 27;
    static constexpr int kDeepest = 16;  // halvings per axis
    static constexpr int kMaxLevels = kAlternating ? D * kDeepest : kDeepest;

private:
    void build_and_search(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                          PairList& out) override;

    static constexpr std::uint32_t kNone = ~std::uint32_t{0};

    struct Node {
        Vec<D> lo;  // the region's lower corner; its sides are sides_at(depth)
        std::uint32_t parent = kNone;
        int depth = 0;
        std::uint32_t child_mask = 0;  // bit c: child[c] exists
        std::array<std::uint32_t, kChildren> child;
        // Rebuilt every update from the bodies placed in the tree:
        std::uint32_t begin = 0, count = 0;  // own bodies: order_[begin, begin + count)
        std::uint32_t subtree_count = 0;     // bodies here and below
        bool all_static = false;             // every own body is static
        Aabb<D> own = Aabb<D>::empty();      // union of own bodies' boxes
        Aabb<D> subtree = Aabb<D>::empty();  // union of the boxes here and below
    };
    // What a traced walk saw, for the overlays.
    struct Visit {
        std::uint32_t node;
        enum Kind : std::uint8_t { kVisited, kPruned } kind;
    };

    bool persistent() const { return params_[Setting::kPersistent].is_on(); }
    bool centre_first() const { return params_[Setting::kCentreFirst].is_on(); }
    int max_depth() const { return params_[Setting::kMaxDepth].as_whole(); }
    int max_levels() const { return kAlternating ? D * max_depth() : max_depth(); }

    // The axis a node at `depth` splits (alternating form); the flat form splits them all.
    static int split_axis(int depth) { return depth % D; }
    // The node side on each axis at `depth`: halved once per level, or in the alternating
    // form once per level that split that axis.
    Vec<D> sides_at(int depth) const {
        if constexpr (!kAlternating) return Vec<D>(root_side_ * std::ldexp(1.0f, -depth));
        Vec<D> sides;
        for (int k = 0; k < D; ++k) {
            const int halvings = kAlternating ? (depth + D - 1 - k) / D : depth;
            sides[k] = root_side_ * std::ldexp(1.0f, -halvings);
        }
        return sides;
    }
    Aabb<D> region(const Node& node) const { return {node.lo, node.lo + sides_at(node.depth)}; }
    bool fits(const Aabb<D>& box, const Node& node) const;
    int halvings_for(float extent) const;
    int depth_for(const Aabb<D>& box) const;
    void reset();
    std::uint32_t place(const Aabb<D>& box, int depth, WatchRecorder<D>* watch);
    void lay_out(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static);
    template <bool Watched>
    void find_pairs(std::uint32_t n, PairList& pairs, std::uint64_t& tests) const;
    // Descends from the root through the nodes whose subtree bounds meet `bounds`, no
    // deeper than `max_depth`, calling visit(index, node) for each; the walk a node's
    // bodies (or a region query) make "up and back down". Watched: Watch mode's
    // instantiation, which records the nodes entered and the subtrees pruned (watch_).
    template <bool Watched = false, typename Fn>
    void walk(const Aabb<D>& bounds, int max_depth, std::vector<Visit>* trace,
              const Fn& visit) const;
    std::string path_of(std::uint32_t node) const;

    // The places of the parameters in params_, in its order; kCount is how many.
    enum Setting : std::uint8_t { kPersistent, kCentreFirst, kMaxDepth, kCount };
    std::array<Param, Setting::kCount> params_ = {{
        Param::toggle("persistent placement", true),
        Param::toggle("centre first", true),
        Param::whole("max depth", kDeepest, 1, kDeepest),
    }};
    std::array<float, Setting::kCount> built_with_{};
    morton::Quantizer<D> frame_;  // the root cube: origin and side
    float root_side_ = 1.0f;
    std::vector<Node> nodes_;
    std::vector<std::uint32_t> node_of_;      // per body
    std::vector<std::int8_t> target_depth_;   // per body: the depth its size gave
    std::vector<BodyId> order_;               // bodies grouped by node
    std::vector<Aabb<D>> sorted_boxes_;       // boxes in order_
    std::vector<std::uint8_t> sorted_static_;
    std::vector<std::uint32_t> occupied_;     // nodes holding bodies
    std::vector<std::uint32_t> cursor_;       // counting-sort scratch
    std::vector<std::pair<std::uint64_t, BodyId>> by_code_;  // rebuild order
    std::vector<Aabb<D>> boxes_;              // as of the last update, for queries
    ChunkedSweep chunks_;
    using EngineBroadPhase<D>::costs_;
    std::size_t replaced_ = 0;                // bodies placed afresh in the last update
    std::size_t replaced_since_rebuild_ = 0;
    std::size_t empty_nodes_ = 0;
    int deepest_ = 0;
};

// The form the seed's author built: 3-way nodes alternating their split axis.
template <int D>
using AlternatingEnneatree = Enneatree<D, true>;
// The flat form under a one-parameter name, as the registry's template template rows take.
template <int D>
using FlatEnneatree = Enneatree<D, false>;

// Defined here because the pairs, the query and the viewer (enneatree_view.cpp) all walk.
template <int D, bool kAlternating>
template <bool Watched, typename Fn>
void Enneatree<D, kAlternating>::walk(const Aabb<D>& bounds, int max_depth,
                                      std::vector<Visit>* trace, const Fn& visit) const {
    WatchRecorder<D>* const watch = Watched ? this->watch_ : nullptr;
    if (nodes_.empty() || nodes_[0].subtree_count == 0) return;
    // Depth-first: at most (kChildren - 1) pending siblings per level plus one.
    std::array<std::uint32_t, (kChildren - 1) * (kMaxLevels + 1) + 1> stack;
    std::size_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const std::uint32_t at = stack[--top];
        const Node& node = nodes_[at];
        if (trace) trace->push_back({at, Visit::kVisited});
        if (watch) watch->enter(region(node));
        visit(at, node);
        if (node.depth >= max_depth) continue;
        for (std::uint32_t mask = node.child_mask; mask != 0; mask &= mask - 1) {
            const std::uint32_t c = node.child[std::countr_zero(mask)];
            const Node& child = nodes_[c];
            if (child.subtree_count == 0 || !child.subtree.overlaps(bounds)) {
                if (trace && child.subtree_count > 0) trace->push_back({c, Visit::kPruned});
                if (watch && child.subtree_count > 0) watch->prune(region(child));
                continue;
            }
            stack[top++] = c;
        }
    }
}

}  // namespace collide
