#include "broadphase/spatial_hash.hpp"
#include "broadphase/common/nearly_sorted.hpp"
#include "broadphase/common/pair_test.hpp"
#include "broadphase/common/sorted_patch.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdio>

namespace collide {

namespace {

// A body covering more cells than this has no entries; it is tested against every body.
template <int D>
constexpr double kMaxCells = D == 2 ? 1024.0 : 4096.0;
// The automatic cell side is this many times the chosen extent percentile.
constexpr float kSizeFactor = 2.0f;
// The automatic size is followed only when it drifts by more than this factor, as a new
// cell size re-buckets every body.
constexpr float kHysteresis = 1.5f;
// Cell coordinates are clamped here: clamping is monotone, so boxes far outside stay exact
// (they only share the border cells).
constexpr float kCoordLimit = 1.0e9f;

template <int D>
bool contains(const Aabb<D>& outer, const Aabb<D>& inner) {
    for (int k = 0; k < D; ++k) {
        if (inner.lo[k] < outer.lo[k] || inner.hi[k] > outer.hi[k]) return false;
    }
    return true;
}

}  // namespace

template <int D>
std::int32_t SpatialHash<D>::coord(float x) const {
    // Written so that NaN (a body the physics lost) takes the lowest cell: std::clamp would
    // pass it through, and casting NaN to an integer is undefined.
    const float v = x * inv_cell_;
    const float clamped = v >= -kCoordLimit ? std::min(v, kCoordLimit) : -kCoordLimit;
    return static_cast<std::int32_t>(std::floor(clamped));
}

template <int D>
typename SpatialHash<D>::Range SpatialHash<D>::range_of(const Aabb<D>& box) const {
    Range r;
    for (int k = 0; k < D; ++k) {
        r.lo[k] = coord(box.lo[k]);
        r.hi[k] = coord(box.hi[k]);
    }
    return r;
}

template <int D>
std::size_t SpatialHash<D>::cells_of(const Range& r) const {
    double cells = 1.0;
    for (int k = 0; k < D; ++k) cells *= double(r.hi[k]) - double(r.lo[k]) + 1.0;
    return cells > 1e18 ? std::size_t(1e18) : static_cast<std::size_t>(cells);
}

template <int D>
bool SpatialHash<D>::oversize(const Range& r) const {
    return double(cells_of(r)) > kMaxCells<D>;
}

template <int D>
std::uint32_t SpatialHash<D>::bucket_of(const Cell& c) const {
    constexpr std::uint64_t kMul[3] = {0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full,
                                       0x165667B19E3779F9ull};
    std::uint64_t h = 0;
    for (int k = 0; k < D; ++k) h += std::uint64_t(std::uint32_t(c[k])) * kMul[k];
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return static_cast<std::uint32_t>(h >> (64 - table_bits_));
}

template <int D>
Aabb<D> SpatialHash<D>::fatten(const Aabb<D>& box, bool is_static) const {
    if (is_static) return box;  // static bodies do not move: no slack needed
    const Vec<D> c = box.center();
    const Vec<D> half = box.size() * (0.5f * fat_scale());
    // min/max: the fat box must hold the real box despite rounding.
    return {glm::min(c - half, box.lo), glm::max(c + half, box.hi)};
}

// A histogram of the largest extent of each box, binned by the top bits of its float
// representation (positive floats order like their bits: 8 bins per octave).
template <int D>
float SpatialHash<D>::auto_base(std::span<const Aabb<D>> boxes) {
    constexpr int kShift = 20;
    histogram_.assign(std::size_t{1} << (31 - kShift), 0);
    std::size_t positive = 0;
    for (const Aabb<D>& b : boxes) {
        float e = 0.0f;
        for (int k = 0; k < D; ++k) e = std::max(e, b.hi[k] - b.lo[k]);
        if (!(e > 0.0f) || !std::isfinite(e)) continue;  // points share any cell size
        ++histogram_[std::bit_cast<std::uint32_t>(e) >> kShift];
        ++positive;
    }
    if (positive == 0) return 1.0f;
    const auto want = static_cast<std::size_t>(std::ceil(percentile() * double(positive)));
    std::size_t seen = 0;
    std::uint32_t bin = 0;
    for (; bin < histogram_.size(); ++bin) {
        seen += histogram_[bin];
        if (seen >= std::max<std::size_t>(want, 1)) break;
    }
    // The bin's middle (a 1/16-octave error at most).
    const float extent = std::bit_cast<float>((bin << kShift) | (1u << (kShift - 1)));
    return kSizeFactor * extent;
}

template <int D>
void SpatialHash<D>::append_entries(BodyId id, std::vector<Entry>& to) const {
    const Range& r = ranges_[id];
    if (oversize(r)) return;
    const std::uint32_t is_static = is_static_[id] ? 1u << D : 0u;
    WatchRecorder<D>* watch = this->watch_;
    for_each_cell_in<D>(r.lo, r.hi, [&](const Cell& c) {
        std::uint32_t flags = is_static;
        for (int k = 0; k < D; ++k) flags |= std::uint32_t(c[k] == r.lo[k]) << k;
        to.push_back({bucket_of(c), c, id, flags});
        if (watch) watch->place(id, cell_box(c));
    });
}

template <int D>
void SpatialHash<D>::rebuild() {
    entries_.clear();
    for (BodyId i = 0; i < boxes_.size(); ++i) append_entries(i, entries_);
    std::sort(entries_.begin(), entries_.end());
}

// The moved bodies' new entries are sorted alone and merged with the kept ones: one
// streaming pass, O(E + k log k) for k moved bodies.
template <int D>
void SpatialHash<D>::patch() {
    patch_dirty(entries_, fresh_, dirty_, merged_,
                [&](BodyId i, std::vector<Entry>& to) { append_entries(i, to); });
}

template <int D>
void SpatialHash<D>::gather() {
    hot_.resize(entries_.size());
    occupied_ = 0;
    for (std::size_t e = 0; e < entries_.size(); ++e) {
        const Entry& en = entries_[e];
        std::uint32_t flags = en.flags;
        const bool first = e == 0 || !en.same_cell(entries_[e - 1]);
        flags |= std::uint32_t(first) << (D + 1);
        hot_[e] = {boxes_[en.id], en.id, flags};
        occupied_ += first;
    }
}

template <int D>
void SpatialHash<D>::build_and_search(std::span<const Aabb<D>> boxes,
                                      std::span<const std::uint8_t> is_static, PairList& out) {
    const std::size_t n = boxes.size();
    const bool changed = settings_changed(params_, built_with_, is_static, is_static_);
    bool full = !persistent() || n != fat_.size() || changed;
    WatchRecorder<D>* watch = this->watch_;
    if (watch) watch->phase("cell size");

    if (auto_cell() || base_ == 0.0f) {
        const float target = auto_base(boxes);
        if (base_ == 0.0f || target > base_ * kHysteresis || target * kHysteresis < base_) {
            base_ = target;
        }
    }
    float cell = base_ * cell_scale();
    if (!(cell > 0.0f) || !std::isfinite(cell)) cell = 1.0f;
    const int bits = std::bit_width(std::max<std::size_t>(n, 1)) + 1;
    full = full || cell != cell_ || bits != table_bits_;
    cell_ = cell;
    inv_cell_ = 1.0f / cell;
    table_bits_ = bits;

    boxes_.assign(boxes.begin(), boxes.end());
    is_static_.assign(is_static.begin(), is_static.end());
    fat_.resize(n);
    ranges_.resize(n);
    dirty_.assign(n, 0);
    reinserted_ = 0;
    refattened_ = 0;
    if (watch) watch->phase("bucket");
    for (BodyId i = 0; i < n; ++i) {
        if (!full && contains(fat_[i], boxes[i])) continue;
        ++refattened_;
        fat_[i] = fatten(boxes[i], is_static[i] != 0);
        const Range r = range_of(fat_[i]);
        if (full || r != ranges_[i]) {
            ranges_[i] = r;
            dirty_[i] = 1;
            ++reinserted_;
        }
    }
    if (full) {
        rebuild();
    } else if (reinserted_ > 0) {
        patch();
    }
    if (full || reinserted_ > 0) {
        oversize_.clear();
        big_.assign(n, 0);
        for (BodyId i = 0; i < n; ++i) {
            if (oversize(ranges_[i])) {
                oversize_.push_back(i);
                big_[i] = 1;
            }
        }
    }
    rebuilt_ = full;
    gather();
    if (watch) watch->phase("pairs in cells");
    find_pairs(out);
}

// Entries [b, e) start cells; a cell whose run began before b belongs to an earlier chunk,
// and a run that starts before e is finished past e.
template <int D>
template <bool Watched>
void SpatialHash<D>::sweep_cells(std::size_t b, std::size_t e, PairList& pairs,
                                 std::uint64_t& tests) const {
    WatchRecorder<D>* const watch = Watched ? this->watch_ : nullptr;
    constexpr std::uint32_t kLowest = (1u << D) - 1;
    constexpr std::uint32_t kStatic = 1u << D;
    constexpr std::uint32_t kFirst = 2u << D;
    const std::size_t size = hot_.size();
    std::size_t i = b;
    while (i < size && !(hot_[i].flags & kFirst)) ++i;
    while (i < e) {
        std::size_t j = i + 1;
        while (j < size && !(hot_[j].flags & kFirst)) ++j;
        if (watch) watch->visit(cell_box(entries_[i].cell));
        for (std::size_t a = i; a + 1 < j; ++a) {
            const Hot& ha = hot_[a];
            for (std::size_t c = a + 1; c < j; ++c) {
                const Hot& hc = hot_[c];
                if (ha.flags & hc.flags & kStatic) continue;
                // This cell is the pair's lowest common cell only if on every axis it is
                // the lowest cell of one of the two.
                if (((ha.flags | hc.flags) & kLowest) != kLowest) continue;
                ++tests;
                costs_.add_pair(ha.id, hc.id);
                const bool hit = ha.box.overlaps(hc.box);
                watch_test(watch, ha.id, hc.id, hit);
                if (hit) pairs.push_back(make_pair(ha.id, hc.id));
            }
        }
        i = j;
    }
}

template <int D>
template <bool Watched>
void SpatialHash<D>::oversize_pairs(PairList& out) {
    oversize_tests_ = 0;
    if (oversize_.empty()) return;
    WatchRecorder<D>* const watch = Watched ? this->watch_ : nullptr;
    if (watch) watch->phase("oversize");
    const std::size_t n = boxes_.size();
    widest_x_ = 0.0f;
    for (BodyId i = 0; i < n; ++i) {
        if (!big_[i]) widest_x_ = std::max(widest_x_, boxes_[i].hi[0] - boxes_[i].lo[0]);
    }
    if (by_x_.size() != n) {
        by_x_.resize(n);
        for (BodyId i = 0; i < n; ++i) by_x_[i].second = i;
    }
    for (auto& [x, id] : by_x_) x = boxes_[id].lo[0];
    const auto less = [](const auto& a, const auto& b) { return a.first < b.first; };
    if (!insertion_sort_within(by_x_, 4 * n, less)) std::sort(by_x_.begin(), by_x_.end(), less);
    // A body with entries that overlaps `o` starts on x within [o.lo - widest, o.hi].
    for (BodyId o : oversize_) {
        const Aabb<D> box = boxes_[o];
        auto it = std::partition_point(by_x_.begin(), by_x_.end(), [&](const auto& e) {
            return e.first < box.lo[0] - widest_x_;
        });
        for (; it != by_x_.end() && it->first <= box.hi[0]; ++it) {
            const BodyId j = it->second;
            if (big_[j] || (is_static_[o] && is_static_[j])) continue;
            ++oversize_tests_;
            costs_.add_pair(o, j);
            const bool hit = box.overlaps(boxes_[j]);
            watch_test(watch, o, j, hit);
            if (hit) out.push_back(make_pair(o, j));
        }
    }
    for (std::size_t a = 0; a < oversize_.size(); ++a) {
        for (std::size_t b = a + 1; b < oversize_.size(); ++b) {
            const BodyId i = oversize_[a], j = oversize_[b];
            if (is_static_[i] && is_static_[j]) continue;
            ++oversize_tests_;
            costs_.add_pair(i, j);
            const bool hit = boxes_[i].overlaps(boxes_[j]);
            watch_test(watch, i, j, hit);
            if (hit) out.push_back(make_pair(i, j));
        }
    }
}

template <int D>
void SpatialHash<D>::find_pairs(PairList& out) {
    // A hook in these loops, even never called, cost the unwatched ones (2D powerlaw 100k:
    // 13% more instructions in the pair pass), so each has a watched instantiation.
    if (this->watch_) {
        const auto rows = [&](std::size_t b, std::size_t e, PairList& p, std::uint64_t& t) {
            sweep_cells<true>(b, e, p, t);
        };
        chunks_.run(parallel(), entries_.size(), 8192, rows, out);
        oversize_pairs<true>(out);
        return;
    }
    const auto rows = [&](std::size_t b, std::size_t e, PairList& p, std::uint64_t& t) {
        sweep_cells<false>(b, e, p, t);
    };
    chunks_.run(parallel(), entries_.size(), 8192, rows, out);
    oversize_pairs<false>(out);
}

template <int D>
std::pair<std::size_t, std::size_t> SpatialHash<D>::find_cell(const Cell& c) const {
    const std::uint32_t bucket = bucket_of(c);
    const Entry key{bucket, c, 0, 0};
    const auto first = std::lower_bound(entries_.begin(), entries_.end(), key);
    auto last = first;
    while (last != entries_.end() && last->same_cell(key)) ++last;
    return {std::size_t(first - entries_.begin()), std::size_t(last - entries_.begin())};
}

// A body is taken from one cell only: the lowest cell it shares with the region.
template <int D>
void SpatialHash<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                            QueryTrace<D>* trace) const {
    out.clear();
    if (boxes_.empty()) return;
    const Range q = range_of(region);
    if (trace && cells_of(q) <= kMaxTracedCells) {
        // The region's cells, occupied or empty (whether looked up or met in the walk below).
        for_each_cell_in<D>(q.lo, q.hi, [&](const Cell& c) {
            const auto [first, end] = find_cell(c);
            trace->add(cell_box(c), first < end ? TraceKind::kTaken : TraceKind::kPruned);
        });
    }
    const auto take = [&](const Entry& e) {
        const Range& r = ranges_[e.id];
        for (int k = 0; k < D; ++k) {
            if (e.cell[k] != std::max(q.lo[k], r.lo[k])) return;
        }
        if (boxes_[e.id].overlaps(region)) out.push_back(e.id);
    };
    if (cells_of(q) <= entries_.size() / 8) {
        for_each_cell_in<D>(q.lo, q.hi, [&](const Cell& c) {
            const auto [first, end] = find_cell(c);
            for (std::size_t i = first; i < end; ++i) take(entries_[i]);
        });
    } else {
        // The region covers more cells than there are entries: walk the entries instead.
        for (const Entry& e : entries_) {
            bool inside = true;
            for (int k = 0; k < D; ++k) inside = inside && e.cell[k] >= q.lo[k] && e.cell[k] <= q.hi[k];
            if (inside) take(e);
        }
    }
    for (BodyId o : oversize_) {
        if (boxes_[o].overlaps(region)) out.push_back(o);
    }
}

