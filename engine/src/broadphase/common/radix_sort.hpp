// LSD radix sort of 32-bit keys with a 32-bit payload, and the order-preserving map from
// floats to such keys. O(n) per pass with a fixed number of passes, no comparisons; a pass
// whose digit is the same for every key (clustered coordinates share their high bits) is
// skipped. Used by radix-chunks to sort box bounds; any algorithm may use it.
#pragma once

#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <span>

namespace collide::radix {

// Unsigned key with the order of the float: negative floats have their bits flipped
// (larger magnitude sorts lower), positive ones their sign bit set. -0 and +0 map to the
// same key so that key order and float comparisons agree everywhere. NaN is not handled.
inline std::uint32_t float_key(float x) {
    std::uint32_t b = std::bit_cast<std::uint32_t>(x);
    if ((b << 1) == 0) b = 0;  // -0 -> +0
    return (b & 0x80000000u) ? ~b : b | 0x80000000u;
}

// The inverse of float_key (for drawing boundaries kept as keys).
inline float key_float(std::uint32_t k) {
    return std::bit_cast<float>((k & 0x80000000u) ? k & 0x7fffffffu : ~k);
}

// Sorts `keys` ascending, stably, applying the same permutation to `vals`. The tmp spans
// are scratch of at least the same size. Bits per pass: 8 suits small arrays (256
// buckets), 11 large ones (three passes instead of four).
template <int Bits = 8>
void sort_pairs(std::span<std::uint32_t> keys, std::span<std::uint32_t> vals,
                std::span<std::uint32_t> keys_tmp, std::span<std::uint32_t> vals_tmp) {
    constexpr int kPasses = (32 + Bits - 1) / Bits;
    constexpr std::uint32_t kBuckets = 1u << Bits;
    constexpr std::uint32_t kMask = kBuckets - 1;
    const std::size_t n = keys.size();
    assert(vals.size() == n && keys_tmp.size() >= n && vals_tmp.size() >= n);
    if (n < 2) return;
    std::array<std::array<std::uint32_t, kBuckets>, kPasses> count{};
    for (std::uint32_t k : keys) {
        for (int p = 0; p < kPasses; ++p) ++count[p][(k >> (p * Bits)) & kMask];
    }
    std::uint32_t* src_k = keys.data();
    std::uint32_t* src_v = vals.data();
    std::uint32_t* dst_k = keys_tmp.data();
    std::uint32_t* dst_v = vals_tmp.data();
    for (int p = 0; p < kPasses; ++p) {
        std::array<std::uint32_t, kBuckets>& c = count[p];
        const int shift = p * Bits;
        if (c[(src_k[0] >> shift) & kMask] == n) continue;  // one digit for all: nothing moves
        std::uint32_t sum = 0;
        for (std::uint32_t& x : c) {
            const std::uint32_t here = x;
            x = sum;
            sum += here;
        }
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint32_t at = c[(src_k[i] >> shift) & kMask]++;
            dst_k[at] = src_k[i];
            dst_v[at] = src_v[i];
        }
        std::swap(src_k, dst_k);
        std::swap(src_v, dst_v);
    }
    if (src_k != keys.data()) {
        for (std::size_t i = 0; i < n; ++i) {
            keys[i] = src_k[i];
            vals[i] = src_v[i];
        }
    }
}

// Picks the digit width by size.
inline void sort_pairs_auto(std::span<std::uint32_t> keys, std::span<std::uint32_t> vals,
                            std::span<std::uint32_t> keys_tmp,
                            std::span<std::uint32_t> vals_tmp) {
    if (keys.size() >= (1u << 16)) {
        sort_pairs<11>(keys, vals, keys_tmp, vals_tmp);
    } else {
        sort_pairs<8>(keys, vals, keys_tmp, vals_tmp);
    }
}

}  // namespace collide::radix
