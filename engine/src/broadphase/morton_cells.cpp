#include "broadphase/common/sorted_patch.hpp"
#include "broadphase/morton_cells.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdio>

#include <tbb/parallel_sort.h>

namespace collide {

namespace {

// The first index in `v` (sorted by start) of an entry starting at or after `code`.
template <typename Entry>
std::size_t first_from(const std::vector<Entry>& v, std::size_t lo, std::size_t hi,
                       std::uint64_t code) {
    return static_cast<std::size_t>(
        std::partition_point(v.begin() + lo, v.begin() + hi,
                             [code](const Entry& e) { return e.start < code; }) -
        v.begin());
}

enum class Overlap { kOutside, kPartial, kInside };

// Where the cell of side 2^level at grid corner `c` lies against the grid region [qlo, qhi].
template <int D>
Overlap cell_overlap(const morton::Coords<D>& c, int level, const morton::Coords<D>& qlo,
                     const morton::Coords<D>& qhi) {
    bool inside = true;
    for (int k = 0; k < D; ++k) {
        const std::uint64_t c1 = std::uint64_t{c[k]} + (std::uint64_t{1} << level) - 1;
        if (c[k] > qhi[k] || c1 < qlo[k]) return Overlap::kOutside;
        inside = inside && c[k] >= qlo[k] && c1 <= qhi[k];
    }
    return inside ? Overlap::kInside : Overlap::kPartial;
}

}  // namespace

template <int D>
typename MortonCells<D>::Signature MortonCells<D>::signature(BodyId id) const {
    const morton::Coords<D> lo = frame_(boxes_[id].lo);
    const morton::Coords<D> hi = frame_(boxes_[id].hi);
    std::uint32_t extent = 0;
    for (int k = 0; k < D; ++k) extent = std::max(extent, hi[k] - lo[k]);
    // The smallest level whose cells are at least as large as the box: the box then
    // touches at most two cells per axis.
    const int level = extent == 0 ? 0 : std::bit_width(extent - 1);
    morton::Coords<D> lo_cell, hi_cell;
    for (int k = 0; k < D; ++k) {
        lo_cell[k] = static_cast<std::uint32_t>((std::uint64_t{lo[k]} >> level) << level);
        hi_cell[k] = static_cast<std::uint32_t>((std::uint64_t{hi[k]} >> level) << level);
    }
    return {morton::encode<D>(lo_cell), morton::encode<D>(hi_cell), level};
}

template <int D>
void MortonCells<D>::append_cells(BodyId id, std::vector<Entry>& to) const {
    const int level = signatures_[id].level;
    const morton::Coords<D> lo = frame_(boxes_[id].lo);
    const morton::Coords<D> hi = frame_(boxes_[id].hi);
    std::array<std::uint64_t, D> first, count;
    for (int k = 0; k < D; ++k) {
        first[k] = std::uint64_t{lo[k]} >> level;
        count[k] = (std::uint64_t{hi[k]} >> level) - first[k] + 1;  // 1 or 2
    }
    for (unsigned corner = 0; corner < (1u << D); ++corner) {
        morton::Coords<D> cell;
        bool exists = true;
        for (int k = 0; k < D; ++k) {
            const unsigned upper = (corner >> k) & 1u;
            exists = exists && upper < count[k];
            cell[k] = static_cast<std::uint32_t>((first[k] + upper) << level);
        }
        if (exists) {
            to.push_back({morton::encode<D>(cell), id, static_cast<std::uint8_t>(level),
                          static_cast<std::uint8_t>(corner)});
        }
    }
}

template <int D>
void MortonCells<D>::append_cells(BodyId id, std::vector<Entry>& to,
                                  WatchRecorder<D>* watch) const {
    if (watch == nullptr) {
        append_cells(id, to);
        return;
    }
    const std::size_t from = to.size();
    append_cells(id, to);
    watch_placed(*watch, to, from);
}

template <int D>
void MortonCells<D>::sort(std::vector<Entry>& v) const {
    if (parallel_sort()) {
        tbb::parallel_sort(v.begin(), v.end());
    } else {
        std::sort(v.begin(), v.end());
    }
}

template <int D>
void MortonCells<D>::rebuild(std::span<const std::uint8_t> is_static) {
    moving_.clear();
    static_cells_.clear();
    const bool split = split_static();
    WatchRecorder<D>* const watch = this->watch_;
    for (BodyId i = 0; i < boxes_.size(); ++i) {
        append_cells(i, split && is_static[i] ? static_cells_ : moving_, watch);
    }
    if (watch) watch->phase("sort");
    sort(moving_);
    sort(static_cells_);
}

// Only the bodies whose cells changed are re-celled: their new cells are sorted alone and
// merged with the kept ones, O(n + k log k) for k changed bodies instead of a full sort.
template <int D>
bool MortonCells<D>::refresh(std::span<const std::uint8_t> is_static) {
    const bool split = split_static();
    WatchRecorder<D>* const watch = this->watch_;
    bool static_changed = false;
    fresh_.clear();
    for (BodyId i = 0; i < boxes_.size(); ++i) {
        if (!dirty_[i]) continue;
        if (split && is_static[i]) {
            static_changed = true;
        } else {
            append_cells(i, fresh_, watch);
        }
    }
    if (static_changed) {
        static_cells_.clear();
        for (BodyId i = 0; i < boxes_.size(); ++i) {
            if (is_static[i]) append_cells(i, static_cells_, watch);
        }
    }
    if (watch) watch->phase("sort");
    if (static_changed) sort(static_cells_);
    patch_sorted(moving_, fresh_, dirty_, merged_);
    return static_changed;
}

// One pass over the sorted entries, which list the tree in pre-order (a cell's descendants
// follow it), with the path from the root to the last node open: a new cell closes the
// nodes that do not contain it, and when it leaves the last closed one behind in another
// child of the same smallest common cell, that cell becomes a branching node between them.
template <int D>
void MortonCells<D>::link(const std::vector<Entry>& v, std::vector<Link>& links) {
    assert(v.size() < kNoLink);
    const auto n = static_cast<std::uint32_t>(v.size());
    links.assign(1, {.start = 0, .first = 0, .own = 0, .end = n,
                     .level = static_cast<std::uint8_t>(morton::kBits<D>)});
    path_.assign(1, 0);
    const auto contains = [&](std::uint32_t a, std::uint64_t start, int level) {
        return links[a].level >= level &&
               (start & ~morton::level_mask<D>(links[a].level)) == links[a].start;
    };
    // Makes `node` the last child of `parent`, or puts it in the place of `old` there.
    // A node has at most 2^D children, so the walk along them is short.
    const auto adopt = [&](std::uint32_t parent, std::uint32_t node, std::uint32_t old) {
        std::uint32_t* slot = &links[parent].child;
        while (*slot != old) slot = &links[*slot].sibling;
        *slot = node;
        links[node].parent = parent;
    };
    for (std::uint32_t i = 0, j = 0; i < n; i = j) {
        const std::uint64_t start = v[i].start;
        const int level = v[i].level;
        while (j < n && v[j].start == start && v[j].level == level) ++j;
        std::uint32_t closed = kNoLink;
        while (!contains(path_.back(), start, level)) {
            closed = path_.back();
            links[closed].end = i;
            path_.pop_back();
        }
        if (closed != kNoLink) {
            const std::uint64_t differ = links[closed].start ^ start;
            const int common = std::max({level, int{links[closed].level},
                                         (static_cast<int>(std::bit_width(differ)) + D - 1) / D});
            if (common < links[path_.back()].level) {
                const auto branch = static_cast<std::uint32_t>(links.size());
                links.push_back({.start = start & ~morton::level_mask<D>(common),
                                 .first = links[closed].first,
                                 .own = 0,
                                 .end = n,
                                 .level = static_cast<std::uint8_t>(common)});
                adopt(path_.back(), branch, closed);
                links[branch].child = closed;
                links[closed].parent = branch;
                path_.push_back(branch);
            }
        }
        Link& top = links[path_.back()];
        if (top.start == start && top.level == level) {  // only the whole grid, node 0
            top.own = j - i;
            continue;
        }
        const auto node = static_cast<std::uint32_t>(links.size());
        links.push_back({.start = start, .first = i, .own = j - i, .end = n,
                         .level = static_cast<std::uint8_t>(level)});
        adopt(path_.back(), node, kNoLink);
        path_.push_back(node);
    }
}

template <int D>
void MortonCells<D>::build_and_search(std::span<const Aabb<D>> boxes,
                                      std::span<const std::uint8_t> is_static, PairList& out) {
    const std::size_t n = boxes.size();
    const bool changed = settings_changed(params_, built_with_, is_static, is_static_);
    const bool full = frame_.refit(boxes) || !persistent() || n != signatures_.size() || changed;
    boxes_.assign(boxes.begin(), boxes.end());
    is_static_.assign(is_static.begin(), is_static.end());
    WatchRecorder<D>* const watch = this->watch_;
    if (watch) watch->phase("cells");
    signatures_.resize(n);
    dirty_.assign(n, 0);
    refreshed_ = 0;
    min_level_ = morton::kBits<D>;
    for (BodyId i = 0; i < n; ++i) {
        const Signature s = signature(i);
        min_level_ = std::min(min_level_, s.level);
        if (full || s != signatures_[i]) {
            signatures_[i] = s;
            dirty_[i] = 1;
            ++refreshed_;
        }
    }
    bool statics_changed = full;
    if (full) {
        rebuild(is_static);
    } else if (refreshed_ > 0) {
        statics_changed = refresh(is_static);
    }
    // The links are rebuilt after the merge, not patched: one linear pass
    // (docs/algorithms/sweeps-and-morton.md).
    linked_ = internal_references();
    if (watch && linked_ && (full || refreshed_ > 0 || statics_changed)) watch->phase("link");
    if (linked_ && (full || refreshed_ > 0)) link(moving_, moving_links_);
    if (linked_ && statics_changed) link(static_cells_, static_links_);
    sweep(out);
}

// The pair is reported from the one pair of cells that both contain the lower corner of
// the two boxes' overlap: `inner` (the smaller cell) must contain it; the larger cell then
// does too, as the two are nested. Quantizing is monotone, so the corner's grid point is
// the larger of the two boxes' grid lower corners, whatever cells they were built from.
template <int D>
bool MortonCells<D>::owns_pair(const Entry& inner, const Aabb<D>& a, const Aabb<D>& b) const {
    const std::uint64_t corner = morton::encode<D>(frame_(glm::max(a.lo, b.lo)));
    return (corner & ~morton::level_mask<D>(inner.level)) == inner.start;
}

// Sweeps moving entries [m0, m1) and the static entries that fall between them, in the
// merged order of the two sorted arrays (on equal cells the moving entry comes first).
// Each entry scans forward in both arrays (a static one only in the moving array) while
// the next entry starts inside its cell.
template <int D>
template <bool Canonical, bool SkipStaticPairs, bool Watch>
void MortonCells<D>::sweep_rows(std::size_t m0, std::size_t m1, PairList& pairs,
                                std::uint64_t& tests) const {
    const std::vector<Entry>& m = moving_;
    const std::vector<Entry>& s = static_cells_;
    const auto statics_before = [&](std::size_t row) {  // statics preceding moving_[row]
        return row == 0 ? 0 : std::lower_bound(s.begin(), s.end(), m[row - 1]) - s.begin();
    };
    std::size_t is = statics_before(m0);
    const std::size_t s1 = statics_before(m1);
    const BodyCosts* costs = costs_.if_on();
    // Watch mode's recorder (set whenever Watch is); the timed copy has no calls to it.
    WatchRecorder<D>* const watch = this->watch_;
    // Boxes are read from the copies in entry order, so the scan streams through memory.
    const auto scan = [&](const Entry& outer, const Aabb<D>& box, const std::vector<Entry>& in,
                          const std::vector<Aabb<D>>& in_boxes, std::size_t j) {
        const std::uint64_t last = outer.last();
        for (; j < in.size() && in[j].start <= last; ++j) {
            const Entry& inner = in[j];
            if (SkipStaticPairs && is_static_[outer.id] && is_static_[inner.id]) continue;
            ++tests;
            if (costs) costs->add_pair(outer.id, inner.id);
            const bool hit = box.overlaps(in_boxes[j]);
            if constexpr (Watch) watch->test(outer.id, inner.id, hit);
            if (!hit) continue;
            if (Canonical && !owns_pair(inner, box, in_boxes[j])) continue;
            if constexpr (Watch) {
                watch_pair(*watch, pairs, outer.id, inner.id, Canonical);
            } else {
                pairs.push_back(make_pair(outer.id, inner.id));
            }
        }
    };
    std::size_t im = m0;
    while (im < m1 || is < s1) {
        if (is < s1 && (im >= m1 || s[is] < m[im])) {
            if constexpr (Watch) watch_cell(*watch, s[is]);
            scan(s[is], static_boxes_[is], m, moving_boxes_, im);
            ++is;
        } else {
            if constexpr (Watch) watch_cell(*watch, m[im]);
            scan(m[im], moving_boxes_[im], m, moving_boxes_, im + 1);
            scan(m[im], moving_boxes_[im], s, static_boxes_, is);
            ++im;
        }
    }
}

template <int D>
void MortonCells<D>::sweep(PairList& out) {
    const bool canonical = canonical_pairs();
    const bool skip = !split_static() &&
                      std::find(is_static_.begin(), is_static_.end(), 1) != is_static_.end();
    PairList& target = canonical ? out : raw_;
    target.clear();
    WatchRecorder<D>* const watch = this->watch_;
    if (watch) watch->phase("sweep");
    for (auto [cells, boxes] : {std::pair{&moving_, &moving_boxes_}, {&static_cells_, &static_boxes_}}) {
        boxes->resize(cells->size());
        for (std::size_t i = 0; i < cells->size(); ++i) (*boxes)[i] = boxes_[(*cells)[i].id];
    }
    const auto run = [&]<bool C, bool S>() {
        chunks_.run(
            moving_.size(), 4096,
            [&](std::size_t b, std::size_t e, PairList& p, std::uint64_t& t) {
                if (watch) {
                    sweep_rows<C, S, true>(b, e, p, t);
                } else {
                    sweep_rows<C, S, false>(b, e, p, t);
                }
            },
            target);
    };
    if (canonical) {
        skip ? run.template operator()<true, true>() : run.template operator()<true, false>();
    } else {
        skip ? run.template operator()<false, true>() : run.template operator()<false, false>();
        // The seed's way: every overlapping cell pair reported, duplicates removed after.
        if (watch) watch->phase("remove duplicates");
        std::sort(raw_.begin(), raw_.end());
        out.assign(raw_.begin(), std::unique(raw_.begin(), raw_.end()));
        if (watch) {
            for (const Pair& p : out) watch->emit(p.a, p.b);
        }
    }
}

// Descends the implicit tree from the root through the cells that meet the region,
// locating each cell's entries by binary search inside its parent's range; a cell with no
// entries is pruned, a cell inside the region takes all its entries at once.
template <int D>
void MortonCells<D>::collect_implicit(const std::vector<Entry>& v, const morton::Coords<D>& qlo,
                                      const morton::Coords<D>& qhi, std::vector<BodyId>& found,
                                      QueryTrace<D>* trace) const {
    const auto descend = [&](auto& self, int level, const morton::Coords<D>& corner,
                             std::size_t lo, std::size_t hi) -> void {
        const std::uint64_t start = morton::encode<D>(corner);
        const std::uint64_t last = start | morton::level_mask<D>(level);
        const std::size_t first = first_from(v, lo, hi, start);
        const std::size_t end =
            last == ~std::uint64_t{0} ? hi : first_from(v, first, hi, last + 1);
        const TraceKind kind = first == end ? TraceKind::kPruned
                               : cell_overlap<D>(corner, level, qlo, qhi) == Overlap::kInside
                                   ? TraceKind::kTaken
                                   : TraceKind::kDescended;
        if (trace) trace->add(cell_box(start, level), kind);
        if (kind == TraceKind::kPruned) return;
        if (kind == TraceKind::kTaken) {
            for (std::size_t i = first; i < end; ++i) found.push_back(v[i].id);
            return;
        }
        // Entries that are this very cell; larger cells starting here were taken above.
        for (std::size_t i = first; i < end && v[i].start == start; ++i) {
            if (v[i].level == level) found.push_back(v[i].id);
        }
        if (level == 0) return;
        for (unsigned child = 0; child < (1u << D); ++child) {
            morton::Coords<D> sub;
            for (int k = 0; k < D; ++k) {
                sub[k] = corner[k] + (((child >> k) & 1u) << (level - 1));
            }
            if (cell_overlap<D>(sub, level - 1, qlo, qhi) != Overlap::kOutside) {
                self(self, level - 1, sub, first, end);
            }
        }
    };
    descend(descend, morton::kBits<D>, {}, 0, v.size());
}

// Walks the linked octree in pre-order, going up by the parent links, so it needs neither
// a stack nor a binary search: a node outside the region is skipped with its subtree, a
// node inside takes its subtree's entries at once, any other takes its own and goes down.
template <int D>
void MortonCells<D>::collect_linked(const std::vector<Entry>& v, const std::vector<Link>& links,
                                    const morton::Coords<D>& qlo, const morton::Coords<D>& qhi,
                                    std::vector<BodyId>& found, QueryTrace<D>* trace) const {
    std::uint32_t at = 0;
    for (;;) {
        const Link& node = links[at];
        const Overlap o = cell_overlap<D>(morton::decode<D>(node.start), node.level, qlo, qhi);
        if (trace) {
            trace->add(cell_box(node.start, node.level),
                       o == Overlap::kOutside  ? TraceKind::kPruned
                       : o == Overlap::kInside ? TraceKind::kTaken
                                               : TraceKind::kDescended);
        }
        if (o != Overlap::kOutside) {
            const std::uint32_t to = o == Overlap::kInside ? node.end : node.first + node.own;
            for (std::uint32_t i = node.first; i < to; ++i) found.push_back(v[i].id);
            if (o == Overlap::kPartial && node.child != kNoLink) {
                at = node.child;
                continue;
            }
        }
        while (at != 0 && links[at].sibling == kNoLink) at = links[at].parent;
        if (at == 0) return;
        at = links[at].sibling;
    }
}

template <int D>
void MortonCells<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                            QueryTrace<D>* trace) const {
    out.clear();
    if (boxes_.empty()) return;
    const morton::Coords<D> qlo = frame_(region.lo);
    const morton::Coords<D> qhi = frame_(region.hi);
    std::vector<BodyId> found;
    for (auto [v, links] : {std::pair{&moving_, &moving_links_}, {&static_cells_, &static_links_}}) {
        if (v->empty()) continue;
        if (linked_) {
            collect_linked(*v, *links, qlo, qhi, found, trace);
        } else {
            collect_implicit(*v, qlo, qhi, found, trace);
        }
    }
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    for (BodyId id : found) {
        if (boxes_[id].overlaps(region)) out.push_back(id);
    }
}

