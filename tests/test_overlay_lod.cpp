// Level of detail of the structure overlays (collide::DebugDraw): at a million bodies with
// the whole world in view the structure stays under the draw budget and covers every
// quadrant of the view (thinned evenly, never "the first N in memory order", which drew a
// staircase in one corner), and regions that reach past the world are clipped to it.
#include <gtest/gtest.h>

#include <array>

#include "collide/broadphase_view.hpp"
#include "collide/registry.hpp"
#include "tooling/scenes.hpp"

namespace collide {
namespace {

// A million bodies in Release; fewer under the sanitizers, where building them is slow.
#if defined(__SANITIZE_ADDRESS__)  // GCC
constexpr std::size_t kMany = 100'000;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)  // Clang
constexpr std::size_t kMany = 100'000;
#else
constexpr std::size_t kMany = 1'000'000;
#endif
#else
constexpr std::size_t kMany = 1'000'000;
#endif

template <int D>
std::vector<Aabb<D>> boxes_of(const Scene<D>& s) {
    std::vector<Aabb<D>> boxes(s.bodies.size());
    for (std::size_t i = 0; i < boxes.size(); ++i)
        boxes[i] = Aabb<D>::around(s.bodies.pos[i], s.bodies.radius[i]);
    return boxes;
}

// Primitives (lines, box edges, fill rectangles) per quadrant of `view`, by their centres.
std::array<std::size_t, 4> per_quadrant(const DebugDraw<2>& dd, const Aabb<2>& view) {
    std::array<std::size_t, 4> count{};
    const Vec<2> mid = view.center();
    const auto add = [&](const Vec<2>& c, std::size_t n) {
        count[(c.x >= mid.x ? 1 : 0) + (c.y >= mid.y ? 2 : 0)] += n;
    };
    for (const auto& l : dd.lines) add((l.a + l.b) * 0.5f, 1);
    for (const auto& b : dd.boxes) add(b.box.center(), 4);
    for (const auto& f : dd.fills) add(f.box.center(), 4);
    return count;
}

std::size_t cost(const DebugDraw<2>& dd) {
    return dd.lines.size() + 4 * (dd.boxes.size() + dd.fills.size());
}

// The morton-cells structure of a million uniform bodies (built once), drawn for a
// 720-pixel-high view of the whole world, without and with the size-based level of detail.
TEST(OverlayLod, MillionBodiesStayUnderTheBudgetOverEveryQuadrant) {
    const Scene<2> scene = make_scene<2>("uniform", kMany, 1);
    const Aabb<2>& world = scene.settings.bounds;
    const std::vector<Aabb<2>> boxes = boxes_of(scene);
    const std::vector<std::uint8_t> is_static(boxes.size(), 0);
    auto bp = make_broadphase<2>("morton-cells");
    PairList pairs;
    bp->update(boxes, is_static, pairs);
    const auto draw = [&](bool lod) {
        DebugDraw<2> dd;
        dd.view = world;
        dd.clip = world;
        dd.pixel = lod ? world.largest_side() / 720.0f : 0.0f;
        Overlays<2> which;
        which.flags.structure = true;
        collide::view_of(*bp).draw(dd, which);
        dd.finish();
        return dd;
    };

    // Without the level of detail every cell asks to be drawn, far over the budget: the
    // thinning keeps it under and spreads what it keeps over the whole view.
    const DebugDraw<2> all = draw(false);
    EXPECT_LE(cost(all), all.budget);
    EXPECT_LT(all.lod.kept, all.lod.offered);
    EXPECT_NE(all.lod_note().find("showing 1 in"), std::string::npos) << all.lod_note();
    const auto q = per_quadrant(all, world);
    const std::size_t most = *std::max_element(q.begin(), q.end());
    for (std::size_t i = 0; i < 4; ++i) {
        // Uniform bodies: each quadrant holds about a quarter of what is drawn.
        EXPECT_GT(q[i], most / 2) << "quadrant " << i << ": " << q[0] << " " << q[1] << " " << q[2]
                                  << " " << q[3];
    }

    // With it, cells a pixel wide become the density tint: under the budget, every quadrant
    // tinted, nothing outside the world.
    const DebugDraw<2> lod = draw(true);
    EXPECT_LE(cost(lod), lod.budget);
    EXPECT_GT(lod.lod.tinted, 0u);
    EXPECT_GT(lod.lod.tint_max, 0.0f);
    for (std::size_t n : per_quadrant(lod, world)) EXPECT_GT(n, 0u);
    for (const auto& f : lod.fills) {
        EXPECT_GE(f.box.lo.x, world.lo.x - 1e-3f);
        EXPECT_LE(f.box.hi.y, world.hi.y + 1e-3f);
    }
}

// The enneatree's centre children and the spatial hash's cells reach past the world; what
// is drawn of them stays inside it.
template <int D>
void expect_inside_world(const char* name) {
    const Scene<D> s = make_scene<D>("uniform", 2000, 3);
    const std::vector<Aabb<D>> boxes = boxes_of(s);
    const std::vector<std::uint8_t> is_static(boxes.size(), 0);
    auto bp = make_broadphase<D>(name);
    PairList pairs;
    bp->update(boxes, is_static, pairs);
    DebugDraw<D> dd;
    dd.view = {s.settings.bounds.lo - 100.0f, s.settings.bounds.hi + 100.0f};
    dd.clip = s.settings.bounds;
    dd.pixel = dd.view.largest_side() / 720.0f;
    Overlays<D> which;
    which.flags.structure = true;
    collide::view_of(*bp).draw(dd, which);
    dd.finish();
    ASSERT_FALSE(dd.boxes.empty() && dd.fills.empty()) << name;
    const auto inside = [&](const Aabb<D>& b) {
        for (int k = 0; k < D; ++k) {
            if (b.lo[k] < s.settings.bounds.lo[k] - 1e-3f) return false;
            if (b.hi[k] > s.settings.bounds.hi[k] + 1e-3f) return false;
        }
        return true;
    };
    for (const auto& b : dd.boxes) ASSERT_TRUE(inside(b.box)) << name << " " << D << "D";
    for (const auto& f : dd.fills) ASSERT_TRUE(inside(f.box)) << name << " " << D << "D";
}

TEST(OverlayLod, StructureStaysInsideTheWorld) {
    for (const char* name : {"enneatree", "spatial-hash"}) {
        expect_inside_world<2>(name);
        expect_inside_world<3>(name);
    }
}

// The Selected body panel shows what each algorithm's structure holds for the body; every
// algorithm with a structure has something to say (sort-and-sweep said nothing: it now gives
// the interval, its rank and its sweep window). Brute force keeps no structure.
template <int D>
void every_structure_describes_a_body() {
    const Scene<D> scene = make_scene<D>("clusters", 500, 2);
    const std::vector<Aabb<D>> boxes = boxes_of(scene);
    const std::vector<std::uint8_t> is_static(boxes.size(), 0);
    for (const BroadPhaseEntry& e : broadphases()) {
        auto bp = e.make<D>();
        if (bp == nullptr || e.name == kReferenceBroadPhase) continue;
        PairList pairs;
        bp->update(boxes, is_static, pairs);
        EXPECT_FALSE(view_of(*bp).describe(7).empty()) << e.name << " in " << D << "D";
    }
}

TEST(BroadPhaseView, EveryStructureDescribesABody2D) { every_structure_describes_a_body<2>(); }
TEST(BroadPhaseView, EveryStructureDescribesABody3D) { every_structure_describes_a_body<3>(); }

}  // namespace
}  // namespace collide
