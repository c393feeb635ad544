// Sorted grid: dense grids (no hashing) whose cells are found by a counting sort. Each body
// is keyed by the cell holding the lower corner of its box, in the level whose cell fits its
// size (level 0: the bodies up to about twice the median size; each further level's cells
// are 4 times larger), and the bodies are counting-sorted by (level, cell) into
// structure-of-arrays copies of their boxes. A box no larger than its cell can only meet
// boxes whose lower corner is in its own cell or a neighbour, so a body tests the rest of its
// own cell and the forward half of its neighbours (cells after it in row-major order, which
// are two contiguous runs in 2D and four in 3D), and each pair of a level is tested once,
// from its earlier body. Across levels, each pair of levels is scanned from one side only:
// the coarse bodies scan the finer cells their boxes reach, or the fine bodies scan the
// coarse cells (at most 2 per axis), whichever visits fewer cell runs.
//
// Why it is fast: the sort is a counting sort (prefix sums over a dense array, no hash
// table); the order of the last frame is the input of the next, so while bodies move a
// little the scatter writes nearly in sequence; the runs a body tests are contiguous in
// memory, and they are tested eight entries at a time (AVX2, where the CPU has it) or four
// (SSE2). A level's array holds at most a few slots per body; where the cells that fit its
// bodies are more, they are made coarser. Where that crowds them (bodies on a line or plane of a
// large world, the `centerline` scene: many bodies per occupied cell), the row-major cell index is
// folded modulo a power of two instead, with rows of odd length so that lines and planes along any
// axis spread over all slots: far cells then share a slot (their bodies are extra
// candidates, rejected by the box test), but the cells stay as small as the bodies. Neighbours keep
// their constant offsets, so the forward runs stay contiguous. With many bodies and threads, the
// sort runs in parts of the cells, one per thread. On one thread the scatter, which fills the
// entries from the back, sweeps each chunk of them for pairs as soon as its cells are final,
// while they are still in cache, and writes the pairs straight to the output.
#pragma once

#include <array>
#include <span>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "broadphase/common/chunked_sweep.hpp"
#include "broadphase/common/engine_broadphase.hpp"
#include "collide/broadphase.hpp"

#if defined(__x86_64__) || defined(__i386__)
#define COLLIDE_AVX2_TARGET [[gnu::target("avx2")]]
#else
#define COLLIDE_AVX2_TARGET
#endif

namespace collide {

template <int D>
class SortedGrid final : public EngineBroadPhase<D> {
public:
    static constexpr int kMaxLevels = 16;
    static constexpr float kLevelRatio = 4.0f;
    // The box arrays run this far past the last entry, so a run is read four (SSE2) or eight
    // (AVX2) at a time.
    static constexpr std::size_t kPad = 8;
    // The sort and the level choice run in at most this many parts, one per thread, from
    // this many bodies on.
    static constexpr std::size_t kMaxParts = 16;
    static constexpr std::size_t kParallelFrom = 50000;

    void search(const Aabb<D>& region, std::vector<BodyId>& out,
                QueryTrace<D>* trace = nullptr) const override;
    void draw(DebugDraw<D>& draw, const Overlays<D>& which) const override;
    std::string describe(BodyId id) const override;
    std::vector<LegendEntry> legend() const override;
    std::vector<std::string> layers() const override;
    BroadPhaseStats stats() const override;
    WatchScript watch_script() const override;
    void validate() const override;
    std::span<Param> params() override { return params_; }
    // Last update's chunks of entries, and how many of them the scatter swept as it placed
    // them (on one thread; the rest are swept after the sort).
    std::size_t chunks() const { return within_.chunks(); }
    std::size_t chunks_swept_in_sort() const { return within_.swept_early(); }

private:
    void build_and_search(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                          PairList& out) override;

    using Cell = std::array<std::int64_t, D>;