template <int D>
Aabb<D> MortonCells<D>::cell_box(std::uint64_t start, int level) const {
    const morton::Coords<D> c = morton::decode<D>(start);
    const double side = std::ldexp(1.0, level);
    Aabb<D> box;
    for (int k = 0; k < D; ++k) {
        box.lo[k] = frame_.world(c[k], k);
        box.hi[k] = frame_.world(c[k] + side, k);
    }
    return box;
}

template <int D>
BroadPhaseStats MortonCells<D>::stats() const {
    const std::size_t entry_bytes =
        (moving_.capacity() + static_cells_.capacity() + fresh_.capacity() + merged_.capacity()) *
            sizeof(Entry) +
        (moving_links_.capacity() + static_links_.capacity()) * sizeof(Link) +
        path_.capacity() * sizeof(std::uint32_t);
    const std::size_t body_bytes =
        (boxes_.capacity() + moving_boxes_.capacity() + static_boxes_.capacity()) * sizeof(Aabb<D>) +
        is_static_.capacity() +
                                   signatures_.capacity() * sizeof(Signature) + dirty_.capacity();
    return {.candidate_tests = chunks_.tests(),
            .structure_bytes = entry_bytes + body_bytes + raw_.capacity() * sizeof(Pair) +
                               chunks_.bytes(),
            .nodes = moving_.size() + static_cells_.size(),
            .depth = boxes_.empty() ? 0 : morton::kBits<D> - min_level_};
}

