// Spatial hash (seed 001): a uniform grid whose cells (integer coordinates) are hashed into
// a table sized from n. Each body is bucketed by its fat box (its box scaled about its centre
// by "fat scale", 150% as the seed suggests) and is re-bucketed only when its real box leaves
// that fat box, so from frame to frame most entries stay put. The cell size follows the
// distribution of box extents (a multiple of a percentile, changed only when it drifts by
// more than a factor 1.5, since a change re-buckets everything). The table is laid out as
// one entries array sorted by (bucket, cell, body): a cell's entries are contiguous, so the
// pair pass streams, cells that share a bucket are told apart by their coordinates, and a
// frame's moved bodies are patched in by one merge instead of a rebuild. A pair is reported
// only from the cell that holds the lower corner of the two fat cell ranges' intersection
// (each entry knows on which axes it is its body's lowest cell), so exactly once. Bodies
// covering more than a cap of cells go to an oversize list, tested against the bodies
// whose x interval can reach theirs in a list kept sorted by lower x.
#pragma once

#include <array>

#include "broadphase/common/engine_broadphase.hpp"
#include "broadphase/common/chunked_sweep.hpp"
#include "collide/broadphase.hpp"

namespace collide {

// visit(cell) for every cell of the range, in row order.
template <int D, typename Cell, typename Fn>
void for_each_cell_in(const Cell& lo, const Cell& hi, const Fn& visit) {
    Cell c = lo;
    while (true) {
        visit(c);
        int k = 0;
        while (k < D && c[k] == hi[k]) {
            c[k] = lo[k];
            ++k;
        }
        if (k == D) return;
        ++c[k];
    }
}

template <int D>
class SpatialHash final : public EngineBroadPhase<D> {
public:
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

    using Cell = std::array<std::int32_t, D>;

private:
    void build_and_search(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                          PairList& out) override;

    struct Entry {
        std::uint32_t bucket;
        Cell cell;
        BodyId id;
        std::uint32_t flags;  // as Hot::flags, without the first-of-cell bit
        friend bool operator<(const Entry& a, const Entry& b) {
            if (a.bucket != b.bucket) return a.bucket < b.bucket;
            for (int k = 0; k < D; ++k) {
                if (a.cell[k] != b.cell[k]) return a.cell[k] < b.cell[k];
            }
            return a.id < b.id;
        }
        bool same_cell(const Entry& o) const {
            bool same = bucket == o.bucket;
            for (int k = 0; k < D; ++k) same = same && cell[k] == o.cell[k];
            return same;
        }
    };
    // What the pair pass reads per entry, gathered in entry order so it streams.
    struct Hot {
        Aabb<D> box;
        BodyId id;
        std::uint32_t flags;  // bit k < D: the entry is its body's lowest cell on axis k;
                              // bit D: static body; bit D + 1: first entry of its cell
    };
    struct Range {
        Cell lo{}, hi{};
        friend bool operator==(const Range&, const Range&) = default;
    };

    float cell_scale() const { return params_[Setting::kCellScale].as_real(); }
    float fat_scale() const { return params_[Setting::kFatScale].as_real(); }
    bool auto_cell() const { return params_[Setting::kAutoCell].is_on(); }
    bool persistent() const { return params_[Setting::kPersistent].is_on(); }
    float percentile() const { return params_[Setting::kSizePercentile].as_real(); }
    bool parallel() const { return params_[Setting::kParallelPairs].is_on(); }

    // The automatic cell size before "cell scale": the extent percentile times a factor.
    float auto_base(std::span<const Aabb<D>> boxes);
    Aabb<D> fatten(const Aabb<D>& box, bool is_static) const;
    std::int32_t coord(float x) const;
    // Traced region queries record their cells only up to this many (a drawable number).
    static constexpr std::size_t kMaxTracedCells = 20000;
    Range range_of(const Aabb<D>& box) const;
    bool oversize(const Range& r) const;
    std::uint32_t bucket_of(const Cell& c) const;
    void append_entries(BodyId id, std::vector<Entry>& to) const;
    void rebuild();
    void patch();
    void gather();
    void find_pairs(PairList& out);
    // Watched: Watch mode records (this->watch_); the loops are instantiated apart, so the
    // unwatched ones carry no hook at all.
    template <bool Watched>
    void sweep_cells(std::size_t b, std::size_t e, PairList& pairs, std::uint64_t& tests) const;
    template <bool Watched>
    void oversize_pairs(PairList& out);
    // The index range of a cell's entries ([i, i) if none).
    std::pair<std::size_t, std::size_t> find_cell(const Cell& c) const;
    // visit(cell, first, end) for each occupied cell of body `id`.
    template <typename Fn>
    void for_each_cell_of(BodyId id, const Fn& visit) const;
    Aabb<D> cell_box(const Cell& c) const;
    std::size_t cells_of(const Range& r) const;

    float base_ = 0.0f;                    // automatic cell size before "cell scale"
    float cell_ = 1.0f;                    // cell side in use
    float inv_cell_ = 1.0f;
    int table_bits_ = 0;                   // the table has 2^bits buckets
    std::vector<Aabb<D>> boxes_;           // as of the last update, for queries and overlays
    std::vector<std::uint8_t> is_static_;
    std::vector<Aabb<D>> fat_;             // per body: the box it is bucketed by
    std::vector<Range> ranges_;            // per body: the cells of its fat box
    std::vector<std::uint8_t> dirty_;      // per body: its entries changed this update
    std::vector<BodyId> oversize_;         // bodies with too many cells, no entries
    std::vector<std::uint8_t> big_;        // per body: in oversize_
    // (lo.x, body) of every body sorted by lo.x, kept nearly sorted between frames: the
    // oversize bodies find their partners in one x range of it.
    std::vector<std::pair<float, BodyId>> by_x_;
    float widest_x_ = 0.0f;                // largest x extent of a body with entries
    std::vector<Entry> entries_;           // the table, sorted
    std::vector<Entry> fresh_, merged_;    // scratch for the patch
    std::vector<Hot> hot_;
    std::vector<std::uint32_t> histogram_; // scratch for the extent percentile
    ChunkedSweep chunks_;
    using EngineBroadPhase<D>::costs_;
    std::uint64_t oversize_tests_ = 0;
    std::uint64_t reinserted_ = 0;         // bodies whose entries moved in the last update
    std::uint64_t refattened_ = 0;         // bodies that left their fat box in the last update
    std::size_t occupied_ = 0;             // distinct cells
    bool rebuilt_ = false;                 // the last update re-bucketed everything
    // The places of the parameters in params_, in its order; kCount is how many.
    enum Setting : std::uint8_t {
        kCellScale,
        kFatScale,
        kAutoCell,
        kPersistent,
        kSizePercentile,
        kParallelPairs,
        kCount
    };
    // The parameters' values the entries were built with.
    std::array<float, Setting::kCount> built_with_{};
    std::array<Param, Setting::kCount> params_ = {{
        Param::real("cell scale", 1, 0.25f, 8),
        Param::real("fat scale", 1.5f, 1, 3),
        Param::toggle("auto cell size", true),
        Param::toggle("persistent", true),
        Param::real("size percentile", 0.9f, 0.05f, 1),
        Param::toggle("parallel pairs", false),
    }};
};

}  // namespace collide
