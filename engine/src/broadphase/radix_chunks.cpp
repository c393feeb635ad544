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

constexpr std::uint32_t kMaxPieces = 64;  // per body: bounds the splitting blow-up

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
    span_lo_.resize(list_.size());
    span_hi_.resize(list_.size());
    for (Cell& p : parents) {
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
    for (std::size_t i = 0; i < list_.size(); ++i) {
        for (std::uint32_t j = span_lo_[i]; j <= span_hi_[i]; ++j) {
            const Cell& ch = children[j];
            if (ch.lo[level] < ch.hi[level]) next_[cursor_[j]++] = list_[i];
        }
    }
    std::swap(list_, next_);
    if (level + 1 == D) return;
    keys_.resize(list_.size());
    keys_tmp_.resize(list_.size());
    vals_tmp_.resize(list_.size());
    const auto sort_children = [&](std::size_t j) { sort_cell_range(children[j], level + 1); };
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
void RadixChunks<D>::update_whole(std::span<const Aabb<D>> boxes,
                                  std::span<const std::uint8_t> is_static, PairList& out) {
    out.clear();
    assert(is_static.size() == boxes.size());
    boxes_.assign(boxes.begin(), boxes.end());
    costs_.reset(boxes.size());
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
    sort_cell_range(root, 0);
    for (int level = 0; level < D; ++level) cut_level(level);
    choose_sweep_axes();
    entities_.resize(list_.size());
    for (std::size_t i = 0; i < list_.size(); ++i) entities_[i] = pieces_[list_[i]];
    const auto rows = [&](std::size_t c0, std::size_t c1, PairList& p, std::uint64_t& t) {
        sweep_chunks(c0, c1, p, t);
    };
    sweep_.run(parallel(), cells_[D].size(), 64, rows, out);
    this->validate_in_debug();
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
    for (std::size_t ci = c0; ci < c1; ++ci) {
        const Cell& chunk = cells_[D][ci];
        if (chunk.axis == D - 1) {
            sweep_chunk<D - 1>(chunk, out, tests);
        } else if (chunk.axis == 0) {
            sweep_chunk<0>(chunk, out, tests);
        } else if constexpr (D == 3) {
            sweep_chunk<1>(chunk, out, tests);
        }
    }
}

template <int D>
template <int kAxis>
void RadixChunks<D>::sweep_chunk(const Cell& chunk, PairList& out, std::uint64_t& tests) const {
    const Entity* e = entities_.data() + chunk.first;
    const std::size_t n = chunk.count;
    for (std::size_t i = 0; i < n; ++i) {
        const Entity& a = e[i];
        const float end = a.box.hi[kAxis];
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
            if (overlap && owns(chunk, a, b)) out.push_back(make_pair(a.body, b.body));
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

// The pieces: each body's tile its box as a grid (faces shared, the first at its lower
// corner, the last ones flagged and at its upper faces). The cut: every cell's children
// tile it on the level's axis, their entry ranges consecutive. The chunks: copies of the
// pieces, sorted on their sweep axis, and each cell at every level holds exactly the
// pieces that cut_level() registers there (those its region meets), each once.
template <int D>
void RadixChunks<D>::validate() const {
    const InvariantFail fail("radix-chunks");
    const std::size_t n = boxes_.size();
    if (cells_[0].empty()) {  // no update yet
        if (n != 0 || !entities_.empty()) fail("entities but no cells");
        return;
    }
    Aabb<D> world = Aabb<D>::empty();
    for (const Aabb<D>& b : boxes_) world.grow(b);
    if (!same_box(world, world_)) fail("the bounds of the boxes are stale");
    if (piece_first_.size() != n + 1 || piece_first_[0] != 0 || piece_first_[n] != pieces_.size())
        fail(str(piece_first_.size()) + " piece offsets for " + str(n) + " bodies and " +
             str(pieces_.size()) + " pieces");
    for (BodyId i = 0; i < n; ++i) {
        const std::uint32_t first = piece_first_[i], total = piece_first_[i + 1] - first;
        const Aabb<D>& b = boxes_[i];
        const auto body = [&] { return "body " + str(i); };
        if (piece_first_[i + 1] <= first || piece_first_[i + 1] > pieces_.size() ||
            total > kMaxPieces)
            fail(body() + " has pieces " + str(first) + " to " + str(piece_first_[i + 1]));
        const std::uint8_t fixed = pieces_[first].flags & kStatic;
        if (total == 1) {
            const Entity& p = pieces_[first];
            if (p.body != i || p.flags != (fixed | kLastAll) || !same_box(p.box, b))
                fail(body() + "'s one piece " + str(first) + " is not its whole box");
            continue;
        }
        // The grid's size along each axis: the first piece that is the last along axis k
        // has index (m[k] - 1) * stride.
        std::array<std::uint32_t, D> m, stride;
        std::uint32_t size = 1;
        for (int k = 0; k < D; ++k) {
            std::uint32_t g = 0;
            while (g < total && !(pieces_[first + g].flags & (1u << k))) ++g;
            if (g == total || g % size != 0)
                fail(body() + "'s pieces are not a grid on axis " + str(k));
            stride[k] = size;
            m[k] = g / size + 1;
            size *= m[k];
        }
        if (size != total)
            fail(body() + "'s " + str(total) + " pieces are not a grid of " + str(size));
        for (std::uint32_t g = 0; g < total; ++g) {
            const Entity& p = pieces_[first + g];
            const auto piece = [&] { return body() + "'s piece " + str(g); };
            if (p.body != i || (p.flags & ~kLastAll) != (fixed | kSplit))
                fail(piece() + " has body " + str(p.body) + " and flags " + str(int(p.flags)));
            for (int k = 0; k < D; ++k) {
                const std::uint32_t j = g / stride[k] % m[k];
                const bool last = j + 1 == m[k];
                const float lo = j == 0 ? b.lo[k] : pieces_[first + g - stride[k]].box.hi[k];
                if (p.box.lo[k] != lo || !(p.box.lo[k] <= p.box.hi[k]) ||
                    (last && p.box.hi[k] != b.hi[k]) || bool(p.flags & (1u << k)) != last)
                    fail(piece() + " does not tile the box on axis " + str(k) + ": [" +
                         str(p.box.lo[k]) + ", " + str(p.box.hi[k]) + "] after " + str(lo));
            }
        }
    }
    // The cut: the root, then every cell's children tiling it on the axis of its level.
    const Cell& root = cells_[0][0];
    bool whole = cells_[0].size() == 1 && root.first == 0 && root.count == pieces_.size();
    for (int k = 0; k < D; ++k) whole = whole && root.lo[k] == kKeyMin && root.hi[k] == kKeyMax;
    if (!whole)
        fail("the root is not one cell over all space and all " + str(pieces_.size()) + " pieces");
    for (int level = 0; level < D; ++level) {
        const std::vector<Cell>& children = cells_[level + 1];
        std::uint32_t next = 0;
        for (std::size_t ci = 0; ci < cells_[level].size(); ++ci) {
            const Cell& p = cells_[level][ci];
            const auto cell = [&] { return "level " + str(level) + " cell " + str(ci); };
            if (p.child_first != next || p.child_count == 0 ||
                std::size_t{p.child_first} + p.child_count > children.size())
                fail(cell() + " has children " + str(p.child_first) + " + " + str(p.child_count) +
                     ", not from " + str(next) + " of " + str(children.size()));
            next += p.child_count;
            std::uint32_t at = p.lo[level];
            for (std::uint32_t j = p.child_first; j < next; ++j) {
                const Cell& c = children[j];
                for (int k = 0; k < D; ++k) {
                    if (k != level && (c.lo[k] != p.lo[k] || c.hi[k] != p.hi[k]))
                        fail(cell() + "'s child " + str(j) + " differs from it on axis " + str(k));
                }
                if (c.lo[level] != at || c.hi[level] < c.lo[level])
                    fail(cell() + "'s child " + str(j) + " spans keys " + str(c.lo[level]) + ".." +
                         str(c.hi[level]) + " on axis " + str(level) + ", not from " + str(at));
                at = c.hi[level];
            }
            if (at != p.hi[level])
                fail(cell() + "'s children end at key " + str(at) + ", not " + str(p.hi[level]));
        }
        if (next != children.size())
            fail("level " + str(level) + "'s cells have " + str(next) + " children of " +
                 str(children.size()));
        std::uint32_t first = 0;
        for (std::size_t j = 0; j < children.size(); ++j) {
            if (children[j].first != first)
                fail("level " + str(level + 1) + " cell " + str(j) + "'s entries start at " +
                     str(children[j].first) + ", not " + str(first));
            first += children[j].count;
        }
    }
    // What each cell should hold: the pieces cut_level() sends into it, followed down.
    std::array<std::vector<std::uint32_t>, D + 1> expected;
    for (int level = 0; level <= D; ++level) expected[level].assign(cells_[level].size(), 0);
    for (const Entity& piece : pieces_) {
        std::array<std::uint32_t, D> klo, khi;
        for (int k = 0; k < D; ++k) {
            klo[k] = radix::float_key(piece.box.lo[k]);
            khi[k] = radix::float_key(piece.box.hi[k]);
        }
        const auto descend = [&](auto& self, int level, std::uint32_t ci) -> void {
            ++expected[level][ci];
            if (level == D) return;
            const Cell& p = cells_[level][ci];
            const Cell* c = cells_[level + 1].data() + p.child_first;
            // How many children start at or below `key` (their starts ascend).
            const auto starting_by = [&](std::uint32_t key) {
                const auto below = [level](std::uint32_t v, const Cell& x) {
                    return v < x.lo[level];
                };
                return std::uint32_t(std::upper_bound(c, c + p.child_count, key, below) - c);
            };
            const std::uint32_t home = std::max(starting_by(klo[level]), 1u) - 1;
            const std::uint32_t last = std::max(starting_by(khi[level]), home + 1) - 1;
            for (std::uint32_t j = home; j <= last; ++j) {
                if (c[j].lo[level] < c[j].hi[level]) self(self, level + 1, p.child_first + j);
            }
        };
        descend(descend, 0, 0);
    }
    for (int level = 0; level <= D; ++level) {
        for (std::size_t ci = 0; ci < cells_[level].size(); ++ci) {
            if (cells_[level][ci].count != expected[level][ci])
                fail("level " + str(level) + " cell " + str(ci) + " holds " +
                     str(cells_[level][ci].count) + " pieces, but " + str(expected[level][ci]) +
                     " reach it");
        }
    }
    // The chunks' entities: copies of pieces, each once per chunk, meeting its region, in
    // order on its sweep axis.
    const std::vector<Cell>& chunks = cells_[D];
    const std::size_t entities =
        chunks.empty() ? 0 : std::size_t{chunks.back().first} + chunks.back().count;
    if (entities_.size() != entities || list_.size() != entities)
        fail(str(entities_.size()) + " entities and " + str(list_.size()) + " list entries for " +
             str(entities) + " chunk entries");
    std::vector<std::uint32_t> chunk_of(pieces_.size(), ~0u);  // last chunk a piece was met in
    for (std::uint32_t ci = 0; ci < chunks.size(); ++ci) {
        const Cell& chunk = chunks[ci];
        if (chunk.child_count != 0 || chunk.axis >= D)
            fail("chunk " + str(ci) + " has children or sweep axis " + str(int(chunk.axis)));
        for (std::uint32_t i = chunk.first; i < chunk.first + chunk.count; ++i) {
            const Entity& e = entities_[i];
            const std::uint32_t piece = list_[i];
            const auto entity = [&] {
                return "chunk " + str(ci) + "'s entity " + str(i) + " (body " + str(e.body) +
                       ", piece " + str(piece) + ")";
            };
            if (piece >= pieces_.size() || chunk_of[piece] == ci)
                fail(entity() + " is no piece, or a second copy in the chunk");
            chunk_of[piece] = ci;
            const Entity& p = pieces_[piece];
            if (e.body != p.body || e.flags != p.flags || !same_box(e.box, p.box))
                fail(entity() + " is not a copy of its piece");
            for (int k = 0; k < D; ++k) {
                if (radix::float_key(e.box.lo[k]) >= chunk.hi[k] ||
                    radix::float_key(e.box.hi[k]) < chunk.lo[k])
                    fail(entity() + " is outside the chunk on axis " + str(k));
            }
            const int a = chunk.axis;
            if (i > chunk.first &&
                radix::float_key(e.box.lo[a]) < radix::float_key(entities_[i - 1].box.lo[a]))
                fail(entity() + " starts at " + str(e.box.lo[a]) + " on sweep axis " + str(a) +
                     ", before the one preceding it at " + str(entities_[i - 1].box.lo[a]));
        }
    }
}

template class RadixChunks<2>;
template class RadixChunks<3>;

}  // namespace collide
