#include "broadphase/hierarchical_hash.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdio>

#include "collide/morton.hpp"

namespace collide {

namespace {

// The smallest e with 2^e >= x, for x > 0 (denormals round up, which only coarsens).
int ceil_exponent(float x) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
    const int e = static_cast<int>((bits >> 23) & 0xffu) - 127;
    return (bits & 0x7fffffu) != 0 ? e + 1 : e;
}

template <int D>
float largest_extent(const Aabb<D>& b) {
    float e = 0.0f;
    for (int k = 0; k < D; ++k) e = std::max(e, b.hi[k] - b.lo[k]);
    return e;
}

}  // namespace

// Level 0's cell, clamped and monotone in p (boxes far outside share the edge cells, still
// exact); a level-L cell is the level-0 cell shifted by L, as sides double from one origin.
template <int D>
typename HierarchicalHash<D>::Cell HierarchicalHash<D>::cell_of(const Vec<D>& p,
                                                                int level) const {
    Cell c;
    for (int k = 0; k < D; ++k) {
        const double t = std::floor((double(p[k]) - double(origin_[k])) * inv_side0_);
        c[k] = (t <= 0.0 ? 0 : t >= double(kMaxCoord) ? kMaxCoord : static_cast<std::uint64_t>(t)) >>
               level;
    }
    return c;
}

template <int D>
std::uint64_t HierarchicalHash<D>::pack(const Cell& c) {
    morton::Coords<D> m;
    for (int k = 0; k < D; ++k) m[k] = static_cast<std::uint32_t>(c[k]);
    return morton::encode_magic(m);
}

template <int D>
typename HierarchicalHash<D>::Cell HierarchicalHash<D>::unpack(std::uint64_t key) const {
    const morton::Coords<D> m = morton::decode<D>(key);
    Cell c;
    for (int k = 0; k < D; ++k) c[k] = m[k];
    return c;
}

// The key's low bits (the cell's place inside a tile of the table's size, in Z order) plus
// a random offset per tile: neighbouring cells of a dense level land in neighbouring
// buckets, while tiles of a sparse level do not alias in regular patterns.
template <int D>
std::uint32_t HierarchicalHash<D>::bucket_of(std::uint64_t key, int level) const {
    const Level& l = levels_[level];
    const int t = l.log2_buckets;
    const std::uint64_t mask = (std::uint64_t{1} << t) - 1;
    const std::uint64_t tile = ((key >> t) * 0x9E3779B97F4A7C15ull) >> (64 - t);
    return l.bucket_begin + static_cast<std::uint32_t>((key + tile) & mask);
}

template <int D>
std::size_t HierarchicalHash<D>::filter_bit(std::uint64_t key, int level) const {
    const Level& l = levels_[level];
    return l.filter_begin +
           static_cast<std::size_t>((key * 0xD6E8FEB86659FD93ull) >> (64 - l.log2_filter));
}

template <int D>
std::pair<std::uint32_t, std::uint32_t> HierarchicalHash<D>::bucket_range(std::uint64_t key,
                                                                          int level) const {
    const std::uint32_t b = bucket_of(key, level);
    return {starts_[b], starts_[b + 1]};
}

template <int D>
Aabb<D> HierarchicalHash<D>::cell_box(const Cell& c, int level) const {
    const double side = std::ldexp(1.0, base_exponent_ + level);
    Aabb<D> box;
    for (int k = 0; k < D; ++k) {
        box.lo[k] = static_cast<float>(double(origin_[k]) + double(c[k]) * side);
        box.hi[k] = static_cast<float>(double(origin_[k]) + double(c[k] + 1) * side);
    }
    return box;
}

template <int D>
template <typename Fn>
void HierarchicalHash<D>::for_each_in(const Cell& lo, const Cell& hi, const Fn& visit) {
    if constexpr (D == 2) {
        for (std::uint64_t y = lo[1]; y <= hi[1]; ++y)
            for (std::uint64_t x = lo[0]; x <= hi[0]; ++x) visit(Cell{x, y});
    } else {
        for (std::uint64_t z = lo[2]; z <= hi[2]; ++z)
            for (std::uint64_t y = lo[1]; y <= hi[1]; ++y)
                for (std::uint64_t x = lo[0]; x <= hi[0]; ++x) visit(Cell{x, y, z});
    }
}

