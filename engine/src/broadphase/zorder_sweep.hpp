// Key sweeps (seed 002): boxes sorted by a key of their min corner that is monotone in every
// coordinate; each box scans forward and stops at the first box whose min-corner key
// exceeds the key of its own max corner, since no later box can overlap it. Two keys:
// `zorder-sweep` uses the Morton code, `norm-sweep` the seed's squared norm (measured from
// the frame's lower corner, so every coordinate is positive).
#pragma once

#include <array>

#include "broadphase/chunked_sweep.hpp"
#include "collide/broadphase.hpp"
#include "collide/morton.hpp"

namespace collide {

struct MortonKey {
    template <int D>
    static std::uint64_t key(const morton::Coords<D>& c) {
        return morton::encode<D>(c);
    }
};

struct NormKey {
    // Coordinates cut to 21 bits so the sum of squares fits 64 bits.
    template <int D>
    static std::uint64_t key(const morton::Coords<D>& c) {
        std::uint64_t sum = 0;
        for (int k = 0; k < D; ++k) {
            const std::uint64_t v = c[k] >> (morton::kBits<D> - 21);
            sum += v * v;
        }
        return sum;
    }
};

template <int D, typename Key>
class KeySweep final : public BroadPhase<D> {
public:
    void update(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                PairList& out) override;
    void query(const Aabb<D>& region, std::vector<BodyId>& out,
               QueryTrace<D>* trace = nullptr) const override;
    void draw(DebugDraw<D>& draw, const Overlays<D>& which) const override;
    std::string describe(BodyId id) const override;
    BroadPhaseStats stats() const override;
    std::span<Param> params() override { return params_; }

private:
    struct Entry {
        std::uint64_t lo_key;  // key of the min corner: the sort key
        std::uint64_t hi_key;  // key of the max corner: where this box's scan stops
        BodyId id;
    };

    bool persistent() const { return params_[0].value != 0.0f; }
    bool parallel_sort() const { return params_[1].value != 0.0f; }
    std::size_t rank_of(BodyId id) const;
    // One past the last rank the scan from `rank` visits.
    std::size_t scan_end(std::size_t rank) const;

    morton::Quantizer<D> frame_;
    std::vector<Entry> entries_;        // sorted by lo_key, persistent between updates
    std::vector<Aabb<D>> sorted_;       // boxes in key order, for a cache-friendly scan
    std::vector<std::uint8_t> static_;  // is_static in key order
    Vec<D> max_size_{0.0f};             // largest box size per axis, bounds the query
    ChunkedSweep chunks_;
    std::array<Param, 2> params_ = {{{"persistent order", 1, 0, 1, true},
                                     {"parallel sort", 1, 0, 1, true}}};
};

template <int D>
using ZOrderSweep = KeySweep<D, MortonKey>;
template <int D>
using NormSweep = KeySweep<D, NormKey>;

}  // namespace collide
