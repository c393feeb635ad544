#include "broadphase/dynamic_aabb_tree.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <string>

#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

#include "broadphase/common/chunked_sweep.hpp"
#include "broadphase/common/gather_prefetch.hpp"
#include "broadphase/common/nearly_sorted.hpp"
#include "broadphase/common/pair_test.hpp"
#include "collide/morton.hpp"

namespace collide {

namespace {

template <int D>
bool inside(const Aabb<D>& box, const Aabb<D>& fat) {
    for (int k = 0; k < D; ++k) {
        if (!(box.lo[k] >= fat.lo[k] && box.hi[k] <= fat.hi[k])) return false;
    }
    return true;
}

constexpr auto kNoTrace = [](std::int32_t, bool) {};

// Proxy ranges: at least this many proxies each (smaller ones cost more in task overhead
// than they save), and at most this many ranges.
constexpr std::size_t kMinPerList = 2048;
constexpr std::size_t kMaxLists = 64;

// A factor in [1 - j, 1 + j], new for each fat box of each proxy.
float jitter_factor(std::uint32_t proxy, std::size_t frame, float j) {
    std::uint64_t h = (std::uint64_t{proxy} << 32 | (frame & 0xffffffffu)) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    const float u = static_cast<float>(h >> 40) * (1.0f / 16777216.0f);  // [0, 1)
    return 1.0f + j * (2.0f * u - 1.0f);
}

}  // namespace

// A leaf grown in place to a box this many times the area (volume) of its old and new fat
// boxes together is re-inserted instead: a body removed and added elsewhere (churn), grown,
// stretched its ancestors across the world, and every query went through them (2D uniform
// 20k with 10% churn: 12 million box tests a frame where 0.3 million do). Fast bodies grow:
// one moving ten times its size a frame makes about 5.
template <int D>
bool DynamicAabbTree<D>::jumped_far(const Aabb<D>& old_fat, const Aabb<D>& new_fat) {
    constexpr float kFarGrowth = 16.0f;
    const auto measure = [](const Aabb<D>& b) {
        float m = 1.0f;
        for (int k = 0; k < D; ++k) m *= b.hi[k] - b.lo[k];
        return m;
    };
    Aabb<D> both = old_fat;
    both.grow(new_fat);
    return measure(both) > kFarGrowth * (measure(old_fat) + measure(new_fat));
}

template <int D>
Aabb<D> DynamicAabbTree<D>::fatten(std::uint32_t proxy, const Aabb<D>& box,
                                   const Vec<D>& displacement) const {
    // Each fat box gets its own random share of the margin: bodies of one speed and size
    // would otherwise leave their fat boxes on the same frame, and the tree would rebuild in
    // synchronized waves (one slow frame, then several idle ones). Jittered lifetimes drift
    // apart from one re-insertion to the next, so each frame re-inserts about n / lifetime.
    const float u = jitter_factor(proxy, frame_, jitter());
    const float side = box.largest_side();
    float m = u * (margin_box() * side + margin_avg() * margin_scale_ * avg_extent_);
    if (!(m >= 0.0f)) m = 0.0f;
    Aabb<D> fat{box.lo - Vec<D>(m), box.hi + Vec<D>(m)};
    if (predict() > 0.0f) {
        // Stretched along the last displacement: a body moving steadily stays inside for
        // about `predict` more frames. The stretch reaches at most the body's own size plus
        // its margin: in the app's physics a small body can move 20 times its size in a frame
        // (2D powerlaw 100k), and fat boxes that long overlapped many neighbours (the step
        // took 22.7 ms at 8 frames, 3.7 with this cap, 3.6 with no stretch).
        Vec<D> d = displacement * (u * predict());
        const float cap = side + m;
        float reach = 0.0f;
        for (int k = 0; k < D; ++k) reach = std::max(reach, std::abs(d[k]));
        if (reach > cap) d *= cap / reach;
        bool finite = true;
        for (int k = 0; k < D; ++k) finite = finite && std::isfinite(d[k]);
        if (finite) {
            fat.lo += glm::min(d, Vec<D>(0.0f));
            fat.hi += glm::max(d, Vec<D>(0.0f));
        }
    }
    return fat;
}

template <int D>
void DynamicAabbTree<D>::sort_entries(bool statics) {
    // The order of the last build is kept: bodies move little between builds, so
    // re-sorting it by the new codes is a near-linear insertion sort.
    std::vector<std::uint64_t>& entries = statics ? entries_static_ : entries_moving_;
    const std::size_t count = statics ? statics_ : fat_.size() - statics_;
    // An entry is one word, the code above the proxy (as in zorder-sweep): the sort moves
    // 8 bytes, not a 16-byte (code, proxy) pair, and the build reads its codes and proxies
    // in place, with no copy into arrays of each (2D powerlaw 100k: a build's sort and
    // copy took 0.45 and 0.25 ms).
    const int id_bits = entry_id_bits();
    const std::uint64_t id_mask = entry_id_mask();
    const int code_shift = morton::kBits<D> - std::min(morton::kBits<D>, (64 - id_bits) / D);
    if (entries.size() != count) {  // a full rebuild cleared it
        entries.clear();
        for (std::uint32_t p = 0; p < fat_.size(); ++p) {
            if (static_[p] == statics) entries.push_back(p);
        }
    }
    // The codes are computed in the frame of this tree's last build, and the centres'
    // extent is measured in the same pass; only where that frame no longer holds them (or
    // wastes precision) are they computed again, in a new one. Most builds thus read the
    // proxies once, not twice (2D powerlaw 100k: a pass of its own for the extent took
    // 0.55-0.75 ms of a 3.5 ms build).
    morton::Quantizer<D>& frame = statics ? static_frame_ : moving_frame_;
    const std::size_t m = entries.size();
    block_extent_.resize(block_count(m, kProxiesPerBlock));
    const auto encode = [&](bool measure) {
        for_each_block(m, kProxiesPerBlock, parallel(),
                       [&](std::size_t begin, std::size_t end, std::size_t b) {
                           // The extent grown in a local: block_extent_ holds floats like
                           // fat_, so growing it in place would store it for every proxy.
                           const morton::Quantizer<D> q = frame;
                           std::uint64_t* const out = entries.data();
                           Aabb<D> centres = Aabb<D>::empty();
                           for (std::size_t i = begin; i < end; ++i) {
                               const std::uint64_t p = out[i] & id_mask;
                               const Vec<D> centre = fat_[p].center();
                               if (measure) {
                                   bool finite = true;
                                   for (int k = 0; k < D; ++k)
                                       finite = finite && std::isfinite(centre[k]);
                                   if (finite) centres.grow({centre, centre});
                               }
                               morton::Coords<D> c = q(centre);
                               for (int k = 0; k < D; ++k) c[k] >>= code_shift;
                               out[i] = morton::encode<D>(c) << id_bits | p;
                           }
                           if (measure) block_extent_[b] = centres;
                       });
    };
    encode(true);
    Aabb<D> extent = Aabb<D>::empty();
    for (const Aabb<D>& e : block_extent_) extent.grow(e);
    if (frame.refit(extent)) encode(false);
    sort_from_last_order(entries, 4, entries_aside_, std::less<>(), parallel());
    if (!statics) sorted_frame_ = frame_;
}

template <int D>
void DynamicAabbTree<D>::build_tree(bool statics) {
    WatchRecorder<D>* watch = this->watch_;
    if (watch) watch->phase("build");
    if (statics || !sort_pending()) sort_entries(statics);
    const std::vector<std::uint64_t>& entries = statics ? entries_static_ : entries_moving_;
    (statics ? static_tree_ : moving_tree_)
        .build(entries, entry_id_mask(), fat_, leaf_, parallel());
    if (watch) {
        // The leaves as the build laid them out, left to right: Morton order.
        for (const std::uint64_t e : entries) {
            const auto p = static_cast<std::uint32_t>(e & entry_id_mask());
            watch->place(body_of_[p], fat_[p]);
        }
    }
    rebuilt_ = true;
    if (!statics) {
        built_frame_ = frame_;
        sorted_frame_ = kNever;
    }
}

template <int D>
void DynamicAabbTree<D>::full_rebuild(std::span<const Aabb<D>> boxes,
                                      std::span<const std::uint8_t> is_static) {
    const std::size_t n = boxes.size();
    // The steering's window counted other bodies; the margin it found is kept.
    window_cost_ = window_size_ = 0;
    window_frames_ = window_reinserted_ = 0;
    input_static_.assign(is_static.begin(), is_static.end());
    statics_ = static_cast<std::size_t>(std::count_if(is_static.begin(), is_static.end(), [](std::uint8_t s) { return s != 0; }));
    built_coherent_ = coherent();
    double sum = 0.0;
    for (const Aabb<D>& b : boxes) {
        const float e = b.largest_side();
        if (std::isfinite(e)) sum += e;
    }
    avg_extent_ = n == 0 ? 0.0f : static_cast<float>(sum / double(n));

    // Proxies numbered by (static, Morton code of the centre): the boxes, fat boxes and
    // pair lists indexed by proxy are then read in roughly spatial order.
    body_of_.resize(n);
    entries_moving_.clear();
    entries_static_.clear();
    sorted_frame_ = kNever;  // a pending sort was of other proxies
    if (built_coherent_) {
        std::vector<std::pair<std::uint64_t, BodyId>> keyed_moving, keyed_static;
        Aabb<D> extent = Aabb<D>::empty();
        for (const Aabb<D>& b : boxes) {
            const Vec<D> c = b.center();
            bool finite = true;
            for (int k = 0; k < D; ++k) finite = finite && std::isfinite(c[k]);
            if (finite) extent.grow({c, c});
        }
        const morton::Quantizer<D> q = morton::Quantizer<D>::covering(extent);
        for (BodyId i = 0; i < n; ++i) {
            (is_static[i] ? keyed_static : keyed_moving)
                .push_back({morton::encode<D>(q(boxes[i].center())), i});
        }
        std::sort(keyed_moving.begin(), keyed_moving.end());
        std::sort(keyed_static.begin(), keyed_static.end());
        // Proxies number the moving bodies first, so each tree's first build starts from
        // its proxies in order, which is Morton order.
        const std::uint32_t m = static_cast<std::uint32_t>(keyed_moving.size());
        for (std::uint32_t p = 0; p < m; ++p) body_of_[p] = keyed_moving[p].second;
        for (std::uint32_t p = m; p < n; ++p) body_of_[p] = keyed_static[p - m].second;
    } else {
        for (std::uint32_t p = 0; p < n; ++p) body_of_[p] = p;
    }
    if (frame_ == 0 && steer() && built_coherent_) first_margin_scale(boxes);
    proxy_of_.resize(n);
    boxes_.resize(n);
    fat_.resize(n);
    static_.resize(n);
    leaf_.assign(n, AabbTree<D>::kNull);
    moved_.assign(n, 1);
    displacement_.assign(n, Vec<D>(0.0f));
    move_buffer_.resize(n);
    size_lists(n);
    for (std::uint32_t p = 0; p < n; ++p) {
        const BodyId b = body_of_[p];
        proxy_of_[b] = p;
        boxes_[p] = boxes[b];
        static_[p] = is_static[b] != 0;
        fat_[p] = fatten(p, boxes_[p], Vec<D>(0.0f));
        move_buffer_[p] = p;
        moved_lists_[list_of(p)].push_back(p);
    }
    if (built_coherent_) {
        build_tree(false);
        build_tree(true);
    } else {
        // The plain way: one insertion per body, in body order.
        WatchRecorder<D>* watch = this->watch_;
        if (watch) watch->phase("insert");
        moving_tree_.clear();
        static_tree_.clear();
        for (std::uint32_t p = 0; p < n; ++p) {
            leaf_[p] =
                (static_[p] ? static_tree_ : moving_tree_).insert(fat_[p], p, rotations(), watch);
            if (watch) watch->place(body_of_[p], fat_[p]);
        }
    }
}

template <int D>
template <typename Body>
void DynamicAabbTree<D>::for_each_list(const Body& body) {
    const std::size_t lists = fat_lists_.size();
    if (parallel() && lists > 1) {
        tbb::parallel_for(std::size_t{0}, lists, body);
    } else {
        for (std::size_t l = 0; l < lists; ++l) body(l);
    }
}

template <int D>
void DynamicAabbTree<D>::size_lists(std::size_t proxies) {
    per_list_ = static_cast<std::uint32_t>(
        std::max(kMinPerList, (proxies + kMaxLists - 1) / kMaxLists));
    const std::size_t lists = std::max<std::size_t>(1, (proxies + per_list_ - 1) / per_list_);
    fat_lists_.resize(lists);
    out_lists_.resize(lists);
    moved_lists_.resize(lists);
    list_tests_.assign(lists, 0);
    list_stacks_.resize(lists);
    for (std::size_t l = 0; l < lists; ++l) {
        fat_lists_[l].clear();
        moved_lists_[l].clear();
    }
}

// Each range notes which of its bodies left their fat boxes and gives those new fat boxes.
template <int D>
void DynamicAabbTree<D>::gather_moves(std::span<const Aabb<D>> boxes) {
    if (this->watch_) this->watch_->phase("find moved");
    const std::size_t n = boxes_.size();
    for_each_list([&](std::size_t l) {
        // The list is moved onto this thread's stack while it works (no copy):
        // neighbouring lists' headers share cache lines, and rewritten in place at every
        // push and pop, the cores fight over those lines at 16 threads.
        std::vector<std::uint32_t> moved = std::move(moved_lists_[l]);
        moved.clear();
        const std::uint32_t end = static_cast<std::uint32_t>(std::min(n, (l + 1) * per_list_));
        for (std::uint32_t p = static_cast<std::uint32_t>(l * per_list_); p < end; ++p) {
            const Aabb<D>& b = boxes[body_of_[p]];
            const bool out = !inside(b, fat_[p]);
            moved_[p] = out ? kMoved : kStayed;
            if (out) {
                displacement_[p] = b.center() - boxes_[p].center();
                const Aabb<D> fat = fatten(p, b, displacement_[p]);
                if (jumped_far(fat_[p], fat)) moved_[p] = kJumped;
                fat_[p] = fat;
                moved.push_back(p);
            }
            boxes_[p] = b;
        }
        moved_lists_[l] = std::move(moved);
    });
    move_buffer_.clear();
    for (const auto& moved : moved_lists_) move_buffer_.insert(move_buffer_.end(), moved.begin(), moved.end());
}

template <int D>
void DynamicAabbTree<D>::reinsert_moved() {
    std::size_t moved_static = 0;
    for (std::uint32_t p : move_buffer_) moved_static += static_[p];
    const std::size_t statics = statics_;
    const std::size_t movers = fat_.size() - statics_;
    // When a large share of a tree moved, one top-down build is cheaper than that many
    // removals and insertions, and makes a better tree.
    const bool bulk_static = moved_static > bulk_share() * statics;
    const bool bulk_moving = move_buffer_.size() - moved_static > bulk_share() * movers;
    if (bulk_static) build_tree(true);
    // Between top-down builds, a frame keeps the tree's shape and grows the moved
    // leaves' ancestors to hold their new boxes: with jittered margins a few percent of the
    // bodies move every frame, and a build each frame would cost more than the queries its
    // better shape saves. The shape wears as bodies drift apart (fast, at high speeds), and
    // grown boxes stay loose, so the tree is built again once a frame's candidate tests grew
    // by a quarter over the fewest of a frame since it was built. Not over those of the
    // build's frame: after a full rebuild every body queries, and on 3D clusters 100k at
    // speed 0.5 the tests then tripled before they passed that frame's (p99 215 ms, 126 now).
    const bool worn = 4 * last_tests_ > 5 * built_tests_;
    const std::size_t age = frame_ - built_frame_;
    // Young, the tree grows its leaves whatever share moved: re-inserting one body breaks
    // the build order, and the next bulk frame then builds the whole tree. Where the share
    // hovers about the bulk share, that made a build every few frames (2D centerline 20k at
    // 0.05).
    const bool grow = moving_tree_.in_build_order() && age < refit_frames() && !worn;
    WatchRecorder<D>* watch = this->watch_;
    if (grow && move_buffer_.size() > moved_static) {
        if (watch) watch->phase("grow");
        // A climb per moved leaf, not a refit of every node: 2D powerlaw 100k at speed 0.05,
        // 3.2 -> 2.7 ms a frame. On more than one thread the proxy ranges climb at once
        // (see grow_leaf).
        moving_tree_.mark_loose();
        if (parallel() && threads_allowed() > 1) {
            for_each_list([&](std::size_t l) {
                for (std::uint32_t p : moved_lists_[l]) {
                    if (static_[p] || moved_[p] == kJumped) continue;
                    moving_tree_.template grow_leaf<true>(leaf_[p], fat_[p]);
                    if (watch) watch->place(body_of_[p], fat_[p]);
                }
            });
        } else {
            for (std::uint32_t p : move_buffer_) {
                if (static_[p] || moved_[p] == kJumped) continue;
                moving_tree_.template grow_leaf<false>(leaf_[p], fat_[p]);
                if (watch) watch->place(body_of_[p], fat_[p]);
            }
        }
        // The build that the tree's age makes due next frame is spread over the two, so
        // that neither pays for all of it: this one sorts the proxies by code, the next
        // builds in that order, its codes a frame old (they only order the leaves; the
        // leaves get their current fat boxes). 2D powerlaw 100k at 0.05: p99 5.3 -> 4.0 ms.
        if (age + 1 == refit_frames()) sort_entries(false);
    } else if (bulk_moving) {
        build_tree(false);
    }
    const bool rotate = rotations();
    if (watch) watch->phase("re-insert");
    for (std::uint32_t p : move_buffer_) {
        const bool moving_placed = grow ? moved_[p] != kJumped : bulk_moving;
        if (static_[p] ? bulk_static : moving_placed) continue;
        AabbTree<D>& tree = static_[p] ? static_tree_ : moving_tree_;
        tree.remove(leaf_[p], rotate);
        leaf_[p] = tree.insert(fat_[p], p, rotate, watch);
        if (watch) watch->place(body_of_[p], fat_[p]);
    }
}

// Kept pairs are those of bodies that were not re-inserted (their fat boxes did not
// change), compacted in place and filtered by their real boxes. This reads no tree, so it
// can run while the trees change (update()).
template <int D>
void DynamicAabbTree<D>::keep_pairs() {
    const BodyCosts* costs = costs_.if_on();  // read once, not per pair
    WatchRecorder<D>* watch = this->watch_;
    if (watch) watch->phase("keep pairs");
    // `watched`: std::true_type while Watch mode records. The hook has its own instantiation
    // of the loop: a call in it, even never taken, made the unwatched loop slower (2D
    // powerlaw 100k, one thread, a busy machine: about 0.97 -> 1.12 ms a frame).
    const auto filter = [&](std::size_t l, auto watched) {
        // Moved onto this thread's stack while it works, as in gather_moves.
        PairList fat = std::move(fat_lists_[l]);
        PairList found = std::move(out_lists_[l]);
        found.clear();
        std::size_t w = 0;
        // A pair's second body is anywhere near the first: prefetched (gather_prefetch.hpp),
        // 2D centerline 1M at speed 0.05 went from 31.8 to 28.1 ms, 100k rows no change.
        // Without branches on the two outcomes, which the bodies' motion makes coin tosses:
        // each pair is written at both ends, kept pairs and overlapping pairs (the latter
        // into a small buffer, as proxies, named by bodies after), and the ends advance by
        // what it is. A PairBatch naming the pairs as it flushes measured 7-11% slower here
        // (3D centerline and clusters 100k), so the buffer is this loop's own.
        const std::size_t kept = fat.size();
        constexpr std::size_t kBatch = 256;
        std::array<Pair, kBatch> hits;
        for (std::size_t begin = 0; begin < kept; begin += kBatch) {
            const std::size_t end = std::min(kept, begin + kBatch);
            std::size_t h = 0;
            for (std::size_t i = begin; i < end; ++i) {
                const Pair pr = fat[i];
                if (i + kGatherAhead < kept) {
                    prefetch_read(&boxes_[fat[i + kGatherAhead].b]);
                    prefetch_read(&moved_[fat[i + kGatherAhead].b]);
                }
                const bool keep = (moved_[pr.a] | moved_[pr.b]) == 0;
                const bool overlap = boxes_[pr.a].overlaps(boxes_[pr.b]);
                fat[w] = pr;
                w += keep;
                hits[h] = pr;
                h += keep & overlap;
                if (costs && keep) costs->add_pair(body_of_[pr.a], body_of_[pr.b]);
                if constexpr (decltype(watched)::value) {
                    if (keep) watch_test(watch, body_of_[pr.a], body_of_[pr.b], overlap);
                }
            }
            for (std::size_t k = 0; k < h; ++k)
                found.push_back(make_pair(body_of_[hits[k].a], body_of_[hits[k].b]));
        }
        fat.resize(w);
        list_tests_[l] = w;
        fat_lists_[l] = std::move(fat);
        out_lists_[l] = std::move(found);
    };
    if (watch) {
        for_each_list([&](std::size_t l) { filter(l, std::true_type{}); });
    } else {
        for_each_list([&](std::size_t l) { filter(l, std::false_type{}); });
    }
}

// A re-inserted body queries the trees with its new fat box; a pair of two re-inserted
// bodies is found from both sides (fat boxes overlap symmetrically) and the lower proxy
// keeps it. Unless `join` finds the new pairs instead, these follow each list's kept pairs.
template <int D>
void DynamicAabbTree<D>::query_moved(bool join, PairList& out) {
    const BodyCosts* costs = costs_.if_on();
    WatchRecorder<D>* watch = this->watch_;
    if (!join) {
        if (watch) watch->phase("query");
        for_each_list([&](std::size_t l) {
            PairList fat = std::move(fat_lists_[l]);
            PairList found = std::move(out_lists_[l]);
            std::vector<std::int32_t> stack = std::move(list_stacks_[l]);
            std::uint64_t tests = list_tests_[l];
            for (std::uint32_t p : moved_lists_[l]) {
                const Aabb<D> real = boxes_[p];
                const auto hit = [&](std::uint32_t q) {
                    if (q == p || (moved_[q] && q < p)) return;
                    fat.push_back({p, q});
                    ++tests;
                    if (costs) costs->add(body_of_[q]);
                    const bool overlap = real.overlaps(boxes_[q]);
                    watch_test(watch, body_of_[p], body_of_[q], overlap);
                    if (overlap) found.push_back(make_pair(body_of_[p], body_of_[q]));
                };
                const std::uint64_t before = tests;
                if (watch) {
                    // The same queries, each node tested shown: entered or skipped whole.
                    const auto watched = [&](const AabbTree<D>& tree) {
                        return [&tree, watch](std::int32_t i, bool overlaps) {
                            overlaps ? watch->visit(tree.node(i).box)
                                     : watch->prune(tree.node(i).box);
                        };
                    };
                    moving_tree_.query(fat_[p], stack, tests, hit, watched(moving_tree_));
                    if (!static_[p])
                        static_tree_.query(fat_[p], stack, tests, hit, watched(static_tree_));
                } else {
                    moving_tree_.query(fat_[p], stack, tests, hit, kNoTrace);
                    if (!static_[p]) static_tree_.query(fat_[p], stack, tests, hit, kNoTrace);
                }
                // p's cost: every node and leaf its queries tested (q counted its own above).
                if (costs) costs->add(body_of_[p], static_cast<std::uint32_t>(tests - before));
            }
            list_tests_[l] = tests;
            fat_lists_[l] = std::move(fat);
            out_lists_[l] = std::move(found);
            list_stacks_[l] = std::move(stack);
        });
    }
    append_in_order(out_lists_, out_offsets_, out, parallel());
    for (std::uint64_t t : list_tests_) tests_ += t;
}

// When most bodies moved (a full rebuild), one simultaneous descent of the trees, pruned to
// subtrees holding a moved leaf, finds each new pair once for less than their queries.
template <int D>
void DynamicAabbTree<D>::join_new_pairs(PairList& out) {
    marks_moving_.assign(moving_tree_.slots(), 0);
    marks_static_.assign(static_tree_.slots(), 0);
    for (std::uint32_t p : move_buffer_) {
        tree_of(p).mark_path(leaf_[p], static_[p] ? marks_static_ : marks_moving_);
    }
    const BodyCosts* costs = costs_.if_on();
    WatchRecorder<D>* watch = this->watch_;
    if (watch) watch->phase("joint descent");
    const auto emit = [&](std::uint32_t p, std::uint32_t q) {
        fat_lists_[list_of(p)].push_back({p, q});
        // Two statics never meet here: the static tree is not joined with itself.
        test_pair(body_of_[p], boxes_[p], body_of_[q], boxes_[q], false, out, tests_, costs, watch);
    };
    join_trees(moving_tree_, marks_moving_, moving_tree_, marks_moving_, true, pair_stack_, tests_,
               emit, watch);
    join_trees(moving_tree_, marks_moving_, static_tree_, marks_static_, false, pair_stack_, tests_,
               emit, watch);
}

template <int D>
void DynamicAabbTree<D>::build_and_search(std::span<const Aabb<D>> boxes,
                                          std::span<const std::uint8_t> is_static, PairList& out) {
    tests_ = 0;
    rebuilt_ = false;
    const bool full = boxes.size() != body_of_.size() || coherent() != built_coherent_ ||
                      !std::equal(is_static.begin(), is_static.end(), input_static_.begin(),
                                  input_static_.end());
    if (full) {
        full_rebuild(boxes, is_static);
        keep_pairs();
    } else {
        gather_moves(boxes);
        const auto place = [&] {
            reinsert_moved();
            const int every = rebuild_every();
            if (every > 0 && frame_ % every == 0 && !rebuilt_) build_tree(false);
        };
        // The trees' changes and the kept pairs' filter share nothing, so on more than one
        // thread they run at once: an old tree's re-insertions, one at a time, take one
        // thread while the filter's ranges fill the others (2D powerlaw 1M at speed 0.05 on
        // 2 threads: mean 5.6 -> 5.0 ms, p99 10.1 -> 7.6).
        if (parallel() && threads_allowed() > 1) {
            tbb::parallel_invoke(place, [&] { keep_pairs(); });
        } else {
            place();
            keep_pairs();
        }
    }
    const bool join = tree_join() && 2 * move_buffer_.size() > fat_.size();
    query_moved(join, out);
    if (join) join_new_pairs(out);
    built_tests_ = built_frame_ == frame_ ? tests_ : std::min(built_tests_, tests_);
    last_tests_ = tests_;
    if (!full) steer_margin(out.size());
    ++frame_;
}

template <int D>
void DynamicAabbTree<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                                QueryTrace<D>* trace) const {
    out.clear();
    std::uint64_t tests = 0;
    const auto hit = [&](std::uint32_t q) {
        if (boxes_[q].overlaps(region)) out.push_back(body_of_[q]);
    };
    for (const AabbTree<D>* tree : {&moving_tree_, &static_tree_}) {
        if (!trace) {
            tree->query(region, stack_, tests, hit, kNoTrace);
            continue;
        }
        tree->query(region, stack_, tests, hit, [&](std::int32_t i, bool overlaps) {
            trace->add(tree->node(i).box, overlaps ? TraceKind::kDescended : TraceKind::kPruned);
        });
    }
}

