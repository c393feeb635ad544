// Dynamic AABB tree: the incremental bounding-volume tree that engines such as Box2D and
// Bullet use as their broad phase. Each body is a leaf holding its box enlarged by a margin
// (its fat box); a body is removed and re-inserted only when its real box leaves its fat
// box, so from frame to frame most of the tree stays untouched. Pairs are kept the way an
// engine keeps them: a persistent list of fat pairs (fat boxes overlap), from which a
// re-inserted body drops its pairs and gets new ones by querying the tree with its new fat
// box; every frame the pairs whose real boxes overlap are reported. Static bodies live in a
// tree of their own that is never queried by them, so static-static pairs never appear.
//
// Improvements over the plain method, toggles or sliders so the bench can measure each:
// tree rotations on the way up from an insertion, a spatially coherent proxy order (bodies
// numbered by the Morton code of their centre, the tree built top-down in that order), a
// periodic top-down rebuild, a bulk rebuild when many bodies moved at once, and fat boxes
// stretched along the body's last displacement (at most its own size plus its margin), new
// pairs found by one simultaneous descent of the trees, pruned to subtrees holding a moved
// body, instead of one query each, margins jittered per fat box, so that bodies of one
// speed do not all leave their fat boxes on the same frame (the synchronized waves of
// re-insertions that make p90 >> mean),
// and, for up to K frames after each top-down build (until its candidate tests grow by a
// quarter), the built tree's inner boxes grown to hold the moved leaves on every frame,
// bulk or not, and the average-size margin steered by the frame's work.
// Proxies are cut into fixed ranges ("lists"): each keeps the fat pairs whose first proxy
// it holds, so one task per range checks its bodies, filters its pairs and queries for its
// moved bodies in parallel (oneTBB); ranges depend on n alone, so the output is the same
// for any thread count.
#pragma once

#include <algorithm>
#include <array>
#include <bit>

#include "broadphase/common/aabb_tree.hpp"
#include "broadphase/common/engine_broadphase.hpp"
#include "collide/broadphase.hpp"
#include "collide/morton.hpp"

namespace collide {

template <int D>
class DynamicAabbTree final : public EngineBroadPhase<D> {
public:
    void search(const Aabb<D>& region, std::vector<BodyId>& out,
                QueryTrace<D>* trace = nullptr) const override;
    void draw(DebugDraw<D>& draw, const Overlays<D>& which) const override;
    std::string describe(BodyId id) const override;
    std::string status() const override;
    std::vector<LegendEntry> legend() const override;
    BroadPhaseStats stats() const override;
    WatchScript watch_script() const override;
    void validate() const override;
    std::span<Param> params() override { return params_; }
    // The share of `margin (average size)` in use: steered by the frame's work (1 unsteered).
    float margin_scale() const { return margin_scale_; }
    static constexpr float kMinMarginScale = 0.125f, kMaxMarginScale = 32.0f;

private:
    void build_and_search(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                          PairList& out) override;

    float margin_box() const { return params_[Setting::kMarginBox].as_real(); }
    float margin_avg() const { return params_[Setting::kMarginAverage].as_real(); }
    float predict() const {
        return static_cast<float>(params_[Setting::kPredictFrames].as_whole());
    }
    int rebuild_every() const { return params_[Setting::kRebuildEvery].as_whole(); }
    float bulk_share() const { return params_[Setting::kBulkShare].as_real(); }
    bool rotations() const { return params_[Setting::kRotations].is_on(); }
    bool coherent() const { return params_[Setting::kCoherentOrder].is_on(); }
    bool tree_join() const { return params_[Setting::kJointDescent].is_on(); }
    bool parallel() const { return params_[Setting::kParallel].is_on(); }
    float jitter() const { return params_[Setting::kMarginJitter].as_real(); }
    std::size_t refit_frames() const {
        return static_cast<std::size_t>(params_[Setting::kRefitFrames].as_whole());
    }
    bool steer() const { return params_[Setting::kSteerMargin].is_on(); }
    std::size_t list_of(std::uint32_t proxy) const { return proxy / per_list_; }
    // body(l) for every proxy range l, on oneTBB's threads when parallel.
    template <typename Body>
    void for_each_list(const Body& body);
    void size_lists(std::size_t proxies);

    Aabb<D> fatten(std::uint32_t proxy, const Aabb<D>& box, const Vec<D>& displacement) const;
    void full_rebuild(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static);
    void gather_moves(std::span<const Aabb<D>> boxes);
    void reinsert_moved();
    // Scales the average-size margin by the frame's cost (dynamic_aabb_tree_margin.cpp).
    void steer_margin(std::size_t pairs);
    // The steered margin's start, from the gaps between neighbours (the same file).
    void first_margin_scale(std::span<const Aabb<D>> boxes);
    // One tree's (static or not) entries: its proxies' codes, sorted.
    void sort_entries(bool statics);
    // A top-down tree over the proxies of one tree, in Morton order: sorted now, or, for
    // the moving tree, by the last frame's sort_entries.
    void build_tree(bool statics);
    // The moving tree's entries were sorted last frame for a build not yet made.
    bool sort_pending() const { return sorted_frame_ != kNever && sorted_frame_ + 1 == frame_; }
    // An entry's proxy bits.
    int entry_id_bits() const { return std::max(1, int(std::bit_width(fat_.size()))); }
    std::uint64_t entry_id_mask() const { return (std::uint64_t{1} << entry_id_bits()) - 1; }
    // Per proxy range: drops the pairs of re-inserted bodies and reports the kept pairs whose
    // real boxes overlap (reads no tree).
    void keep_pairs();
    // Per proxy range, unless `join`: queries the trees for the range's moved bodies; then
    // gathers every range's pairs into `out`.
    void query_moved(bool join, PairList& out);
    void join_new_pairs(PairList& out);
    const AabbTree<D>& tree_of(std::uint32_t proxy) const {
        return static_[proxy] ? static_tree_ : moving_tree_;
    }
    int leaf_depth(std::uint32_t proxy) const;

