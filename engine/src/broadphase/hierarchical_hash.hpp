// Hierarchical spatial hash (seed 004's comments): grids whose cells double in size from level
// to level, like a mipmap, each hashed. Every body goes to the smallest level whose cell is at
// least as large as its box, so it touches at most 2^D cells there whatever its size; pairs
// are found inside each cell and by each body looking up the cells its box touches at every
// coarser level that holds bodies. One grid sized for the big bodies drowns the small ones in
// crowded cells and one sized for the small ones spreads the big ones over thousands of cells;
// with levels, the candidate tests per body stay bounded even with radii spread 1000x (the
// probes of the coarser tables are random memory accesses, though: see the bench).
//
// Levels are powers of two in world units (level 0 = the smallest body's size, clamped so
// cell coordinates fit the key and at most kMaxLevels levels exist); a level with no body has
// no table and costs nothing. Each update rebuilds the tables: entries (cell key, body) are
// counting-sorted by hash bucket into one flat array, the bucket starts being the index. A
// pair sharing several cells is reported only from the cell holding the lower corner of the
// two boxes' overlap, so it is reported once without a sort-and-unique.
#pragma once

#include <array>

#include "broadphase/chunked_sweep.hpp"
#include "collide/broadphase.hpp"

namespace collide {

template <int D>
class HierarchicalHash final : public BroadPhase<D> {
public:
    static constexpr int kMaxLevels = 32;

    void update(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                PairList& out) override;
    void query(const Aabb<D>& region, std::vector<BodyId>& out) const override;
    void draw(DebugDraw<D>& draw, const Overlays<D>& which) const override;
    std::string describe(BodyId id) const override;
    std::vector<std::string> layers() const override;
    BroadPhaseStats stats() const override;
    std::span<Param> params() override { return params_; }

private:
    // Bits per axis of a cell coordinate; a cell's key is its Morton code.
    static constexpr int kBits = D == 2 ? 31 : 21;  // 2D keys keep a spare bit per axis
    static constexpr std::uint64_t kMaxCoord = (std::uint64_t{1} << kBits) - 1;
    using Cell = std::array<std::uint64_t, D>;

    struct Entry {
        Aabb<D> box;  // the body's box, copied so a bucket's scan streams through memory
        std::uint64_t key;
        BodyId id;
        std::uint8_t is_static;
    };
    struct Staged {
        std::uint64_t key;
        BodyId id;
        std::uint32_t bucket;  // global bucket index
    };
    struct Range {  // a body's level-0 cells, lower and upper corner
        std::array<std::uint32_t, D> lo, hi;
    };
    struct Level {
        std::uint32_t bodies = 0;
        std::uint32_t entry_begin = 0, entry_end = 0;
        std::uint32_t bucket_begin = 0;
        int log2_buckets = 0;
        std::size_t filter_begin = 0;  // in bits, a multiple of 64
        int log2_filter = 0;
    };

    bool parallel() const { return params_[0].value != 0.0f; }
    bool filtered() const { return params_[1].value != 0.0f; }
    // The filter bit of `key` at `level` (an index into occupied_'s bits).
    std::size_t filter_bit(std::uint64_t key, int level) const;

    void choose_levels();
    Cell cell_of(const Vec<D>& p, int level) const;
    static std::uint64_t pack(const Cell& c);
    Cell unpack(std::uint64_t key) const;
    std::uint32_t bucket_of(std::uint64_t key, int level) const;
    Aabb<D> cell_box(const Cell& c, int level) const;
    template <typename Fn>
    static void for_each_in(const Cell& lo, const Cell& hi, const Fn& visit);
    // visit(cell) for each cell of `level` that `box` touches.
    template <typename Fn>
    void for_each_cell(const Aabb<D>& box, int level, const Fn& visit) const;
    // The entries [begin, end) of the bucket of `key` at `level` (other keys included).
    std::pair<std::uint32_t, std::uint32_t> bucket_range(std::uint64_t key, int level) const;
    bool owns(std::uint64_t key, int level, const Aabb<D>& a, const Aabb<D>& b) const;
    void build();
    // Pairs inside the cells of buckets [b0, b1).
    void pairs_within(std::size_t b0, std::size_t b1, PairList& out, std::uint64_t& tests) const;
    // Pairs of bodies [i0, i1) with bodies of coarser levels.
    void pairs_across(std::size_t i0, std::size_t i1, PairList& out, std::uint64_t& tests) const;

    std::vector<Aabb<D>> boxes_;  // as of the last update, for queries and overlays
    std::vector<std::uint8_t> is_static_;
    std::vector<std::uint8_t> level_of_;  // per body
    std::vector<Range> ranges_;           // per body
    // Per level, one bit per hashed cell: set where some entry's cell hashes. The coarser
    // lookups mostly find nothing; this small filter answers them from cache.
    std::vector<std::uint64_t> occupied_;
    std::array<Level, kMaxLevels> levels_{};
    std::vector<int> active_;             // non-empty levels, finest first
    std::vector<Staged> staged_;          // entries in level order, before the bucket sort
    std::vector<Entry> entries_;          // grouped by level, then by bucket
    std::vector<std::uint32_t> starts_;   // first entry of each global bucket, plus the end
    Vec<D> origin_{0.0f};                 // grid origin: the world's lower corner
    int base_exponent_ = 0;               // level L's cell side is 2^(base_exponent_ + L)
    double inv_side0_ = 1.0;
    ChunkedSweep within_, across_;
    std::array<Param, 2> params_ = {{{"parallel", 1, 0, 1, true},
                                     {"occupancy filter", 1, 0, 1, true}}};
};

}  // namespace collide