template <int D>
template <typename Fn>
void HierarchicalHash<D>::for_each_cell(const Aabb<D>& box, int level, const Fn& visit) const {
    for_each_in(cell_of(box.lo, level), cell_of(box.hi, level), visit);
}

// The pair is reported from the one cell at `level` that holds the lower corner of the two
// boxes' overlap: both boxes touch it, and it is a single cell.
template <int D>
bool HierarchicalHash<D>::owns(std::uint64_t key, int level, const Aabb<D>& a,
                               const Aabb<D>& b) const {
    return pack(cell_of(glm::max(a.lo, b.lo), level)) == key;
}

// Level 0 fits the smallest body; it is coarsened so that the world spans at most 2^kBits
// cells of level 0 per axis (keys stay exact) and the largest body fits level kMaxLevels - 1.
template <int D>
void HierarchicalHash<D>::choose_levels() {
    Aabb<D> world = Aabb<D>::empty();
    float smallest = std::numeric_limits<float>::infinity();
    float largest = 0.0f;
    for (const Aabb<D>& b : boxes_) {
        world.grow(b);
        const float e = largest_extent(b);
        if (e > 0.0f) smallest = std::min(smallest, e);
        largest = std::max(largest, e);
    }
    origin_ = boxes_.empty() ? Vec<D>(0.0f) : world.lo;
    const float span = boxes_.empty() ? 0.0f : largest_extent(world);
    int base = largest > 0.0f ? ceil_exponent(smallest) : 0;
    if (span > 0.0f) base = std::max(base, ceil_exponent(span) - kBits);
    if (largest > 0.0f) base = std::max(base, ceil_exponent(largest) - (kMaxLevels - 1));
    base_exponent_ = base;
    inv_side0_ = std::ldexp(1.0, -base);
}

template <int D>
void HierarchicalHash<D>::build() {
    const std::size_t n = boxes_.size();
    choose_levels();
    for (Level& l : levels_) l = Level{};
    level_of_.resize(n);
    ranges_.resize(n);
    std::array<std::uint32_t, kMaxLevels> cells{};
    for (std::size_t i = 0; i < n; ++i) {
        const float e = largest_extent(boxes_[i]);
        const int level =
            e > 0.0f ? std::clamp(ceil_exponent(e) - base_exponent_, 0, kMaxLevels - 1) : 0;
        level_of_[i] = static_cast<std::uint8_t>(level);
        ++levels_[level].bodies;
        const Cell lo = cell_of(boxes_[i].lo, 0);
        const Cell hi = cell_of(boxes_[i].hi, 0);
        std::uint32_t count = 1;
        for (int k = 0; k < D; ++k) {
            ranges_[i].lo[k] = static_cast<std::uint32_t>(lo[k]);
            ranges_[i].hi[k] = static_cast<std::uint32_t>(hi[k]);
            count *= static_cast<std::uint32_t>((hi[k] >> level) - (lo[k] >> level) + 1);
        }
        cells[level] += count;
    }
    // Levels laid out one after the other in the entry and bucket arrays; a table twice
    // the size of its entries keeps most buckets to one cell.
    active_.clear();
    std::uint32_t entry_at = 0, bucket_at = 0;
    std::size_t filter_at = 0;
    for (int l = 0; l < kMaxLevels; ++l) {
        Level& level = levels_[l];
        level.entry_begin = level.entry_end = entry_at;
        level.bucket_begin = bucket_at;
        if (level.bodies == 0) continue;
        active_.push_back(l);
        level.log2_buckets = std::max(1, static_cast<int>(std::bit_width(2 * cells[l] - 1)));
        entry_at += cells[l];
        bucket_at += std::uint32_t{1} << level.log2_buckets;
        level.filter_begin = filter_at;
        level.log2_filter = std::max(6, static_cast<int>(std::bit_width(8 * cells[l] - 1)));
        filter_at += std::size_t{1} << level.log2_filter;
    }
    staged_.resize(entry_at);
    entries_.resize(entry_at);
    starts_.assign(std::size_t{bucket_at} + 1, 0);
    occupied_.assign(filter_at / 64, 0);
    for (BodyId i = 0; i < n; ++i) {
        const int level = level_of_[i];
        Level& l = levels_[level];
        Cell lo, hi;
        for (int k = 0; k < D; ++k) {
            lo[k] = ranges_[i].lo[k] >> level;
            hi[k] = ranges_[i].hi[k] >> level;
        }
        for_each_in(lo, hi, [&](const Cell& c) {
            const std::uint64_t key = pack(c);
            const std::uint32_t b = bucket_of(key, level);
            ++starts_[b];
            staged_[l.entry_end++] = {key, i, b};
            const std::size_t bit = filter_bit(key, level);
            occupied_[bit >> 6] |= std::uint64_t{1} << (bit & 63);
        });
    }
    // Counting sort by bucket: inclusive prefix sums, then each entry placed at its bucket's
    // end, which leaves starts_[b] at the bucket's first entry.
    std::uint32_t sum = 0;
    for (std::size_t b = 0; b < bucket_at; ++b) starts_[b] = sum += starts_[b];
    starts_[bucket_at] = sum;
    for (const Staged& s : staged_) {
        entries_[--starts_[s.bucket]] = {boxes_[s.id], s.key, s.id, is_static_[s.id]};
    }

}