    AabbTree<D> moving_tree_, static_tree_;
    std::vector<Aabb<D>> boxes_;           // real boxes in proxy order, as of the last update
    std::vector<Aabb<D>> fat_;             // fat boxes in proxy order
    std::vector<BodyId> body_of_;          // proxy -> body
    std::vector<std::uint32_t> proxy_of_;  // body -> proxy
    std::vector<std::int32_t> leaf_;       // proxy -> its leaf node
    std::vector<std::uint8_t> static_;     // proxy order
    std::vector<std::uint8_t> input_static_;  // body order, to notice flags flipping
    // Per proxy: re-inserted in the last update (kJumped: far, see jumped_far), or not.
    static constexpr std::uint8_t kStayed = 0, kMoved = 1, kJumped = 2;
    static bool jumped_far(const Aabb<D>& old_fat, const Aabb<D>& new_fat);
    std::vector<std::uint8_t> moved_;
    std::vector<Vec<D>> displacement_;     // proxy: centre moved by this in the last update
    std::vector<std::uint32_t> move_buffer_;  // proxies re-inserted in the last update
    // Per proxy range of per_list_ proxies: its fat pairs (proxy pairs whose fat boxes
    // overlap, the first proxy in the range), its re-inserted proxies, this frame's pairs,
    // candidate tests and a descent stack.
    std::vector<PairList> fat_lists_, out_lists_;
    std::vector<std::size_t> out_offsets_;  // where each list's pairs go in the output
    std::vector<std::vector<std::uint32_t>> moved_lists_;
    std::vector<std::uint64_t> list_tests_;
    std::vector<std::vector<std::int32_t>> list_stacks_;
    std::uint32_t per_list_ = 1;
    static constexpr std::size_t kProxiesPerBlock = 16384;  // a build's per-proxy passes
    std::vector<Aabb<D>> block_extent_;                     // scratch: the build's extent per block
    // Each tree's proxies in the order of its last top-down build: Morton code of the fat
    // box's centre above the proxy.
    std::vector<std::uint64_t> entries_moving_, entries_static_;
    std::vector<std::uint64_t> entries_aside_;  // scratch
    morton::Quantizer<D> moving_frame_, static_frame_;  // each tree's codes' frame
    mutable std::vector<std::int32_t> stack_;  // scratch for tree descents
    std::vector<std::pair<std::int32_t, std::int32_t>> pair_stack_;  // scratch for joins
    std::vector<std::uint8_t> marks_moving_, marks_static_;  // node: a moved leaf below
    float avg_extent_ = 0.0f;              // mean largest box extent at the last full rebuild
    std::size_t statics_ = 0;              // static bodies
    std::uint64_t tests_ = 0;
    using EngineBroadPhase<D>::costs_;
    std::size_t frame_ = 0;
    std::size_t built_frame_ = 0;          // the moving tree's last top-down build
    static constexpr std::size_t kNever = ~std::size_t{0};
    std::size_t sorted_frame_ = kNever;    // its entries' last sort_entries for a build
    std::uint64_t built_tests_ = 0;        // the fewest candidate tests of a frame since
    std::uint64_t last_tests_ = 0;         // candidate tests in the last frame
    // The margin's steering: the share of margin_avg() in use, the way it moves, the work of
    // the window's frames (candidate tests plus a weight per re-insertion) and their moving
    // bodies plus pairs found, and the last judged window's work per body and pair.
    float margin_scale_ = 1.0f;
    float steer_step_ = 1.5f;
    double window_cost_ = 0, window_size_ = 0, last_window_cost_ = -1;
    std::size_t window_frames_ = 0, window_reinserted_ = 0;
    bool settling_ = true;                 // the current window only lets the last step take hold
    bool rebuilt_ = false;                 // the last update rebuilt a tree top-down
    bool built_coherent_ = false;
    // The places of the parameters in params_, in its order; kCount is how many.
    enum Setting : std::uint8_t {
        kMarginBox,
        kMarginAverage,
        kPredictFrames,
        kRebuildEvery,
        kBulkShare,
        kRotations,
        kCoherentOrder,
        kJointDescent,
        kParallel,
        kMarginJitter,
        kRefitFrames,
        kSteerMargin,
        kCount
    };
    std::array<Param, Setting::kCount> params_ = {{
        Param::real("margin (box size)", 0.1f, 0, 1),
        Param::real("margin (average size)", 0.1f, 0, 4),
        Param::whole("predict frames", 16, 0, 32),
        Param::whole("rebuild every K frames", 0, 0, 600),
        Param::real("bulk rebuild share", 0.01f, 0, 1),
        Param::toggle("rotations", true),
        Param::toggle("coherent order", true),
        Param::toggle("joint descent", true),
        Param::toggle("parallel", true),
        Param::real("margin jitter", 0.5f, 0, 1),
        Param::whole("refit for K frames", 16, 0, 64),
        Param::toggle("steer margin", true),
    }};
};

}  // namespace collide
