// Hierarchical spatial hash (seed 004's comments): grids whose cells double in size from level
// to level, like a mipmap, each with a hash index. Every body goes to the smallest level whose
// cell is at least as large as its box, so it touches at most 2^D cells there whatever its
// size; pairs are found inside each cell and against the cells of every coarser level that
// holds bodies. One grid sized for the big bodies drowns the small ones in crowded cells and
// one sized for the small ones spreads the big ones over thousands of cells; with levels, the
// candidate tests per body stay bounded even with radii spread 1000x.
//
// Cell keys are Morton codes of the cell coordinates, all levels sharing one origin, so the
// key of a cell's parent M - L levels up is the key shifted right by D * (M - L). Entries
// (cell, body) are kept sorted between frames in Z order of their cells' lower corners, a
// cell before the finer cells inside it (every level's keys ascend along it): only bodies
// whose cells changed are re-made, sorted alone and merged in. Each level's runs of equal
// keys are indexed by an open-addressing hash table, rebuilt in one pass. Within a level,
// pairs are a scan of each run. Across levels, each entry meets the cells containing it at
// the coarser levels: by default those the sweep has entered and not yet left (as a cell
// precedes its contents, they are exactly the occupied coarser cells around the entry; the
// hash finds them where a parallel chunk starts), or, with "walk open cells" off, by a hash
// lookup per coarser level, reused while the parent key does not change and screened by an
// occupancy bitmap. A pair is reported from the one cell holding the lower corner of the two
// boxes' overlap, and an entry meets a coarser cell only if it is its body's first cell
// inside it, so each pair comes out once.
#pragma once

#include <array>

#include "broadphase/common/engine_broadphase.hpp"
#include "broadphase/common/chunked_sweep.hpp"
#include "collide/broadphase.hpp"

namespace collide {

template <int D>
class HierarchicalHash final : public EngineBroadPhase<D> {
public:
    static constexpr int kMaxLevels = 32;

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

private:
    void build_and_search(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                          PairList& out) override;

    // Traced region queries record a level's cells only up to this many.
    static constexpr double kMaxTracedCells = 4096.0;
    // Bits per axis of a cell coordinate; a cell's key is its Morton code.
    static constexpr int kBits = D == 2 ? 31 : 21;  // 2D keys keep a spare bit per axis
    static constexpr std::uint64_t kMaxCoord = (std::uint64_t{1} << kBits) - 1;
    static constexpr std::uint64_t kNoKey = ~std::uint64_t{0};  // above every key
    using Cell = std::array<std::uint64_t, D>;

    // Key bits of a cell `up` levels up from a cell of key `key` (keys past 64 bits are 0).
    static std::uint64_t up_key(std::uint64_t key, int up) {
        return D * up >= 64 ? 0 : key >> (D * up);
    }
    static std::uint64_t down_key(std::uint64_t key, int down) {
        return D * down >= 64 ? 0 : key << (D * down);
    }
    struct Entry {  // one cell of one body
        std::uint64_t start;  // the key of the cell's lowest level-0 cell: key << D * level
        BodyId id;
        std::uint8_t level;
        std::uint8_t first;  // bit k: the body's lowest cell on axis k
        std::uint8_t is_static;
        std::uint64_t key() const { return up_key(start, level); }
        bool same_cell(const Entry& e) const { return start == e.start && level == e.level; }
        // Z order of the cells' lower corners, a larger cell before the cells inside it.
        friend bool operator<(const Entry& a, const Entry& b) {
            return a.start != b.start ? a.start < b.start : a.level > b.level;
        }
    };
    // A body's cells at its level; equal signatures mean equal entries.
    struct Signature {
        std::array<std::uint32_t, D> lo{}, hi{};
        int level = -1;
        friend bool operator==(const Signature&, const Signature&) = default;
    };
    struct Level {
        std::uint32_t entries = 0;
        std::uint32_t cells = 0;  // runs of equal keys
        std::uint32_t slot_begin = 0;
        int log2_slots = 0;
        std::size_t filter_begin = 0;  // in bits, a multiple of 64
        int log2_filter = 0;
    };

    bool parallel() const { return params_[Setting::kParallel].is_on(); }
    bool persistent() const { return params_[Setting::kPersistentEntries].is_on(); }
    bool filtered() const { return params_[Setting::kOccupancyFilter].is_on(); }
    bool walk() const { return params_[Setting::kWalkOpenCells].is_on(); }
    // The filter word of `key`: 64 consecutive keys share a word, one bit each.
    std::size_t filter_word(std::uint64_t key, int level) const {
        const Level& l = levels_[level];
        return (l.filter_begin >> 6) +
               static_cast<std::size_t>(((key >> 6) * 0xD6E8FEB86659FD93ull) >>
                                        (64 - (l.log2_filter - 6)));
    }
    // Whether `key` may have a cell at `level` (no false negatives).
    bool may_hold(std::uint64_t key, int level) const {
        return (occupied_[filter_word(key, level)] >> (key & 63)) & 1u;
    }

