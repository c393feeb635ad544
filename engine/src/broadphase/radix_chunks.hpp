// Radix chunks (seed 003): space cut into chunks of about k entities by rank quantiles of
// radix-sorted box bounds, then a sweep inside each chunk. Rebuilt from scratch every frame
// in O(n) (radix sorts and counting scatters only, no comparison sort). The cut is a k-d
// split by ranks, one axis per level: all entities radix-sorted by lo on axis 0 and cut into
// slabs at rank quantiles (about (m/k)^(1/D) slabs); each slab radix-sorted by lo on axis 1
// and cut again (then axis 2 in 3D), so chunks hold about k entities however clustered the
// data. Boundaries are float keys (order-preserving 32-bit ints) and regions are half-open,
// so every point of space lies in exactly one chunk. An entity is registered in every child
// region its closed box overlaps, so a box crossing boundaries is found by every chunk it
// reaches. A cut closer than the entities' mean extent to the previous one is dropped, so
// bodies lined up on a centre line do not land in dozens of thin slabs. Boxes larger than
// a typical chunk are split into a grid of pieces (the seed: "divide along the longest
// dimension"), entities of the same body. Registering a box in every chunk it overlaps
// already clips it, and without the pieces powerlaw 100k measured 10-20% faster: the
// toggle "split big boxes" shows that difference.
// The chunk's entities come out sorted by lo on the last axis (the scatter is stable) and
// are swept along it, unless a histogram says they crowd on that axis (a dropped cut): the
// chunk is then re-sorted on its least crowded axis. A pair is
// reported only by the chunk that holds the lower corner p = max(a.lo, b.lo) of the two
// real boxes' overlap, and only from the pieces that own p (half-open pieces, the last one
// closed), so exactly once. Pieces of one body never pair.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "broadphase/common/engine_broadphase.hpp"
#include "broadphase/common/chunked_sweep.hpp"
#include "broadphase/common/radix_sort.hpp"
#include "collide/broadphase.hpp"

namespace collide {

template <int D>
class RadixChunks final : public EngineBroadPhase<D> {
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

private:
    void build_and_search(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                          PairList& out) override;

    // Entity flags: bit k (k < D) the piece is the last along axis k (owns its hi face).
    static constexpr std::uint8_t kSplit = 1u << 5;   // one of several pieces of its body
    static constexpr std::uint8_t kStatic = 1u << 6;  // its body is static
    static constexpr std::uint8_t kLastAll = (1u << D) - 1;
    // Region bounds are float keys; these two lie beyond every float's key (NaN patterns),
    // so a region bounded by them is open on that side.
    static constexpr std::uint32_t kKeyMin = 0;
    static constexpr std::uint32_t kKeyMax = 0xffffffffu;

    static constexpr std::uint32_t kMaxPieces = 64;  // per body: bounds the splitting blow-up

    struct Entity {
        Aabb<D> box;  // the piece (the whole box if not split)
        BodyId body;
        std::uint8_t flags;
    };
    // A region at some level of the cut: half-open key ranges [lo, hi) per axis; children
    // are consecutive cells of the next level, a chunk's entities consecutive in entities_.
    struct Cell {
        std::array<std::uint32_t, D> lo, hi;
        std::uint32_t first = 0, count = 0;            // entries (level list / entities_)
        std::uint32_t child_first = 0, child_count = 0;
        std::uint8_t axis = D - 1;  // a chunk's sweep axis
    };

    std::size_t chunk_size() const {
        return std::max<std::size_t>(
            2, static_cast<std::size_t>(params_[Setting::kChunkSize].as_whole()));
    }
    float split_factor() const { return params_[Setting::kSplitSize].as_real(); }
    bool splitting() const { return params_[Setting::kSplitBigBoxes].is_on(); }
    bool parallel() const { return params_[Setting::kParallelSweep].is_on(); }
    float min_gap() const { return params_[Setting::kMinCutGap].as_real(); }

