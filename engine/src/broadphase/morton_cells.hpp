// Morton cells (seed 000): every box becomes at most 2^D cells of the implicit quadtree or
// octree, at the smallest power-of-two level whose cells are at least as large as the box.
// Cells are entries sorted by the Morton code of their lower corner (larger cell first on
// ties); as cells of a tree either nest or are disjoint, every pair of nested cells is
// found by sweeping forward while the next entry starts inside the current cell.
//
// Improvements from the seed, each a toggle so the bench can measure it against the plain
// method: cells kept between frames (only bodies whose cells changed are re-sorted and
// merged in), static bodies in their own pre-sorted array, a pair reported from one
// canonical cell pair instead of a global sort-and-unique, a parallel sort, and internal
// references (the seed's "full octree structure": the occupied cells linked into a tree,
// which region queries walk instead of binary-searching the implicit one).
#pragma once

#include <array>

#include "broadphase/common/engine_broadphase.hpp"
#include "broadphase/common/chunked_sweep.hpp"
#include "collide/broadphase.hpp"
#include "collide/morton.hpp"

namespace collide {

template <int D>
class MortonCells final : public EngineBroadPhase<D> {
public:
    void search(const Aabb<D>& region, std::vector<BodyId>& out,
                QueryTrace<D>* trace = nullptr) const override;
    void draw(DebugDraw<D>& draw, const Overlays<D>& which) const override;
    std::string describe(BodyId id) const override;
    std::vector<LegendEntry> legend() const override;
    BroadPhaseStats stats() const override;
    WatchScript watch_script() const override;
    void validate() const override;
    std::span<Param> params() override { return params_; }

private:
    void build_and_search(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                          PairList& out) override;

    struct Entry {
        std::uint64_t start;  // Morton code of the cell's lower corner
        BodyId id;
        std::uint8_t level;   // the cell's side is 2^level grid units
        std::uint8_t corner;  // bit k: the upper of the body's two cells on axis k
        std::uint64_t last() const { return start | morton::level_mask<D>(level); }
        // Sort order: by code, the larger cell first on equal codes.
        friend bool operator<(const Entry& a, const Entry& b) {
            return a.start != b.start ? a.start < b.start : a.level > b.level;
        }
    };
    // A node of the compressed octree over one sorted array: an occupied cell (a run of
    // entries with equal code and level) or a cell where two occupied subtrees branch (no
    // entries of its own), so no node has more than 2^D children and chains of empty cells
    // are skipped. Node 0 is the whole grid. Links are node indices, kNoLink for none.
    static constexpr std::uint32_t kNoLink = ~std::uint32_t{0};
    struct Link {
        std::uint64_t start;  // Morton code of the cell's lower corner
        std::uint32_t first;  // first entry of its subtree; its own entries come first
        std::uint32_t own;    // how many entries are this very cell
        std::uint32_t end;    // one past the last entry of its subtree
        std::uint32_t parent = kNoLink, child = kNoLink, sibling = kNoLink;
        std::uint8_t level;
    };
    // Which cells a body has: equal signatures mean equal cells.
    struct Signature {
        std::uint64_t lo_cell = ~std::uint64_t{0};
        std::uint64_t hi_cell = 0;
        int level = -1;
        friend bool operator==(const Signature&, const Signature&) = default;
    };

    bool persistent() const { return params_[Setting::kPersistentCells].is_on(); }
    bool split_static() const { return params_[Setting::kStaticArray].is_on(); }
    bool canonical_pairs() const { return params_[Setting::kCanonicalPairs].is_on(); }
    bool parallel_sort() const { return params_[Setting::kParallelSort].is_on(); }
    bool internal_references() const { return params_[Setting::kInternalReferences].is_on(); }