    struct Level {
        float cell = 1.0f;
        float inv_cell = 1.0f;
        Vec<D> origin{0.0f};  // low corner of cell 0 (a padding cell)
        std::array<std::int64_t, D> dims{};
        std::size_t first_cell = 0;  // in the global cell numbering
        std::size_t cells = 0;       // slots in the array: a power of two when folded
        bool folded = false;         // the row-major index is taken modulo `cells`
        std::uint32_t scans = 0;     // bit k: this level's bodies scan level k's cells
        std::uint32_t bodies = 0;
        Aabb<D> lows = Aabb<D>::empty();  // bounds of the lower corners
    };

    float cell_scale() const { return params_[Setting::kCellScale].as_real(); }
    bool parallel() const { return params_[Setting::kParallel].is_on(); }
    // Eight entries a test where the CPU has AVX2 and the toggle is on.
    bool eight_lanes() const;

    // The parts the sort and the level choice run in for n bodies: one per thread allowed.
    std::size_t parts_for(std::size_t n) const;
    void choose_levels(std::span<const Aabb<D>> boxes);
    // Each body's level from base_cell_, the levels' counts and bounds; returns the largest
    // side.
    float assign_levels(std::span<const Aabb<D>> boxes);
    void size_grids();
    // With `sweep_as_placed` (one part, swept on this thread), the scatter sweeps each chunk
    // of entries for pairs as soon as its cells are final.
    void sort_bodies(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                     bool sweep_as_placed);
    // The sort's phases, in order (sorted_grid_sort.cpp); a SortPass carries what each one
    // hands on to the next.
    struct SortPass;
    void make_keys(std::span<const Aabb<D>> boxes, SortPass& pass, bool sweep_as_placed);
    void count_keys(SortPass& pass);
    void count_strays(SortPass& pass);
    void sum_counts(SortPass& pass);
    void scatter(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                 const SortPass& pass, bool sweep_as_placed);
    // Which levels size_grids() folds next frame: those whose bodies this frame's sort found
    // crowded into few cells.
    void choose_folds(const SortPass& pass);
    // Sweeps (within_.sweep_tail) the chunks of entries whose cells, from `cell` on, are final.
    void sweep_final_entries(std::size_t cell);
    std::int64_t axis_cell(const Level& level, float v, int k) const;
    Cell cell_of(const Level& level, const Vec<D>& p) const;
    std::size_t cell_index(const Level& level, const Cell& c) const;
    // visit(first_entry, end_entry) for the slots [slot, slot + count) of `level`, wrapped.
    template <typename Fn>
    void visit_slots(const Level& level, std::size_t slot, std::size_t count,
                     const Fn& visit) const;
    // Which level's bodies scan the other's cells, for each pair of occupied levels.
    void choose_scans();
    // Pairs of the sorted entries [e0, e1) with the forward half of their level's neighbours.
    void pairs_within(std::size_t e0, std::size_t e1, PairList& out, std::uint64_t& tests) const;
    auto sweep_within() const {
        return [this](std::size_t e0, std::size_t e1, PairList& out, std::uint64_t& tests) {
            pairs_within(e0, e1, out, tests);
        };
    }
    template <bool kTrack, bool kEightLanes>
    void pairs_within_runs(std::size_t e0, std::size_t e1, PairList& out,
                           std::uint64_t& tests) const;
    // pairs_within_runs<kTrack, true> compiled for AVX2, with test_runs_avx2 inlined in it.
    // The target is on the declaration too: clang takes it from the first one, and a source
    // that calls these before their definitions (a unity file) otherwise compiles them
    // without AVX.
    template <bool kTrack>
    COLLIDE_AVX2_TARGET void pairs_within_avx2(std::size_t e0, std::size_t e1, PairList& out,
                           std::uint64_t& tests) const;
    // One sorted entry about to test runs of others: its box, also splat for SIMD.
    struct Probe {
        Aabb<D> box;
        BodyId id = 0;
        bool fixed = false;
#if defined(__SSE2__)
        __m128 lo4[D], hi4[D];
#endif
    };
    Probe probe(std::size_t e) const;
    // The pairs of `p` with the sorted entries [from, to). With kTrack, `watch` (Watch mode's
    // recorder, or null) is told each test, one entry at a time.
    template <bool kTrack>
    void test_run(const Probe& p, std::size_t from, std::size_t to, PairList& out,
                  std::uint64_t& tests, WatchRecorder<D>* watch = nullptr) const;
    // The pairs of entry e with the sorted entries of `runs`, eight entries a test. A function
    // of its own, compiled for AVX2 and called only where the CPU has it.
    using Run = std::pair<std::size_t, std::size_t>;
    template <bool kTrack>
    COLLIDE_AVX2_TARGET void test_runs_avx2(std::size_t e, std::span<const Run> runs, PairList& out,
                        std::uint64_t& tests) const;
    // Pairs of the sorted entries [e0, e1) with the finer levels' entries their boxes reach.
    void pairs_across(std::size_t e0, std::size_t e1, PairList& out, std::uint64_t& tests) const;
    // visit(first_entry, end_entry) for each run of cells of `level` that `box` (grown down
    // by the level's cell, the farthest a partner's lower corner can be) reaches.
    // `slots` is scratch for a folded level's merged runs.
    using Runs = std::vector<Run>;
    template <typename Fn>
    void for_each_run(const Level& level, const Aabb<D>& box, Runs& slots, const Fn& visit) const;
    bool overlaps(std::size_t i, const Aabb<D>& box) const;
    Aabb<D> entry_box(std::size_t e) const;
    Aabb<D> cell_box(const Level& level, const Cell& c) const;
    // Watch mode's regions: the cells lo .. hi of `level`; the cells of `level` that
    // for_each_run visits for `box`; the forward runs of the cell of `lower` (each visited).
    Aabb<D> cells_box(const Level& level, Cell lo, Cell hi) const;
    Aabb<D> reach_box(const Level& level, const Aabb<D>& box) const;
    void watch_runs(WatchRecorder<D>& watch, const Level& level, const Vec<D>& lower) const;