template <int D>
Aabb<D> SpatialHash<D>::cell_box(const Cell& c) const {
    Aabb<D> box;
    for (int k = 0; k < D; ++k) {
        box.lo[k] = float(double(c[k]) * cell_);
        box.hi[k] = float(double(c[k] + 1.0) * cell_);
    }
    return box;
}

template <int D>
BroadPhaseStats SpatialHash<D>::stats() const {
    const std::size_t entry_bytes =
        (entries_.capacity() + fresh_.capacity() + merged_.capacity()) * sizeof(Entry) +
        hot_.capacity() * sizeof(Hot);
    const std::size_t body_bytes = (boxes_.capacity() + fat_.capacity()) * sizeof(Aabb<D>) +
                                   ranges_.capacity() * sizeof(Range) + is_static_.capacity() +
                                   dirty_.capacity() + oversize_.capacity() * sizeof(BodyId) +
                                   big_.capacity() + by_x_.capacity() * sizeof(by_x_[0]) +
                                   histogram_.capacity() * sizeof(std::uint32_t);
    return {.candidate_tests = chunks_.tests() + oversize_tests_,
            .structure_bytes = entry_bytes + body_bytes + chunks_.bytes(),
            .nodes = occupied_,
            .depth = 0,
            .reinserted = reinserted_};
}