template <int D>
BroadPhaseStats DynamicAabbTree<D>::stats() const {
    const std::size_t per_proxy =
        (boxes_.capacity() + fat_.capacity()) * sizeof(Aabb<D>) +
        (body_of_.capacity() + proxy_of_.capacity() + leaf_.capacity() + move_buffer_.capacity()) *
            4 +
        static_.capacity() + input_static_.capacity() + moved_.capacity() +
        displacement_.capacity() * sizeof(Vec<D>) +
        (entries_moving_.capacity() + entries_static_.capacity() + entries_aside_.capacity()) *
            sizeof(std::uint64_t) +
        stack_.capacity() * 4 + pair_stack_.capacity() * 8 + marks_moving_.capacity() +
        marks_static_.capacity() + list_tests_.capacity() * 8;
    std::size_t lists = 0;
    for (std::size_t l = 0; l < fat_lists_.size(); ++l) {
        lists += (fat_lists_[l].capacity() + out_lists_[l].capacity()) * sizeof(Pair) +
                 moved_lists_[l].capacity() * 4 + list_stacks_[l].capacity() * 4;
    }
    return {.candidate_tests = tests_,
            .structure_bytes = moving_tree_.bytes() + static_tree_.bytes() + per_proxy + lists,
            .nodes = moving_tree_.live() + static_tree_.live(),
            .depth = std::max(moving_tree_.height(), static_tree_.height()),
            .reinserted = move_buffer_.size()};
}

template class DynamicAabbTree<2>;
template class DynamicAabbTree<3>;

}  // namespace collide