    // Frame: origin and level-0 cell side, kept while the boxes fit it; true if it moved.
    bool refit_frame();
    Cell cell_of(const Vec<D>& p, int level) const;
    static std::uint64_t pack(const Cell& c);
    Cell unpack(std::uint64_t key) const;
    Aabb<D> cell_box(const Cell& c, int level) const;
    template <typename Fn>
    static void for_each_in(const Cell& lo, const Cell& hi, const Fn& visit) {
        if constexpr (D == 2) {
            for (std::uint64_t y = lo[1]; y <= hi[1]; ++y)
                for (std::uint64_t x = lo[0]; x <= hi[0]; ++x) visit(Cell{x, y});
        } else {
            for (std::uint64_t z = lo[2]; z <= hi[2]; ++z)
                for (std::uint64_t y = lo[1]; y <= hi[1]; ++y)
                    for (std::uint64_t x = lo[0]; x <= hi[0]; ++x) visit(Cell{x, y, z});
        }
    }
    // visit(cell) for each cell of `level` that `box` touches.
    template <typename Fn>
    void for_each_cell(const Aabb<D>& box, int level, const Fn& visit) const {
        for_each_in(cell_of(box.lo, level), cell_of(box.hi, level), visit);
    }
    Signature signature(BodyId id) const;
    void append_entries(BodyId id, std::vector<Entry>& to) const;
    void rebuild();
    void refresh();
    // Boxes in entry order, the levels' cells and table layout.
    void gather();
    // Fills the hash tables (and the filter where the sweep reads it) if not yet done since
    // the last update: the walking sweep does not need them, so only query(), draw() and
    // describe() pay for them then.
    void ensure_index() const;
    static std::uint64_t slot_of(std::uint64_t key, int log2_slots);
    // The run of entries of cell `key` at `level` (empty if none).
    std::pair<std::uint32_t, std::uint32_t> find(std::uint64_t key, int level) const;
    // Key bits that must be 0 for an entry (with `first` bits) to be its body's first cell
    // inside its parent `up` levels higher; the body's other cells there skip the probe.
    static std::uint64_t not_first_mask(unsigned first, int up);
    bool owns(std::uint64_t key, int level, const Aabb<D>& a, const Aabb<D>& b) const;
    // The end of the run of entries of the cell of entry `begin`.
    std::uint32_t run_end(std::uint32_t begin) const;
    // Pairs of entries [i0, i1) with later entries of their cell and with coarser cells,
    // these found by hash lookups or (Walk) kept open while the rows pass through them.
    // Watched: Watch mode records (this->watch_), in an instantiation of its own, so the
    // unwatched sweep carries no hook at all.
    template <bool Walk, bool Watched>
    void sweep_rows(std::size_t i0, std::size_t i1, PairList& out, std::uint64_t& tests) const;

    std::vector<Aabb<D>> boxes_;  // as of the last update, for queries and overlays
    std::vector<std::uint8_t> is_static_;
    std::vector<Signature> signatures_;   // per body, as of its entries
    std::vector<std::uint8_t> dirty_;     // per body: its entries were re-made this update
    std::vector<Entry> entries_;          // sorted (all levels together, see Entry)
    std::vector<Aabb<D>> entry_boxes_;    // each entry's box, so the sweep streams through memory
    std::vector<Entry> fresh_, merged_;   // scratch for merging the re-made entries
    // Every level's table, one after the other. A slot holds the first entry of a cell's run
    // (kNoSlot if empty) and 32 bits of its key: a lookup of an empty cell (most are) that
    // meets other cells' slots is answered from the table, without reading their entries.
    struct Slot {
        std::uint32_t tag, begin;
    };
    static std::uint32_t tag_of(std::uint64_t key) {
        return static_cast<std::uint32_t>(key ^ (key >> 32));
    }
    mutable std::vector<Slot> slots_;
    mutable bool indexed_ = false;
    std::size_t slot_count_ = 0, filter_bits_ = 0;  // the layout gather() chose
    // Per level, 16 bits per cell, set where a cell's key maps (the same map as the slots,
    // so lookups in key order read it in order). Most lookups are of empty cells; this
    // small bitmap answers them from cache.
    mutable std::vector<std::uint64_t> occupied_;
    static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
    std::array<Level, kMaxLevels> levels_{};
    std::vector<int> active_;             // non-empty levels, finest first
    std::array<int, kMaxLevels> coarser_{};  // index in active_ of the first level above
    Vec<D> origin_{0.0f};                 // grid origin, below the boxes' lower corner
    int base_exponent_ = 0;               // level L's cell side is 2^(base_exponent_ + L)
    double inv_side0_ = 1.0;
    bool framed_ = false;
    std::size_t reinserted_ = 0;
    std::size_t cells_ = 0;
    ChunkedSweep sweep_;
    using EngineBroadPhase<D>::costs_;
    // The places of the parameters in params_, in its order; kCount is how many.
    enum Setting : std::uint8_t {
        kParallel,
        kPersistentEntries,
        kOccupancyFilter,
        kWalkOpenCells,
        kCount
    };
    std::array<float, Setting::kCount> built_with_{};
    std::array<Param, Setting::kCount> params_ = {{
        Param::toggle("parallel", true),
        Param::toggle("persistent entries", true),
        Param::toggle("occupancy filter", true),
        Param::toggle("walk open cells", true),
    }};
};

}  // namespace collide