    Signature signature(BodyId id) const;
    void append_cells(BodyId id, std::vector<Entry>& to) const;
    // The same, Watch mode told each cell made when `watch` (its recorder) is not null.
    void append_cells(BodyId id, std::vector<Entry>& to, WatchRecorder<D>* watch) const;
    // Watch mode's calls, cold and defined in morton_cells_view.cpp, out of the timed code's
    // way: written inline in the passes and the sweep, they changed how GCC compiled the
    // timed copies (the quantizer and the pairs' push_back no longer inlined: 4.8% more
    // instructions on 2D powerlaw, 30k bodies; 0.6% with these). The cells v[from..] just
    // made; the sweep reaching cell `e`; the pair (a, b) reported into `pairs`, and emitted
    // when `emit` (canonical pairs; otherwise once the duplicates are removed).
    [[gnu::cold]] void watch_placed(WatchRecorder<D>& watch, const std::vector<Entry>& v,
                                    std::size_t from) const;
    [[gnu::cold]] void watch_cell(WatchRecorder<D>& watch, const Entry& e) const;
    [[gnu::cold]] static void watch_pair(WatchRecorder<D>& watch, PairList& pairs, BodyId a,
                                         BodyId b, bool emit);
    void sort(std::vector<Entry>& v) const;
    void rebuild(std::span<const std::uint8_t> is_static);
    bool refresh(std::span<const std::uint8_t> is_static);  // true if the statics changed
    void link(const std::vector<Entry>& v, std::vector<Link>& links);
    // Appends the ids of the entries of `v` whose cells meet the grid region [qlo, qhi]
    // (and maybe a few more), walking `links` or, without them, the implicit tree.
    void collect_linked(const std::vector<Entry>& v, const std::vector<Link>& links,
                        const morton::Coords<D>& qlo, const morton::Coords<D>& qhi,
                        std::vector<BodyId>& found, QueryTrace<D>* trace) const;
    void collect_implicit(const std::vector<Entry>& v, const morton::Coords<D>& qlo,
                          const morton::Coords<D>& qhi, std::vector<BodyId>& found,
                          QueryTrace<D>* trace) const;
    void sweep(PairList& out);
    // Watch: a copy for Watch mode, each step told to its recorder (this->watch_).
    template <bool Canonical, bool SkipStaticPairs, bool Watch>
    void sweep_rows(std::size_t m0, std::size_t m1, PairList& pairs, std::uint64_t& tests) const;
    bool owns_pair(const Entry& inner, const Aabb<D>& a, const Aabb<D>& b) const;
    Aabb<D> cell_box(std::uint64_t start, int level) const;
    // visit(entry, index, in_static) for each cell of body `id`.
    template <typename Fn>
    void for_each_cell_of(BodyId id, const Fn& visit) const;
    // visit(entry) for each entry the sweep tested from entry `i` (for the overlays).
    template <typename Fn>
    void for_each_visited(const Entry& e, std::size_t i, bool in_static,
                          const Fn& visit) const;

    morton::Quantizer<D> frame_;
    std::vector<Aabb<D>> boxes_;            // as of the last update, for queries and overlays
    std::vector<std::uint8_t> is_static_;
    std::vector<Signature> signatures_;     // per body, as of the entries
    std::vector<std::uint8_t> dirty_;       // per body: its cells changed this update
    std::vector<Entry> moving_;             // sorted cells (all bodies without the split)
    std::vector<Entry> static_cells_;       // sorted cells of static bodies (with the split)
    std::vector<Aabb<D>> moving_boxes_;     // each entry's box, in entry order, for the sweep
    std::vector<Aabb<D>> static_boxes_;
    std::vector<Entry> fresh_, merged_;     // scratch for the merge of changed cells
    std::vector<Link> moving_links_, static_links_;  // with internal references
    std::vector<std::uint32_t> path_;       // scratch: the open nodes while linking
    bool linked_ = false;                   // the links match the arrays
    PairList raw_;                          // pairs with duplicates, for sort-and-unique
    ChunkedSweep chunks_;
    using EngineBroadPhase<D>::costs_;
    std::size_t refreshed_ = 0;             // bodies whose cells changed in the last update
    int min_level_ = 0;                     // finest level in use
    // The places of the parameters in params_, in its order; kCount is how many.
    enum Setting : std::uint8_t {
        kPersistentCells,
        kStaticArray,
        kCanonicalPairs,
        kParallelSort,
        kInternalReferences,
        kCount
    };
    // The parameters' values the entries were built with.
    std::array<float, Setting::kCount> built_with_{};
    std::array<Param, Setting::kCount> params_ = {{
        Param::toggle("persistent cells", true),
        Param::toggle("static array", true),
        Param::toggle("canonical pairs", true),
        Param::toggle("parallel sort", true),
        Param::toggle("internal references", false),
    }};
};

}  // namespace collide