template <int D>
void HierarchicalHash<D>::pairs_within(std::size_t b0, std::size_t b1, PairList& out,
                                       std::uint64_t& tests) const {
    for (std::size_t b = b0; b < b1; ++b) {
        const std::uint32_t end = starts_[b + 1];
        for (std::uint32_t i = starts_[b]; i + 1 < end; ++i) {
            const Entry& a = entries_[i];
            for (std::uint32_t j = i + 1; j < end; ++j) {
                const Entry& e = entries_[j];
                if (e.key != a.key || (a.is_static & e.is_static)) continue;
                ++tests;
                if (!a.box.overlaps(e.box)) continue;
                if (!owns(a.key, level_of_[a.id], a.box, e.box)) continue;
                out.push_back(make_pair(a.id, e.id));
            }
        }
    }
}

template <int D>
void HierarchicalHash<D>::pairs_across(std::size_t i0, std::size_t i1, PairList& out,
                                       std::uint64_t& tests) const {
    if (active_.empty()) return;
    const int top = active_.back();
    const bool filter = filtered();
    // visit(key, level, bucket) for each coarser cell of body i that the filter lets by.
    const auto probes = [&](std::size_t i, const auto& visit) {
        const int own = level_of_[i];
        if (own >= top) return;
        const Range& r = ranges_[i];
        for (auto m = std::upper_bound(active_.begin(), active_.end(), own); m != active_.end();
             ++m) {
            const int level = *m;
            Cell lo, hi;
            for (int k = 0; k < D; ++k) {
                lo[k] = r.lo[k] >> level;
                hi[k] = r.hi[k] >> level;
            }
            for_each_in(lo, hi, [&](const Cell& c) {
                const std::uint64_t key = pack(c);
                if (filter) {
                    const std::size_t bit = filter_bit(key, level);
                    if (!((occupied_[bit >> 6] >> (bit & 63)) & 1u)) return;
                }
                visit(key, level, bucket_of(key, level));
            });
        }
    };
    for (std::size_t i = i0; i < i1; ++i) {
        const Aabb<D>& box = boxes_[i];
        const std::uint8_t st = is_static_[i];
        probes(i, [&](std::uint64_t key, int level, std::uint32_t b) {
            for (std::uint32_t j = starts_[b]; j < starts_[b + 1]; ++j) {
                const Entry& e = entries_[j];
                if (e.key != key || (st & e.is_static)) continue;
                ++tests;
                if (!box.overlaps(e.box) || !owns(key, level, box, e.box)) continue;
                out.push_back(make_pair(BodyId(i), e.id));
            }
        });
    }
}

