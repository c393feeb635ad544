#include "broadphase/radix_chunks.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numeric>

#include <tbb/parallel_for.h>

#include "broadphase/common/radix_sort.hpp"

namespace collide {

namespace {

using radix::float_key;
using radix::key_float;

}  // namespace

// Pieces: a body whose box is larger than about a chunk (on the scale of a uniform spread
// of its centres) becomes a grid of equal pieces, more along its longer dimensions.
template <int D>
void RadixChunks<D>::make_pieces(std::span<const std::uint8_t> is_static) {
    const std::size_t n = boxes_.size();
    pieces_.clear();
    piece_first_.resize(n + 1);
    world_ = Aabb<D>::empty();
    Aabb<D> centres = Aabb<D>::empty();
    for (const Aabb<D>& b : boxes_) {
        world_.grow(b);
        centres.grow({b.center(), b.center()});
    }
    Vec<D> limit(0.0f);  // pieces no longer than this per axis; 0: no splitting
    if (splitting() && n > 0) {
        const double side =
            split_factor() * std::pow(double(chunk_size()) / double(n), 1.0 / D);
        if (side < 1.0) limit = (centres.hi - centres.lo) * float(side);
    }
    for (BodyId i = 0; i < n; ++i) {
        const Aabb<D>& b = boxes_[i];
        piece_first_[i] = static_cast<std::uint32_t>(pieces_.size());
        const std::uint8_t base = is_static[i] ? kStatic : 0;
        std::array<std::uint32_t, D> m;
        std::uint32_t total = 1;
        for (int k = 0; k < D; ++k) {
            const double ratio = limit[k] > 0.0f ? double(b.hi[k] - b.lo[k]) / limit[k] : 0.0;
            m[k] = ratio > 1.0 ? std::uint32_t(std::min(std::ceil(ratio), double(kMaxPieces))) : 1;
            total *= m[k];
        }
        while (total > kMaxPieces) {  // halve the most divided axis until within the cap
            const int k = int(std::max_element(m.begin(), m.end()) - m.begin());
            total /= m[k];
            m[k] = (m[k] + 1) / 2;
            total *= m[k];
        }
        if (total == 1) {
            pieces_.push_back({b, i, std::uint8_t(base | kLastAll)});
            continue;
        }
        // Cut positions are monotone in the index, the first and last exactly lo and hi,
        // so the pieces tile the box and each point of it has one owning piece.
        const auto cut = [&](int k, std::uint32_t j) {
            if (j == 0) return b.lo[k];
            if (j == m[k]) return b.hi[k];
            return std::min(b.hi[k], b.lo[k] + (b.hi[k] - b.lo[k]) * (float(j) / float(m[k])));
        };
        for (std::uint32_t g = 0; g < total; ++g) {
            Entity e{b, i, std::uint8_t(base | kSplit)};
            std::uint32_t rest = g;
            for (int k = 0; k < D; ++k) {
                const std::uint32_t j = rest % m[k];
                rest /= m[k];
                e.box.lo[k] = cut(k, j);
                e.box.hi[k] = cut(k, j + 1);
                if (j + 1 == m[k]) e.flags |= std::uint8_t(1u << k);
            }
            pieces_.push_back(e);
        }
    }
    piece_first_[n] = static_cast<std::uint32_t>(pieces_.size());
}

template <int D>
void RadixChunks<D>::sort_cell_range(const Cell& c, int axis) {
    const std::size_t b = c.first, n = c.count;
    for (std::size_t i = b; i < b + n; ++i) keys_[i] = float_key(pieces_[list_[i]].box.lo[axis]);
    radix::sort_pairs_auto(std::span(keys_).subspan(b, n), std::span(list_).subspan(b, n),
                           std::span(keys_tmp_).subspan(b, n), std::span(vals_tmp_).subspan(b, n));
}

// Cuts every cell of `level` (its list sorted by lo on axis `level`) into children at rank
// quantiles, and scatters each entry into every child its box overlaps. The scatter keeps
// the list order, so on the last axis the chunks come out sorted for the sweep.
template <int D>
void RadixChunks<D>::cut_level(int level) {
    std::vector<Cell>& parents = cells_[level];
    std::vector<Cell>& children = cells_[level + 1];
    children.clear();
    const int remaining = D - level;
    const double k = double(chunk_size());
    WatchRecorder<D>* const watch = this->watch_;
    if (watch) watch->phase("cut");
    span_lo_.resize(list_.size());
    span_hi_.resize(list_.size());
    for (Cell& p : parents) {
        if (watch) watch->visit(cell_box(p));
        const std::size_t m = p.count;
        std::size_t c = 1;
        if (double(m) > k) {
            c = std::size_t(std::ceil(std::pow(double(m) / k, 1.0 / remaining) - 1e-9));
            c = std::clamp<std::size_t>(c, 1, m);
        }
        // Boundary j is the lo of the entry of rank j*m/c; entries spilling in from the
        // parent's lower neighbour sort first and are clamped into the first child. A
        // boundary closer than `gap` (the entries' mean extent times a factor) to the
        // previous one is dropped: slabs thinner than the boxes would register each box in
        // many of them (bodies lined up on a centre line).
        bounds_.clear();
        bounds_.push_back(p.lo[level]);
        if (c > 1) {
            double extent = 0;
            for (std::size_t i = p.first; i < p.first + m; ++i) {
                const Aabb<D>& box = pieces_[list_[i]].box;
                extent += double(box.hi[level]) - double(box.lo[level]);
            }
            const double gap = min_gap() * extent / double(m);
            double last = pieces_[list_[p.first]].box.lo[level];
            if (p.lo[level] != kKeyMin) last = std::max(last, double(key_float(p.lo[level])));
            for (std::size_t j = 1; j < c; ++j) {
                const float lo = pieces_[list_[p.first + j * m / c]].box.lo[level];
                const std::uint32_t key = float_key(lo);
                if (key <= bounds_.back() || double(lo) - last < gap) continue;
                bounds_.push_back(key);
                last = lo;
            }
            c = bounds_.size();
        }
        bounds_.push_back(p.hi[level]);
        p.child_first = static_cast<std::uint32_t>(children.size());
        p.child_count = static_cast<std::uint32_t>(c);
        for (std::size_t j = 0; j < c; ++j) {
            Cell child = p;
            child.lo[level] = bounds_[j];
            child.hi[level] = bounds_[j + 1];
            child.count = 0;
            child.child_first = child.child_count = 0;
            children.push_back(child);
        }
        std::size_t home = 0;
        for (std::size_t i = p.first; i < p.first + m; ++i) {
            const Aabb<D>& box = pieces_[list_[i]].box;
            const std::uint32_t klo = float_key(box.lo[level]);
            const std::uint32_t khi = float_key(box.hi[level]);
            while (home + 1 < c && bounds_[home + 1] <= klo) ++home;
            std::size_t last = home;
            while (last + 1 < c && bounds_[last + 1] <= khi) ++last;
            span_lo_[i] = static_cast<std::uint32_t>(p.child_first + home);
            span_hi_[i] = static_cast<std::uint32_t>(p.child_first + last);
            for (std::size_t j = home; j <= last; ++j) {
                if (bounds_[j] < bounds_[j + 1]) ++children[p.child_first + j].count;
            }
        }
    }
    cursor_.resize(children.size());
    std::uint32_t total = 0;
    for (std::size_t j = 0; j < children.size(); ++j) {
        children[j].first = total;
        cursor_[j] = total;
        total += children[j].count;
    }
    next_.resize(total);
    if (watch) {
        scatter_watched(level, *watch);
    } else {
        for (std::size_t i = 0; i < list_.size(); ++i) {
            for (std::uint32_t j = span_lo_[i]; j <= span_hi_[i]; ++j) {
                const Cell& ch = children[j];
                if (ch.lo[level] < ch.hi[level]) next_[cursor_[j]++] = list_[i];
            }
        }
    }
    std::swap(list_, next_);
    if (level + 1 == D) return;
    keys_.resize(list_.size());
    keys_tmp_.resize(list_.size());
    vals_tmp_.resize(list_.size());
    const auto sort_children = [&](std::size_t j) { sort_cell_range(children[j], level + 1); };
    if (watch) watch->phase("sort");
    if (parallel() && list_.size() > 20000) {
        tbb::parallel_for(std::size_t{0}, children.size(), sort_children);
    } else {
        for (std::size_t j = 0; j < children.size(); ++j) sort_children(j);
    }
}

// A chunk comes out sorted on the last axis. Where its entities are crowded on that axis
// (a cut dropped for being too thin: bodies on a line across the slab), it is re-sorted
// and swept on the axis where they spread most relative to their size.
template <int D>
void RadixChunks<D>::choose_sweep_axes() {
    keys_.resize(list_.size());
    keys_tmp_.resize(list_.size());
    vals_tmp_.resize(list_.size());
    const auto choose = [&](std::size_t ci) {
        Cell& chunk = cells_[D][ci];
        chunk.axis = D - 1;
        if (chunk.count < 2 * chunk_size()) return;
        Vec<D> lo(std::numeric_limits<float>::max()), hi(-std::numeric_limits<float>::max());
        Vec<D> extent(0.0f);
        for (std::size_t i = chunk.first; i < chunk.first + chunk.count; ++i) {
            const Aabb<D>& box = pieces_[list_[i]].box;
            lo = glm::min(lo, box.lo);
            hi = glm::max(hi, box.lo);
            extent += box.hi - box.lo;
        }
        // Expected tests on axis k: the entities sharing a bin of a coarse histogram of lo
        // (sum of squared counts: clumping, which the spread alone misses), times the
        // share of a bin that a box's extent covers.
        constexpr int kBins = 64;
        std::array<double, D> crowd;
        for (int k = 0; k < D; ++k) {
            const double width = (double(hi[k]) - double(lo[k])) / kBins;
            if (!(width > 0)) {
                crowd[k] = double(chunk.count) * chunk.count;
                continue;
            }
            std::array<std::uint32_t, kBins> bins{};
            for (std::size_t i = chunk.first; i < chunk.first + chunk.count; ++i) {
                const double at = (double(pieces_[list_[i]].box.lo[k]) - lo[k]) / width;
                ++bins[std::min(kBins - 1, int(at))];
            }
            double clump = 0;
            for (std::uint32_t c : bins) clump += double(c) * c;
            crowd[k] = clump * std::min(1.0, double(extent[k]) / chunk.count / width);
        }
        const int best = int(std::min_element(crowd.begin(), crowd.end()) - crowd.begin());
        if (crowd[best] * 2 >= crowd[D - 1]) return;
        chunk.axis = static_cast<std::uint8_t>(best);
        sort_cell_range(chunk, best);
    };
    if (parallel() && list_.size() > 20000) {
        tbb::parallel_for(std::size_t{0}, cells_[D].size(), choose);
    } else {
        for (std::size_t ci = 0; ci < cells_[D].size(); ++ci) choose(ci);
    }
}

template <int D>
void RadixChunks<D>::build_and_search(std::span<const Aabb<D>> boxes,
                                      std::span<const std::uint8_t> is_static, PairList& out) {
    boxes_.assign(boxes.begin(), boxes.end());
    WatchRecorder<D>* const watch = this->watch_;
    if (watch) watch->phase("split big boxes");
    make_pieces(is_static);
    const std::size_t n = pieces_.size();
    for (std::vector<Cell>& level : cells_) level.clear();
    Cell root;
    root.lo.fill(kKeyMin);
    root.hi.fill(kKeyMax);
    root.count = static_cast<std::uint32_t>(n);
    cells_[0].push_back(root);
    list_.resize(n);
    std::iota(list_.begin(), list_.end(), 0u);
    keys_.resize(n);
    keys_tmp_.resize(n);
    vals_tmp_.resize(n);
    if (watch) watch->phase("sort");
    sort_cell_range(root, 0);
    for (int level = 0; level < D; ++level) cut_level(level);
    if (watch) watch->phase("choose sweep axes");
    choose_sweep_axes();
    entities_.resize(list_.size());
    for (std::size_t i = 0; i < list_.size(); ++i) entities_[i] = pieces_[list_[i]];
    const auto rows = [&](std::size_t c0, std::size_t c1, PairList& p, std::uint64_t& t) {
        sweep_chunks(c0, c1, p, t);
    };
    if (watch) watch->phase("sweep");
    sweep_.run(parallel(), cells_[D].size(), 64, rows, out);
}

template <int D>
void RadixChunks<D>::scatter_watched(int level, WatchRecorder<D>& watch) {
    const std::vector<Cell>& children = cells_[level + 1];
    for (std::size_t i = 0; i < list_.size(); ++i) {
        for (std::uint32_t j = span_lo_[i]; j <= span_hi_[i]; ++j) {
            const Cell& ch = children[j];
            if (ch.lo[level] < ch.hi[level]) {
                next_[cursor_[j]++] = list_[i];
                watch.place(pieces_[list_[i]].body, cell_box(ch));
            }
        }
    }
}

template <int D>
bool RadixChunks<D>::owns_point(const Entity& e, const Vec<D>& p) {
    for (int k = 0; k < D; ++k) {
        if (p[k] < e.box.lo[k] || p[k] > e.box.hi[k]) return false;
        if (p[k] == e.box.hi[k] && !(e.flags & (1u << k))) return false;
    }
    return true;
}

// The pair belongs to the chunk (and pieces) holding p, the lower corner of the overlap
// of the two real boxes.
template <int D>
bool RadixChunks<D>::owns(const Cell& chunk, const Entity& a, const Entity& b) const {
    const Vec<D>& ra = (a.flags & kSplit) ? boxes_[a.body].lo : a.box.lo;
    const Vec<D>& rb = (b.flags & kSplit) ? boxes_[b.body].lo : b.box.lo;
    const Vec<D> p = glm::max(ra, rb);
    for (int k = 0; k < D; ++k) {
        const std::uint32_t key = float_key(p[k]);
        if (key < chunk.lo[k] || key >= chunk.hi[k]) return false;
    }
    if ((a.flags & kSplit) && !owns_point(a, p)) return false;
    if ((b.flags & kSplit) && !owns_point(b, p)) return false;
    return true;
}

template <int D>
void RadixChunks<D>::sweep_chunks(std::size_t c0, std::size_t c1, PairList& out,
                                  std::uint64_t& tests) const {
    WatchRecorder<D>* const watch = this->watch_;
    for (std::size_t ci = c0; ci < c1; ++ci) {
        const Cell& chunk = cells_[D][ci];
        // Watch mode's copies record; in the timed ones the recorder is a null constant.
        if (watch) {
            watch->visit(cell_box(chunk));
            if (chunk.axis == D - 1) {
                sweep_chunk<D - 1, true>(chunk, out, tests, watch);
            } else if (chunk.axis == 0) {
                sweep_chunk<0, true>(chunk, out, tests, watch);
            } else if constexpr (D == 3) {
                sweep_chunk<1, true>(chunk, out, tests, watch);
            }
        } else if (chunk.axis == D - 1) {
            sweep_chunk<D - 1, false>(chunk, out, tests, nullptr);
        } else if (chunk.axis == 0) {
            sweep_chunk<0, false>(chunk, out, tests, nullptr);
        } else if constexpr (D == 3) {
            sweep_chunk<1, false>(chunk, out, tests, nullptr);
        }
    }
}

template <int D>
template <int kAxis, bool kWatch>
void RadixChunks<D>::sweep_chunk(const Cell& chunk, PairList& out, std::uint64_t& tests,
                                 WatchRecorder<D>* watch) const {
    const Entity* e = entities_.data() + chunk.first;
    const std::size_t n = chunk.count;
    for (std::size_t i = 0; i < n; ++i) {
        const Entity& a = e[i];
        const float end = a.box.hi[kAxis];
        if constexpr (kWatch) watch->cursor(a.body, kAxis, a.box.lo[kAxis]);
        for (std::size_t j = i + 1; j < n && e[j].box.lo[kAxis] <= end; ++j) {
            const Entity& b = e[j];
            if (a.body == b.body || (a.flags & b.flags & kStatic)) continue;
            ++tests;
            costs_.add_pair(a.body, b.body);
            bool overlap = true;
            for (int k = 0; k < D; ++k) {
                if (k == kAxis) continue;
                overlap = overlap && a.box.lo[k] <= b.box.hi[k] && b.box.lo[k] <= a.box.hi[k];
            }
            if constexpr (kWatch) watch->test(a.body, b.body, overlap);
            if (overlap && owns(chunk, a, b)) {
                out.push_back(make_pair(a.body, b.body));
                if constexpr (kWatch) watch->emit(a.body, b.body);
            }
        }
    }
}

// A body is reported from the one chunk and piece that own q = max(its lo, region.lo), a
// point of its overlap with the region, so no duplicates need removing.
template <int D>
void RadixChunks<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                            QueryTrace<D>* /*trace*/) const {
    out.clear();
    for_each_chunk(region, [&](std::uint32_t ci) {
        const Cell& chunk = cells_[D][ci];
        for (std::uint32_t i = chunk.first; i < chunk.first + chunk.count; ++i) {
            const Entity& e = entities_[i];
            if (!e.box.overlaps(region)) continue;
            const Vec<D> q = glm::max(boxes_[e.body].lo, region.lo);
            bool inside = true;
            for (int k = 0; k < D; ++k) {
                const std::uint32_t key = float_key(q[k]);
                inside = inside && key >= chunk.lo[k] && key < chunk.hi[k];
            }
            if (inside && (!(e.flags & kSplit) || owns_point(e, q))) out.push_back(e.body);
        }
    });
}

template <int D>
BroadPhaseStats RadixChunks<D>::stats() const {
    std::size_t bytes = boxes_.capacity() * sizeof(Aabb<D>) +
                        (pieces_.capacity() + entities_.capacity()) * sizeof(Entity) +
                        sweep_.bytes();
    for (const std::vector<Cell>& level : cells_) bytes += level.capacity() * sizeof(Cell);
    for (const std::vector<std::uint32_t>* v :
         {&piece_first_, &list_, &next_, &keys_, &keys_tmp_, &vals_tmp_, &span_lo_, &span_hi_,
          &bounds_, &cursor_}) {
        bytes += v->capacity() * sizeof(std::uint32_t);
    }
    return {.candidate_tests = sweep_.tests(),
            .structure_bytes = bytes,
            .nodes = cells_[D].size(),
            .depth = 0};
}

template class RadixChunks<2>;
template class RadixChunks<3>;

}  // namespace collide