// Per body: its fat box holds its box, its cells are its fat box's, and it has exactly
// those entries or is in the oversize list. The table: sorted, no entry twice, each in the
// bucket of its cell with its body's lowest-cell and static flags; the hot copies match.
template <int D>
void SpatialHash<D>::validate() const {
    const InvariantFail fail("spatial-hash");
    const auto cell_str = [&](const Cell& c) {
        std::string s = "(";
        for (int k = 0; k < D; ++k) s += (k ? ", " : "") + str(c[k]);
        return s + ")";
    };
    const std::size_t n = boxes_.size();
    if (is_static_.size() != n || fat_.size() != n || ranges_.size() != n || big_.size() != n)
        fail(str(n) + " boxes but " + str(is_static_.size()) + " static flags, " +
             str(fat_.size()) + " fat boxes, " + str(ranges_.size()) + " ranges, " +
             str(big_.size()) + " oversize flags");
    if (!(cell_ > 0.0f) || inv_cell_ != 1.0f / cell_)
        fail("cell " + str(cell_) + " with inverse " + str(inv_cell_));
    if (table_bits_ != static_cast<int>(std::bit_width(std::max<std::size_t>(n, 1))) + 1)
        fail(str(1ull << table_bits_) + " buckets for " + str(n) + " bodies");
    // Bodies: the entries each must have, counted down below.
    std::vector<std::size_t> cells(n, 0);
    std::size_t big = 0;
    for (BodyId i = 0; i < n; ++i) {
        const auto body = [&] { return "body " + str(i); };
        if (!contains(fat_[i], boxes_[i])) fail(body() + "'s box has left its fat box");
        if (ranges_[i] != range_of(fat_[i]))
            fail(body() + " is bucketed over cells " + cell_str(ranges_[i].lo) + ".." +
                 cell_str(ranges_[i].hi) + " but its fat box gives " +
                 cell_str(range_of(fat_[i]).lo) + ".." + cell_str(range_of(fat_[i]).hi));
        if (big_[i] != oversize(ranges_[i]))
            fail(body() + " is " + (big_[i] ? "" : "not ") + "marked oversize over " +
                 str(cells_of(ranges_[i])) + " cells");
        if (big_[i]) {
            if (big >= oversize_.size() || oversize_[big] != i)
                fail(body() + " is oversize but not next in the oversize list");
            ++big;
        } else {
            cells[i] = cells_of(ranges_[i]);
        }
    }
    if (big != oversize_.size())
        fail(str(oversize_.size()) + " bodies in the oversize list, " + str(big) + " marked");
    if (hot_.size() != entries_.size())
        fail(str(hot_.size()) + " hot entries for " + str(entries_.size()) + " entries");
    std::size_t occupied = 0;
    for (std::size_t e = 0; e < entries_.size(); ++e) {
        const Entry& en = entries_[e];
        const auto entry = [&] {
            return "entry " + str(e) + " (body " + str(en.id) + ", cell " + cell_str(en.cell) + ")";
        };
        // Strictly: (bucket, cell, body) is unique, so no entry is there twice.
        if (e > 0 && !(entries_[e - 1] < en)) fail(entry() + " is not after entry " + str(e - 1));
        if (en.bucket != bucket_of(en.cell))
            fail(entry() + " is in bucket " + str(en.bucket) + " but its cell hashes to " +
                 str(bucket_of(en.cell)));
        if (en.id >= n || big_[en.id] || cells[en.id] == 0)
            fail(entry() + " is of no body, an oversize one or one past its cells");
        --cells[en.id];
        const Range& r = ranges_[en.id];
        std::uint32_t flags = is_static_[en.id] ? 1u << D : 0u;
        for (int k = 0; k < D; ++k) {
            if (en.cell[k] < r.lo[k] || en.cell[k] > r.hi[k])
                fail(entry() + " is outside its body's cells " + cell_str(r.lo) + ".." +
                     cell_str(r.hi));
            flags |= std::uint32_t(en.cell[k] == r.lo[k]) << k;
        }
        if (en.flags != flags)
            fail(entry() + " has flags " + str(en.flags) + " but its body gives " + str(flags));
        const bool first = e == 0 || !en.same_cell(entries_[e - 1]);
        occupied += first;
        const Hot& h = hot_[e];
        if (h.id != en.id || h.flags != (flags | std::uint32_t(first) << (D + 1)) ||
            !same_box(h.box, boxes_[en.id]))
            fail("hot entry " + str(e) + " is not a copy of " + entry());
    }
    for (BodyId i = 0; i < n; ++i) {
        if (cells[i] != 0) fail("body " + str(i) + " lacks " + str(cells[i]) + " of its cells");
    }
    if (occupied != occupied_)
        fail(str(occupied) + " occupied cells but stats() says " + str(occupied_));
    // The oversize bodies' partners, found in the list by lower x (left as it was when
    // there are none).
    if (oversize_.empty()) return;
    if (by_x_.size() != n) fail(str(by_x_.size()) + " bodies by x for " + str(n) + " bodies");
    std::vector<std::uint8_t> seen(n, 0);
    float widest = 0.0f;
    for (BodyId i = 0; i < n; ++i) {
        if (!big_[i]) widest = std::max(widest, boxes_[i].hi[0] - boxes_[i].lo[0]);
    }
    if (widest != widest_x_)
        fail("the widest body with entries spans " + str(widest) + " in x, not " + str(widest_x_));
    for (std::size_t k = 0; k < n; ++k) {
        const auto [x, id] = by_x_[k];
        if (id >= n || seen[id]) fail("by-x entry " + str(k) + " (body " + str(id) + ") twice");
        seen[id] = 1;
        if (x != boxes_[id].lo[0] || (k > 0 && x < by_x_[k - 1].first))
            fail("by-x entry " + str(k) + " (body " + str(id) + ") has x " + str(x) +
                 " out of order or not its box's " + str(boxes_[id].lo[0]));
    }
}

template class SpatialHash<2>;
template class SpatialHash<3>;

}  // namespace collide