    std::vector<Level> levels_;
    std::size_t parts_ = 1;  // this update's parts_for(n)
    float base_cell_ = 1.0f;
    // Per body: its level; and the bodies in last frame's sorted order (the sort's input,
    // swapped with ids_ at each sort).
    std::vector<std::uint8_t> level_of_;
    // Per part of the sort: the input positions in its slice whose keys lie in other parts'
    // cells.
    std::array<std::vector<std::uint32_t>, kMaxParts> strays_;
    std::vector<BodyId> order_;
    std::vector<std::uint32_t> keys_;       // global cell of order_[k]
    std::vector<std::uint32_t> key_bound_;  // see make_keys
    // The sorted entries, structure of arrays, and where each cell's run starts.
    std::vector<BodyId> ids_;
    std::array<std::vector<float>, D> lo_, hi_;
    std::vector<std::uint8_t> static_;
    std::vector<std::uint32_t> start_;  // global cells + 1
    std::vector<float> sample_;
    ChunkedSweep within_, across_;
    using EngineBroadPhase<D>::costs_;
    std::size_t occupied_ = 0;
    // Per level: fold its grid (its bodies crowded coarsened cells), and its bodies then.
    std::array<std::uint8_t, kMaxLevels> crowded_{};
    std::array<std::uint32_t, kMaxLevels> crowded_bodies_{};
    // The places of the parameters in params_, in its order; kCount is how many.
    enum Setting : std::uint8_t { kCellScale, kParallel, kAvx2, kCount };
    std::array<Param, Setting::kCount> params_ = {{
        Param::real("cell scale", 1, 0.25f, 4),
        Param::toggle("parallel", true),
        Param::toggle("AVX2", true),
    }};
};

}  // namespace collide
