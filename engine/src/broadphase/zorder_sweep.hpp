// Key sweeps (seed 002): boxes sorted by a key of their min corner that is monotone in every
// coordinate; each box scans forward and stops at the first box whose min-corner key
// exceeds the key of its own max corner, since no later box can overlap it. Two keys:
// `zorder-sweep` uses the Morton code, `norm-sweep` the seed's squared norm (measured from
// the frame's lower corner, so every coordinate is positive). With Morton codes the scan
// can also skip (`bigmin skip`): a later box B overlaps A only if B's min corner lies in
// A's box stretched down by the largest box size, and where the scan meets a code outside
// that region it jumps to the next code inside (BIGMIN) by a binary search. Norm keys have
// no such jump: the norms of a box's points fill the whole range between its corners' norms.
#pragma once

#include <algorithm>
#include <array>

#include "broadphase/common/chunked_sweep.hpp"
#include "broadphase/common/engine_broadphase.hpp"
#include "broadphase/common/nearly_sorted.hpp"
#include "collide/broadphase.hpp"
#include "collide/morton.hpp"

namespace collide {

// A key is computed from grid coordinates cut to their top coord_bits(key_bits) bits, so that
// it fits in key_bits bits beside a body id in one 64-bit entry.
struct MortonKey {
    static constexpr bool kSkips = true;  // BIGMIN applies
    template <int D>
    static int coord_bits(int key_bits) {
        return std::min(morton::kBits<D>, key_bits / D);
    }
    template <int D>
    static std::uint64_t key(const morton::Coords<D>& c) {
        return morton::encode<D>(c);
    }
};

struct NormKey {
    static constexpr bool kSkips = false;
    // The sum of D < 4 squares of b-bit numbers takes 2b + 2 bits; 21 at most, as before.
    template <int D>
    static int coord_bits(int key_bits) {
        return std::min(21, (key_bits - 2) / 2);
    }
    template <int D>
    static std::uint64_t key(const morton::Coords<D>& c) {
        std::uint64_t sum = 0;
        for (int k = 0; k < D; ++k) sum += std::uint64_t{c[k]} * c[k];
        return sum;
    }
};

template <int D, typename Key>
class KeySweep final : public EngineBroadPhase<D> {
public:
    void search(const Aabb<D>& region, std::vector<BodyId>& out,
                QueryTrace<D>* trace = nullptr) const override;
    void draw(DebugDraw<D>& draw, const Overlays<D>& which) const override;
    std::string describe(BodyId id) const override;
    BroadPhaseStats stats() const override;
    WatchScript watch_script() const override;
    void validate() const override;
    std::span<Param> params() override {
        return std::span(params_).first(Key::kSkips ? Setting::kCount : Setting::kBigminSkip);
    }

private:
    void build_and_search(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                          PairList& out) override;

    // An entry is one 64-bit word: the key of the box's min corner above the body id, so the
    // sort moves 8 bytes an entry and compares one word (ties go by id), and a walk reads 8
    // keys a cache line. The key's coordinates lose their lowest bits to make room (2D at
    // 100k: 23 of 32 bits an axis; 3D at 1M: 14 of 21), which costs only ties: every order
    // and bound below holds for any monotone grid. Against 16-byte entries, one thread:
    // 2D powerlaw at speed 0.5, 100k 3.86 -> 3.77 ms and 1M 45.1 -> 43.0; 3D the same.
    BodyId id_at(std::size_t rank) const { return BodyId(entries_[rank] & id_mask_); }
    std::uint64_t key_at(std::size_t rank) const { return entries_[rank] >> id_bits_; }
    // The key of the box's max corner, where its scan stops: worked out from the box copy
    // the scan reads anyway, not stored (8 bytes a body written and read back each frame).
    std::uint64_t hi_key_at(std::size_t rank) const {
        return Key::template key<D>(coarse(frame_(sorted_[rank].hi)));
    }
    // The grid coordinates the keys use: the quantizer's, cut to coord_bits (dropping
    // `shift`, coord_shift_, low bits; the per-body passes pass a local copy of it).
    static morton::Coords<D> coarse(morton::Coords<D> c, int shift) {
        for (int k = 0; k < D; ++k) c[k] >>= shift;
        return c;
    }
    morton::Coords<D> coarse(const morton::Coords<D>& c) const { return coarse(c, coord_shift_); }
    bool persistent() const { return params_[Setting::kPersistentOrder].is_on(); }
    bool parallel_sort() const { return params_[Setting::kParallelSort].is_on(); }
    bool skips() const { return Key::kSkips && params_[Setting::kBigminSkip].is_on(); }
    std::size_t rank_of(BodyId id) const;
    // Grid coordinates lowered by the largest box size (at least 0): the least a min corner
    // can have on each axis for its box to reach one whose min corner is at `c`.
    morton::Coords<D> lowered(morton::Coords<D> c) const;
    // First rank at or after `first` whose key is at least `key`: galloping over the next
    // few entries, then over every kKeyStride-th key (sampled_entries_), then binary.
    std::size_t seek(std::size_t first, std::uint64_t key) const;
    // Walks the ranks from `first` while their key is at most `last`, calling test(j) for
    // each. When skipping, only the ranks whose min corner lies in the grid box with corner
    // codes zmin and last are tested; skipped(j, next, bigmin) is told each run [j, next)
    // passed over: one rank stepped over (bigmin false) or a BIGMIN jump (true).
    template <typename Test, typename Skipped>
    void walk(std::size_t first, std::uint64_t zmin, std::uint64_t last, const Test& test,
              const Skipped& skipped) const;
    // The walk of the sweep from `rank`: the later boxes that can overlap it.
    template <typename Test, typename Skipped>
    void scan(std::size_t rank, const Test& test, const Skipped& skipped) const;
    // The code of the least min corner a box reaching region `region` can have.
    std::uint64_t region_floor(const Aabb<D>& region) const;
    // The region, in world coordinates, where the min corners of the boxes the scan from
    // `rank` tests lie when skipping: its box stretched down by the largest box size, in the
    // keys' grid cells.
    Aabb<D> skip_region(std::size_t rank) const;
    // Watch mode's record of the scan from `rank` beginning: the cursor at its body and, when
    // skipping, the region it tests in.
    void watch_scan(WatchRecorder<D>& watch, std::size_t rank) const;