// Per body: its signature is what its box gives now, and it has exactly the cells
// append_cells() makes from it (one per corner, each once), in the array its static flag
// and the "static array" setting it was built with pick. Both arrays sorted, their box
// copies in step, and with internal references each link tree a partition of its array:
// a node's own entries are its cell, followed by its children's ranges in order.
template <int D>
void MortonCells<D>::validate() const {
    const InvariantFail fail("morton-cells");
    const std::size_t n = boxes_.size();
    check_per_body(fail, n, is_static_.size(), signatures_.size(), "signatures");
    const bool split = built_with_[1] != 0.0f;  // as built, whatever the slider says now
    int min_level = morton::kBits<D>;
    // Per body, a bit for each of its corner cells not met yet.
    std::vector<std::uint8_t> missing(n, 0);
    for (BodyId i = 0; i < n; ++i) {
        const Signature& s = signatures_[i];
        const Signature now = signature(i);
        if (s != now)
            fail("body " + str(i) + " has cells " + hex(s.lo_cell) + ".." + hex(s.hi_cell) +
                 " at level " + str(s.level) + " but its box gives " + hex(now.lo_cell) + ".." +
                 hex(now.hi_cell) + " at level " + str(now.level));
        min_level = std::min(min_level, s.level);
        const morton::Coords<D> lo = frame_(boxes_[i].lo), hi = frame_(boxes_[i].hi);
        std::array<std::uint64_t, D> count;  // cells per axis: 1 or 2 at the level's size
        for (int k = 0; k < D; ++k) {
            count[k] = (std::uint64_t{hi[k]} >> s.level) - (std::uint64_t{lo[k]} >> s.level) + 1;
            if (count[k] > 2)
                fail("body " + str(i) + " spans " + str(count[k]) + " level-" + str(s.level) +
                     " cells on axis " + str(k));
        }
        for (unsigned corner = 0; corner < (1u << D); ++corner) {
            bool exists = true;
            for (int k = 0; k < D; ++k) exists = exists && ((corner >> k) & 1u) < count[k];
            missing[i] |= std::uint8_t(exists) << corner;
        }
    }
    if (n > 0 && min_level != min_level_)
        fail("the finest level is " + str(min_level) + ", not " + str(min_level_));
    const auto check = [&](const std::vector<Entry>& v, const std::vector<Aabb<D>>& boxes,
                           bool statics, const char* name) {
        if (boxes.size() != v.size())
            fail(str(boxes.size()) + " boxes for the " + str(v.size()) + " " + name + " cells");
        for (std::size_t j = 0; j < v.size(); ++j) {
            const Entry& e = v[j];
            const auto entry = [&] {
                return std::string(name) + " cell " + str(j) + " (body " + str(e.id) + ", level " +
                       str(int(e.level)) + ", code " + hex(e.start) + ")";
            };
            if (j > 0 && e < v[j - 1]) fail(entry() + " is before the one preceding it");
            if (e.id >= n || e.corner >= (1u << D) || !((missing[e.id] >> e.corner) & 1u))
                fail(entry() + " is of no body, or a corner " + str(int(e.corner)) +
                     " its body has not or has twice");
            missing[e.id] &= std::uint8_t(~(1u << e.corner));
            if ((split && is_static_[e.id]) != statics)
                fail(entry() + " is in the wrong array for a " +
                     (is_static_[e.id] ? "static" : "moving") + " body");
            const int level = signatures_[e.id].level;
            const morton::Coords<D> lo = frame_(boxes_[e.id].lo);
            morton::Coords<D> cell;
            for (int k = 0; k < D; ++k) {
                const std::uint64_t at = (std::uint64_t{lo[k]} >> level) + ((e.corner >> k) & 1u);
                cell[k] = static_cast<std::uint32_t>(at << level);
            }
            if (e.level != level || e.start != morton::encode<D>(cell))
                fail(entry() + ", but its box gives code " + hex(morton::encode<D>(cell)) +
                     " at level " + str(level));
            if (!same_box(boxes[j], boxes_[e.id]))
                fail(entry() + "'s box copy is not its body's box");
        }
    };
    check(moving_, moving_boxes_, false, "moving");
    check(static_cells_, static_boxes_, true, "static");
    for (BodyId i = 0; i < n; ++i) {
        if (missing[i] != 0)
            fail("body " + str(i) + " lacks its cells at corners " + str(int(missing[i])) +
                 " (a bit each)");
    }
    if (!linked_) return;
    const auto check_links = [&](const std::vector<Entry>& v, const std::vector<Link>& links,
                                 const char* name) {
        const auto tree = [&] { return std::string("the ") + name + " links"; };
        if (links.empty() || links[0].start != 0 || links[0].level != morton::kBits<D> ||
            links[0].first != 0 || links[0].end != v.size() || links[0].parent != kNoLink)
            fail(tree() + " do not start at a root node over all " + str(v.size()) + " cells");
        std::vector<std::uint32_t> stack{0};
        std::size_t visited = 0;
        while (!stack.empty()) {
            const std::uint32_t a = stack.back();
            stack.pop_back();
            ++visited;
            const Link& node = links[a];
            const auto at = [&] {
                return tree() + "' node " + str(a) + " (code " + hex(node.start) + ", level " +
                       str(int(node.level)) + ")";
            };
            if (std::uint64_t{node.first} + node.own > node.end || node.end > v.size())
                fail(at() + " has entries " + str(node.first) + " + " + str(node.own) + " .. " +
                     str(node.end) + " of " + str(v.size()));
            for (std::uint32_t j = node.first; j < node.first + node.own; ++j) {
                if (v[j].start != node.start || v[j].level != node.level)
                    fail(at() + " owns cell " + str(j) + ", which is another cell");
            }
            std::uint32_t next = node.first + node.own;  // where the next child must begin
            unsigned children = 0;
            for (std::uint32_t c = node.child; c != kNoLink; c = links[c].sibling) {
                if (c >= links.size() || ++children > (1u << D))
                    fail(at() + " has a child link " + str(c) + " of " + str(links.size()) +
                         " nodes, or more than 2^D children");
                const Link& child = links[c];
                if (child.parent != a || child.level >= node.level ||
                    (child.start & ~morton::level_mask<D>(node.level)) != node.start ||
                    child.first != next)
                    fail(at() + "'s child " + str(c) + " (code " + hex(child.start) + ", level " +
                         str(int(child.level)) + ", parent " + str(child.parent) +
                         ") is not a smaller cell inside it starting at entry " + str(next));
                next = child.end;
                stack.push_back(c);
            }
            if (next != node.end)
                fail(at() + "'s own cells and children end at " + str(next) + ", not " +
                     str(node.end));
            // A node without cells of its own is where two subtrees branch.
            if (a != 0 && node.own == 0 && children < 2)
                fail(at() + " has neither cells nor two children");
        }
        if (visited != links.size())
            fail(tree() + " reach " + str(visited) + " of their " + str(links.size()) + " nodes");
    };
    check_links(moving_, moving_links_, "moving");
    check_links(static_cells_, static_links_, "static");
}

template class MortonCells<2>;
template class MortonCells<3>;

}  // namespace collide
