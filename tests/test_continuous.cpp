// Continuous collision: the time-of-impact test against sampled motion, swept steps that
// stop bullets where brute discrete steps let them through, and the tunnelling count that
// tells the two apart.
#include <cmath>
#include <optional>

#include <gtest/gtest.h>

#include "collide/narrowphase.hpp"
#include "collide/registry.hpp"
#include "collide/tunnelling_check.hpp"
#include "collide/world.hpp"
#include "tooling/random.hpp"
#include "tooling/scenes.hpp"

namespace collide {
namespace {

template <int D>
Vec<D> random_point(Rng& rng, float side) {
    Vec<D> p;
    for (int k = 0; k < D; ++k) p[k] = rng.uniform(0.0f, side);
    return p;
}

template <int D>
float distance_at(float t, const Vec<D>& a0, const Vec<D>& a1, const Vec<D>& b0, const Vec<D>& b1) {
    return glm::length((b0 + t * (b1 - b0)) - (a0 + t * (a1 - a0)));
}

// The analytic first touch against the motion sampled finely: no sample before it touches
// (beyond rounding), and the touch is real.
template <int D>
void toi_matches_sampling() {
    Rng rng(7);
    int hits = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        const Vec<D> a0 = random_point<D>(rng, 10), a1 = random_point<D>(rng, 10);
        const Vec<D> b0 = random_point<D>(rng, 10), b1 = random_point<D>(rng, 10);
        const float ra = rng.uniform(0.1f, 1.5f), rb = rng.uniform(0.1f, 1.5f);
        const float reach = ra + rb;
        if (distance_at<D>(0, a0, a1, b0, b1) <= reach) continue;  // the other branch, below
        const std::optional<float> t = time_of_impact<D>(a0, a1, ra, b0, b1, rb);
        constexpr int kSamples = 4000;
        std::optional<float> first;
        for (int s = 0; s <= kSamples && !first; ++s) {
            const float u = static_cast<float>(s) / kSamples;
            if (distance_at<D>(u, a0, a1, b0, b1) <= reach) first = u;
        }
        const float closest = closest_approach<D>(a0, a1, b0, b1);
        if (!t) {
            EXPECT_GT(closest, reach * (1 - 1e-4f)) << "trial " << trial << ": missed a touch";
            continue;
        }
        ++hits;
        EXPECT_NEAR(distance_at<D>(*t, a0, a1, b0, b1), reach, 1e-3f * reach) << "trial " << trial;
        EXPECT_LE(closest, reach * (1 + 1e-4f)) << "trial " << trial;
        if (first) {
            EXPECT_LE(*t, *first + 1e-4f) << "trial " << trial << ": not the first touch";
        }
    }
    EXPECT_GT(hits, 100) << "the placements must produce impacts to mean anything";
}

TEST(TimeOfImpact, MatchesSampledMotion2D) {
    toi_matches_sampling<2>();
}
TEST(TimeOfImpact, MatchesSampledMotion3D) {
    toi_matches_sampling<3>();
}

TEST(TimeOfImpact, HeadOn) {
    const auto t = time_of_impact<2>({0, 0}, {10, 0}, 0.5f, {5, 0}, {5, 0}, 0.5f);
    ASSERT_TRUE(t);
    EXPECT_NEAR(*t, 0.4f, 1e-6f);
    // Moving apart, or passing wide: no impact.
    EXPECT_FALSE(time_of_impact<2>({0, 0}, {-10, 0}, 0.5f, {5, 0}, {5, 0}, 0.5f));
    EXPECT_FALSE(time_of_impact<2>({0, 0}, {10, 0}, 0.5f, {5, 1.5f}, {5, 1.5f}, 0.4f));
    // Stopping short of the other body: no impact within the step.
    EXPECT_FALSE(time_of_impact<2>({0, 0}, {3.9f, 0}, 0.5f, {5, 0}, {5, 0}, 0.5f));
}

// Bodies touching at the start may sink in by the slop; past it, it is an impact.
TEST(TimeOfImpact, TouchingAtTheStartSinksOnlyBySlop) {
    const float slop = kImpactSlop * 0.5f;
    const auto t = time_of_impact<2>({0, 0}, {4, 0}, 0.5f, {1, 0}, {1, 0}, 0.5f);
    ASSERT_TRUE(t);
    EXPECT_NEAR(*t * 4.0f, slop, 1e-5f);
    EXPECT_FALSE(time_of_impact<2>({0, 0}, {-4, 0}, 0.5f, {1, 0}, {1, 0}, 0.5f));
}

template <int D>
World<D> bullet_and_wall(bool swept) {
    Bodies<D> bodies;
    Vec<D> at(5.0f), wall(5.0f), v(0.0f);
    at[0] = 1.0f;
    wall[0] = 5.0f;
    v[0] = 600.0f;  // 10 units per step: through the 2-unit-wide body in one step
    bodies.add(at, v, 0.1f);
    bodies.add(wall, Vec<D>(0.0f), 1.0f, true);
    WorldSettings<D> s;
    s.bounds = {Vec<D>(0.0f), Vec<D>(20.0f)};
    s.swept = swept;
    s.count_tunnelling = true;
    World<D> w(s, bodies, make_broadphase<D>("sort-and-sweep"));
    return w;
}

template <int D>
void bullet_stops_only_when_swept() {
    World<D> discrete = bullet_and_wall<D>(false);
    TunnellingCheck<D> discrete_check(make_broadphase<D>("sort-and-sweep"));
    step_counting_tunnelling(discrete, discrete_check);
    EXPECT_GT(discrete.bodies().pos[0][0], 6.1f) << "the discrete step lets it through";
    EXPECT_EQ(discrete_check.count().last_step, 1u);

    World<D> swept = bullet_and_wall<D>(true);
    TunnellingCheck<D> swept_check(make_broadphase<D>("sort-and-sweep"));
    step_counting_tunnelling(swept, swept_check);
    EXPECT_EQ(swept.impacts(), 1u);
    EXPECT_EQ(swept_check.count().last_step, 0u);
    EXPECT_NEAR(swept.bodies().pos[0][0], 5.0f - 1.1f, 1e-3f) << "stopped where it touches";
    EXPECT_LT(swept.bodies().vel[0][0], 0.0f) << "and bounced";
    // The box the broad phase saw covers the whole motion.
    EXPECT_LE(swept.boxes()[0].lo[0], 1.0f - 0.1f);
    EXPECT_GE(swept.boxes()[0].hi[0], 11.0f + 0.1f);
}

TEST(Swept, BulletStopsOnlyWhenSwept2D) {
    bullet_stops_only_when_swept<2>();
}
TEST(Swept, BulletStopsOnlyWhenSwept3D) {
    bullet_stops_only_when_swept<3>();
}

template <int D>
std::uint64_t tunnelled_in_bullets(bool swept, const std::string& algorithm) {
    Scene<D> s = make_scene<D>("bullets", D == 2 ? 3000 : 1500, 2);
    s.settings.swept = swept;
    World<D> w(s.settings, std::move(s.bodies), make_broadphase<D>(algorithm));
    EXPECT_TRUE(w.settings().count_tunnelling) << "the bullets scene counts by itself";
    // The sorted grid sweeps the paths at a third of sort-and-sweep's cost under ASan.
    TunnellingCheck<D> check(make_broadphase<D>("sorted-grid"));
    // Unswept, sort-and-sweep lets about 10 pairs through in 60 steps (5 in 30, 18-21 in 120).
    for (int i = 0; i < 60; ++i) step_counting_tunnelling(w, check);
    return check.count().total;
}

template <int D>
void bullets_tunnel_only_without_sweeping() {
    EXPECT_GT(tunnelled_in_bullets<D>(false, "sort-and-sweep"), 0u);
    for (const BroadPhaseEntry& e : broadphases()) {
        if (!e.supports(D) || e.name == "brute-force") continue;
        EXPECT_EQ(tunnelled_in_bullets<D>(true, std::string(e.name)), 0u) << e.name;
    }
}

TEST(Swept, BulletsTunnelOnlyWithoutSweeping2D) {
    bullets_tunnel_only_without_sweeping<2>();
}
TEST(Swept, BulletsTunnelOnlyWithoutSweeping3D) {
    bullets_tunnel_only_without_sweeping<3>();
}

// Swept steps must not freeze or sink a resting pile.
TEST(Swept, RainStillSettles) {
    Scene<2> s = make_scene<2>("rain", 400, 3);
    s.settings.swept = true;
    World<2> w(s.settings, std::move(s.bodies), make_broadphase<2>("sort-and-sweep"));
    for (int i = 0; i < 1800; ++i) w.step();
    float max_speed = 0, max_overlap = 0;
    for (const auto& v : w.bodies().vel) max_speed = std::max(max_speed, glm::length(v));
    for (const Contact<2>& c : w.contacts()) {
        const auto& r = w.bodies().radius;
        max_overlap = std::max(max_overlap, c.depth / std::min(r[c.a], r[c.b]));
    }
    EXPECT_LT(max_speed, 0.2f);
    EXPECT_LT(max_overlap, 0.05f);
    // Settled, not frozen in the air: the highest body is low in the world.
    float top = 0;
    for (const auto& p : w.bodies().pos) top = std::max(top, p.y);
    EXPECT_LT(top, 0.8f * w.settings().bounds.hi.y);
}

TEST(Swept, PredictedImpact) {
    Bodies<2> bodies;
    bodies.add({2, 5}, {1, 0}, 0.5f);
    bodies.add({8, 5}, {-1, 0}, 0.5f);
    bodies.add({2, 9}, {0, 0}, 0.5f);
    WorldSettings<2> s;
    s.bounds = {{0, 0}, {10, 10}};
    World<2> w(s, bodies, make_broadphase<2>("sort-and-sweep"));
    const auto hit = w.predict_impact(0, 5.0f);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->other, 1u);
    EXPECT_NEAR(hit->seconds, 2.5f, 1e-4f);
    EXPECT_NEAR(hit->point.x, 5.0f, 1e-4f);
    EXPECT_FALSE(w.predict_impact(0, 2.0f)) << "beyond the horizon";
    EXPECT_FALSE(w.predict_impact(2, 5.0f)) << "a still body nobody reaches";
}

}  // namespace
}  // namespace collide
