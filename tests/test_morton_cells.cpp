// Morton cells' internal references: region queries that walk the linked octree must give
// what a linear scan and the implicit walk give, on moving scenes (the links rebuilt after
// each merge of changed cells), with static bodies apart, and on the edge cases of linking
// (no cell, one cell, every body in one cell, the deepest level, the whole grid taken).
#include <gtest/gtest.h>

#include "collide/registry.hpp"
#include "tooling/ballistic.hpp"
#include "tooling/random.hpp"
#include "tooling/scenes.hpp"

namespace collide {
namespace {

template <int D>
std::unique_ptr<BroadPhase<D>> morton_cells(bool linked) {
    auto bp = make_broadphase<D>("morton-cells");
    for (Param& p : bp->params()) {
        if (std::string_view(p.name) == "internal references") p.value = linked ? 1.0f : 0.0f;
    }
    return bp;
}

template <int D>
std::vector<BodyId> scan(const std::vector<Aabb<D>>& boxes, const Aabb<D>& region) {
    std::vector<BodyId> out;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        if (boxes[i].overlaps(region)) out.push_back(BodyId(i));
    }
    return out;
}

// Both walks against the scan on `boxes`: random regions of every size, points, everything.
template <int D>
void expect_walks_agree(BroadPhase<D>& linked, BroadPhase<D>& implicit,
                        const std::vector<Aabb<D>>& boxes, std::span<const std::uint8_t> is_static,
                        Rng& rng) {
    PairList pairs;
    linked.update(boxes, is_static, pairs);
    implicit.update(boxes, is_static, pairs);
    Aabb<D> all = Aabb<D>::empty();
    for (const auto& b : boxes) all.grow(b);
    if (boxes.empty()) all = {Vec<D>(0.0f), Vec<D>(1.0f)};
    std::vector<Aabb<D>> regions = {all, {all.lo - 1.0f, all.hi + 1.0f}, {all.lo, all.lo}};
    for (int q = 0; q < 40; ++q) {
        const Vec<D> c = rng.in_box<D>(all.lo, all.hi);
        const Vec<D> half = (all.hi - all.lo) * rng.uniform(0.0f, q < 20 ? 0.05f : 0.5f);
        regions.push_back({c - half, c + half});
    }
    std::vector<BodyId> a, b;
    for (const Aabb<D>& region : regions) {
        linked.query(region, a);
        implicit.query(region, b);
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        ASSERT_EQ(a, scan<D>(boxes, region));
        ASSERT_EQ(a, b);
    }
}

template <int D>
void run_scenes() {
    for (const char* scene : {"uniform", "powerlaw", "centerline", "clusters"}) {
        BallisticMotion<D> motion(make_scene<D>(scene, 1500, 7), 0.5f, 7);
        auto linked = morton_cells<D>(true);
        auto implicit = morton_cells<D>(false);
        Rng rng(7);
        std::vector<std::uint8_t> is_static(motion.boxes().size(), 0);
        for (int frame = 0; frame < 5; ++frame) {
            // From frame 3 on, every fifth body is static (in the static array).
            if (frame == 3) {
                for (std::size_t i = 0; i < is_static.size(); i += 5) is_static[i] = 1;
            }
            SCOPED_TRACE(std::string(scene) + " frame " + std::to_string(frame));
            expect_walks_agree<D>(*linked, *implicit, motion.boxes(), is_static, rng);
            motion.advance();
        }
    }
}

TEST(MortonCellsLinks, QueriesMatchScanOnMovingScenes2D) {
    run_scenes<2>();
}
TEST(MortonCellsLinks, QueriesMatchScanOnMovingScenes3D) {
    run_scenes<3>();
}

template <int D>
void run_edge_cases() {
    const auto box = [](float lo, float hi) { return Aabb<D>{Vec<D>(lo), Vec<D>(hi)}; };
    Rng rng(3);
    std::vector<std::vector<Aabb<D>>> sets = {
        {},                                                     // no cell
        {box(0.0f, 1.0f)},                                      // one body
        std::vector<Aabb<D>>(50, box(2.0f, 2.5f)),              // every body in one cell
        {box(0.0f, 1.0f), box(0.0f, 0.25f), box(0.0f, 0.01f)},  // nested cells, one corner
    };
    // The deepest level: points on a lattice, each box of zero extent.
    std::vector<Aabb<D>> points;
    for (int i = 0; i < 300; ++i) {
        Vec<D> p(0.0f);
        for (int k = 0; k < D; ++k) p[k] = float((i >> (3 * k)) % 8) + float(i % 3) * 0.001f;
        points.push_back({p, p});
    }
    sets.push_back(points);
    for (const auto& boxes : sets) {
        SCOPED_TRACE(std::to_string(boxes.size()) + " boxes");
        auto linked = morton_cells<D>(true);
        auto implicit = morton_cells<D>(false);
        const std::vector<std::uint8_t> is_static(boxes.size(), 0);
        expect_walks_agree<D>(*linked, *implicit, boxes, is_static, rng);
    }
    // Every body in one cell: the walk sees the whole grid and that cell, nothing else.
    auto linked = morton_cells<D>(true);
    const std::vector<Aabb<D>>& same = sets[2];
    PairList pairs;
    linked->update(same, std::vector<std::uint8_t>(same.size(), 0), pairs);
    QueryTrace<D> trace;
    std::vector<BodyId> out;
    linked->query(box(2.2f, 2.3f), out, &trace);
    EXPECT_EQ(out.size(), same.size());
    EXPECT_LE(trace.regions.size(), 2u);
    // A region holding the whole grid takes the root at once.
    trace.clear();
    linked->query(box(-1e6f, 1e6f), out, &trace);
    EXPECT_EQ(out.size(), same.size());
    ASSERT_EQ(trace.regions.size(), 1u);
    EXPECT_EQ(trace.regions[0].kind, TraceKind::kTaken);
}

TEST(MortonCellsLinks, EdgeCases2D) {
    run_edge_cases<2>();
}
TEST(MortonCellsLinks, EdgeCases3D) {
    run_edge_cases<3>();
}

}  // namespace
}  // namespace collide