    morton::Quantizer<D> frame_;
    std::vector<std::uint64_t> entries_;  // in key order, persistent between updates
    std::vector<std::uint64_t> aside_;    // scratch for sort_from_last_order
    int id_bits_ = 1;                     // bits of an entry that hold the id
    std::uint64_t id_mask_ = 1;
    int coord_shift_ = 0;               // quantizer bits a key's coordinates drop
    SortHistory sort_history_;          // whether its insertion sort gave up lately
    std::vector<Aabb<D>> sorted_;       // boxes in key order, for a cache-friendly scan
    std::vector<std::uint8_t> static_;  // is_static in key order
    // Every kKeyStride-th entry: a long jump's search runs in this small array
    // (in the caches) rather than over entries far apart in memory, each a cache miss. On 2D
    // powerlaw 1M (92,000 jumps a frame, 1,450 ranks each on average) the frame went from
    // 40.2 to 38.4 ms; strides 8 and 32 measured the same as 16.
    static constexpr std::size_t kKeyStride = 16;
    std::vector<std::uint64_t> sampled_entries_;
    morton::Coords<D> max_cells_{};  // largest box size per axis, in the keys' grid cells
    // max_cells_ as a Morton code: a scan lowers its min corner's code by it directly, not
    // through decode and encode (2D powerlaw 100k at speed 0.5: 3.75 -> 3.69 ms a frame).
    std::uint64_t max_cells_code_ = 0;
    // Per block of kBodiesPerBlock bodies: the extent of its boxes and its largest box size
    // in grid cells, combined in block order.
    static constexpr std::size_t kBodiesPerBlock = 16384;
    std::vector<Aabb<D>> block_extent_;
    std::vector<morton::Coords<D>> block_cells_;
    ChunkedSweep chunks_;
    using EngineBroadPhase<D>::costs_;
    // The places of the parameters in params_, in its order; kCount is how many.
    // The last is zorder-sweep's alone (params() hides it from norm-sweep).
    enum Setting : std::uint8_t { kPersistentOrder, kParallelSort, kBigminSkip, kCount };
    std::array<Param, Setting::kCount> params_ = {{
        Param::toggle("persistent order", true),
        Param::toggle("parallel sort", true),
        Param::toggle("bigmin skip", true),
    }};
};

template <int D, typename Key>
template <typename Test, typename Skipped>
void KeySweep<D, Key>::walk(std::size_t first, std::uint64_t zmin, std::uint64_t last,
                            const Test& test, const Skipped& skipped) const {
    // A jump (BIGMIN, then a search) costs as much as checking a few dozen codes against
    // the region, so short runs outside it are stepped over one by one (16 was the fastest
    // of 4 to 64 on every scene at 100k in both dimensions; 8 cost powerlaw 15-20%).
    constexpr int kStepsBeforeJump = 16;
    const bool skip = skips();
    const std::size_t n = entries_.size();
    int misses = 0;
    for (std::size_t j = first; j < n && key_at(j) <= last;) {
        const std::uint64_t z = key_at(j);
        if (!skip || morton::in_box<D>(z, zmin, last)) {
            test(j);
            ++j;
            misses = 0;
        } else if (++misses < kStepsBeforeJump) {
            skipped(j, j + 1, false);
            ++j;
        } else {
            const std::size_t next = seek(j + 1, morton::bigmin<D>(z, zmin, last));
            skipped(j, next, true);
            j = next;
            misses = 0;
        }
    }
}

template <int D, typename Key>
template <typename Test, typename Skipped>
void KeySweep<D, Key>::scan(std::size_t rank, const Test& test, const Skipped& skipped) const {
    const std::uint64_t lo_key = key_at(rank);
    const std::uint64_t last = hi_key_at(rank);
    // Most small boxes end before the next key: no walk, and no skip region to work out.
    if (rank + 1 == entries_.size() || key_at(rank + 1) > last) return;
    const std::uint64_t zmin = skips() ? morton::lowered<D>(lo_key, max_cells_code_) : lo_key;
    walk(rank + 1, zmin, last, test, skipped);
}

template <int D>
using ZOrderSweep = KeySweep<D, MortonKey>;
template <int D>
using NormSweep = KeySweep<D, NormKey>;

}  // namespace collide