template <int D>
void HierarchicalHash<D>::update(std::span<const Aabb<D>> boxes,
                                 std::span<const std::uint8_t> is_static, PairList& out) {
    out.clear();
    assert(is_static.size() == boxes.size());
    boxes_.assign(boxes.begin(), boxes.end());
    is_static_.assign(is_static.begin(), is_static.end());
    build();
    const auto within = [&](std::size_t b, std::size_t e, PairList& p, std::uint64_t& t) {
        pairs_within(b, e, p, t);
    };
    const auto across = [&](std::size_t b, std::size_t e, PairList& p, std::uint64_t& t) {
        pairs_across(b, e, p, t);
    };
    const std::size_t buckets = starts_.size() - 1;
    if (parallel()) {
        within_.run(buckets, 16384, within, out);
        across_.run(boxes_.size(), 4096, across, out);
    } else {
        within_.run_serial(buckets, within, out);
        across_.run_serial(boxes_.size(), across, out);
    }
}

// Per level: the region's cells looked up in the table, or, when the region covers more
// cells than the level has entries, the level's entries scanned. Either way a body is taken
// only from its cell holding the lower corner of its overlap with the region.
template <int D>
void HierarchicalHash<D>::query(const Aabb<D>& region, std::vector<BodyId>& out) const {
    out.clear();
    for (int m : active_) {
        const Level& l = levels_[m];
        const Cell lo = cell_of(region.lo, m);
        const Cell hi = cell_of(region.hi, m);
        double cells = 1.0;
        for (int k = 0; k < D; ++k) cells *= double(hi[k] - lo[k] + 1);
        const auto take = [&](const Entry& e) {
            if (e.box.overlaps(region) && owns(e.key, m, e.box, region)) out.push_back(e.id);
        };
        if (cells > double(l.entry_end - l.entry_begin)) {
            const std::uint32_t end = starts_[l.bucket_begin + (1u << l.log2_buckets)];
            for (std::uint32_t j = starts_[l.bucket_begin]; j < end; ++j) take(entries_[j]);
            continue;
        }
        for_each_cell(region, m, [&](const Cell& c) {
            const std::uint64_t key = pack(c);
            const auto [begin, end] = bucket_range(key, m);
            for (std::uint32_t j = begin; j < end; ++j) {
                if (entries_[j].key == key) take(entries_[j]);
            }
        });
    }
}

template <int D>
std::vector<std::string> HierarchicalHash<D>::layers() const {
    std::vector<std::string> names;
    for (int m : active_) {
        char text[96];
        std::snprintf(text, sizeof text, "level %d: cell %.4g, %u bodies", m,
                      std::ldexp(1.0, base_exponent_ + m), levels_[m].bodies);
        names.emplace_back(text);
    }
    return names;
}

template <int D>
void HierarchicalHash<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    const bool selecting = which.selected < boxes_.size();
    if (which.structure) {
        // Each occupied cell once (the first of its entries in the bucket), coloured by level.
        const float span = std::max(1, active_.empty() ? 1 : active_.back() - active_.front());
        for (std::size_t layer = 0; layer < active_.size(); ++layer) {
            if (layer < 64 && (which.hidden_layers >> layer) & 1u) continue;
            const int m = active_[layer];
            const float t = float(m - active_.front()) / span;
            const Color line = ramp_color(t, selecting ? 0.35f : 0.8f);
            const Color fill = ramp_color(t, 0.15f);
            const Level& l = levels_[m];
            const std::uint32_t b1 = l.bucket_begin + (1u << l.log2_buckets);
            for (std::uint32_t b = l.bucket_begin; b < b1 && !draw.full(); ++b) {
                for (std::uint32_t i = starts_[b]; i < starts_[b + 1]; ++i) {
                    bool first = true;
                    for (std::uint32_t j = starts_[b]; j < i && first; ++j)
                        first = entries_[j].key != entries_[i].key;
                    if (!first) continue;
                    const Aabb<D> box = cell_box(unpack(entries_[i].key), m);
                    if (!box.overlaps(draw.view)) continue;
                    draw.fill(box, fill);
                    draw.box(box, line);
                }
            }
        }
    }
    if (selecting) {
        // The coarser cells the body looked up (yellow), then its own cells (white).
        const BodyId id = which.selected;
        const int own = level_of_[id];
        for (int m : active_) {
            if (m <= own) continue;
            for_each_cell(boxes_[id], m, [&](const Cell& c) {
                draw.box(cell_box(c, m), rgba(1.0f, 0.85f, 0.2f, 0.9f));
            });
        }
        for_each_cell(boxes_[id], own, [&](const Cell& c) {
            draw.box(cell_box(c, own), rgba(1, 1, 1));
        });
    }
    if (which.query) {
        // The cells the query looked up at each level (green where a body was found there).
        for (int m : active_) {
            const Cell lo = cell_of(which.query->lo, m);
            const Cell hi = cell_of(which.query->hi, m);
            double cells = 1.0;
            for (int k = 0; k < D; ++k) cells *= double(hi[k] - lo[k] + 1);
            if (cells > 4096.0) continue;  // scanned, not looked up
            for_each_cell(*which.query, m, [&](const Cell& c) {
                const std::uint64_t key = pack(c);
                const auto [begin, end] = bucket_range(key, m);
                bool hit = false;
                for (std::uint32_t j = begin; j < end && !hit; ++j) hit = entries_[j].key == key;
                draw.box(cell_box(c, m),
                         hit ? rgba(0.3f, 1.0f, 0.4f, 0.9f) : rgba(0.6f, 0.6f, 0.6f, 0.4f));
            });
        }
    }
}