    void make_pieces(std::span<const std::uint8_t> is_static);
    void cut_level(int level);
    // cut_level's scatter telling Watch mode each entity put in a child: a copy of its own,
    // since with the recorder's calls in it the timed loop took about 6% more instructions
    // (2D powerlaw, 30k bodies).
    [[gnu::cold]] void scatter_watched(int level, WatchRecorder<D>& watch);
    void sort_cell_range(const Cell& c, int axis);
    void choose_sweep_axes();
    void sweep_chunks(std::size_t c0, std::size_t c1, PairList& out, std::uint64_t& tests) const;
    // With kWatch, each step told to `watch` (Watch mode's recorder); without, `watch` is
    // unused (null).
    template <int kAxis, bool kWatch>
    void sweep_chunk(const Cell& chunk, PairList& out, std::uint64_t& tests,
                     WatchRecorder<D>* watch) const;
    bool owns(const Cell& chunk, const Entity& a, const Entity& b) const;
    static bool owns_point(const Entity& e, const Vec<D>& p);
    // visit(chunk index) for each chunk whose region overlaps `box` (closed).
    template <typename Fn>
    void for_each_chunk(const Aabb<D>& box, const Fn& visit) const;
    Aabb<D> cell_box(const Cell& c) const;  // its region clipped to the bounds of all boxes

    std::vector<Aabb<D>> boxes_;              // as of the last update
    std::vector<Entity> pieces_;              // every entity, pieces of a body consecutive
    std::vector<std::uint32_t> piece_first_;  // per body, its first piece (n + 1 entries)
    std::array<std::vector<Cell>, D + 1> cells_;  // cells_[0] the root, cells_[D] the chunks
    std::vector<Entity> entities_;            // chunk lists, each sorted by lo on axis D-1
    std::vector<std::uint32_t> list_, next_;  // piece indices of the level being cut
    std::vector<std::uint32_t> keys_, keys_tmp_, vals_tmp_;
    std::vector<std::uint32_t> span_lo_, span_hi_;  // child range of each list entry
    std::vector<std::uint32_t> bounds_;       // boundary keys of the cell being cut
    std::vector<std::uint32_t> cursor_;
    Aabb<D> world_ = Aabb<D>::empty();        // bounds of all boxes, for drawing
    ChunkedSweep sweep_;
    using EngineBroadPhase<D>::costs_;
    // The places of the parameters in params_, in its order; kCount is how many.
    enum Setting : std::uint8_t {
        kChunkSize,
        kSplitSize,
        kSplitBigBoxes,
        kParallelSweep,
        kMinCutGap,
        kCount
    };
    std::array<Param, Setting::kCount> params_ = {{
        Param::whole("chunk size", 64, 4, 1024),
        Param::real("split size", 1, 0.25f, 8),
        Param::toggle("split big boxes", true),
        Param::toggle("parallel sweep", true),
        Param::real("min cut gap", 1, 0, 8),
    }};
};

// Defined here because query() (radix_chunks.cpp) and the viewer hooks
// (radix_chunks_view.cpp) both walk the chunks.
template <int D>
template <typename Fn>
void RadixChunks<D>::for_each_chunk(const Aabb<D>& box, const Fn& visit) const {
    if (cells_[0].empty()) return;
    std::array<std::uint32_t, D> klo, khi;
    for (int k = 0; k < D; ++k) {
        klo[k] = radix::float_key(box.lo[k]);
        khi[k] = radix::float_key(box.hi[k]);
    }
    const auto descend = [&](auto& self, int level, std::uint32_t index) -> void {
        const Cell& c = cells_[level][index];
        for (int k = 0; k < D; ++k) {
            if (klo[k] >= c.hi[k] || khi[k] < c.lo[k]) return;
        }
        if (level == D) {
            visit(index);
            return;
        }
        for (std::uint32_t j = c.child_first; j < c.child_first + c.child_count; ++j) {
            self(self, level + 1, j);
        }
    };
    descend(descend, 0, 0);
}

}  // namespace collide