template <int D>
std::string HierarchicalHash<D>::describe(BodyId id) const {
    if (id >= boxes_.size()) return {};
    const int own = level_of_[id];
    char text[128];
    std::snprintf(text, sizeof text, "Level %d: cells of side %.4g", own,
                  std::ldexp(1.0, base_exponent_ + own));
    std::string s = text;
    // Bodies sharing one of the cells (other keys in the bucket are not counted).
    const auto occupants = [&](std::uint64_t key, int m) {
        const auto [begin, end] = bucket_range(key, m);
        std::size_t count = 0;
        for (std::uint32_t j = begin; j < end; ++j) count += entries_[j].key == key;
        return count;
    };
    for_each_cell(boxes_[id], own, [&](const Cell& c) {
        s += "\nCell (";
        for (int k = 0; k < D; ++k) s += (k ? ", " : "") + std::to_string(c[k]);
        s += "): " + std::to_string(occupants(pack(c), own) - 1) + " other bodies";
    });
    for (int m : active_) {
        if (m <= own) continue;
        std::size_t cells = 0, found = 0;
        for_each_cell(boxes_[id], m, [&](const Cell& c) {
            ++cells;
            found += occupants(pack(c), m);
        });
        s += "\nChecked level " + std::to_string(m) + ": " + std::to_string(cells) +
             " cells, " + std::to_string(found) + " entries";
    }
    return s;
}

template <int D>
BroadPhaseStats HierarchicalHash<D>::stats() const {
    // Occupied cells: entries whose key does not repeat later in their bucket.
    std::size_t cells = 0;
    for (std::size_t b = 0; b + 1 < starts_.size(); ++b) {
        for (std::uint32_t i = starts_[b]; i < starts_[b + 1]; ++i) {
            bool last = true;
            for (std::uint32_t j = i + 1; j < starts_[b + 1] && last; ++j)
                last = entries_[j].key != entries_[i].key;
            cells += last;
        }
    }
    const std::size_t bytes =
        boxes_.capacity() * sizeof(Aabb<D>) + is_static_.capacity() + level_of_.capacity() +
        active_.capacity() * sizeof(int) + staged_.capacity() * sizeof(Staged) +
        entries_.capacity() * sizeof(Entry) + starts_.capacity() * sizeof(std::uint32_t) +
        within_.bytes() + across_.bytes() +
        occupied_.capacity() * sizeof(std::uint64_t);
    return {.candidate_tests = within_.tests() + across_.tests(),
            .structure_bytes = bytes,
            .nodes = cells,
            .depth = static_cast<int>(active_.size())};
}

template class HierarchicalHash<2>;
template class HierarchicalHash<3>;

}  // namespace collide
