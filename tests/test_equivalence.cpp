// Every registry entry must report exactly the pairs of the reference double loop: on
// every scene, in both dimensions, for several seeds and sizes, over moving frames, and on
// the degenerate inputs. query() is checked against a linear scan.
#include <cmath>
#include <limits>
#include <set>

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include "collide/gpu/catalog.hpp"
#include "test_support.hpp"
#include "tooling/ballistic.hpp"
#include "tooling/random.hpp"
#include "tooling/scenes.hpp"

namespace collide {
namespace {

using testing::reference_pairs;

// Every update of the suites below is followed by the algorithm's own invariant check, so a
// structure that is wrong but happens to give the right pairs still fails.
template <int D, typename Boxes, typename Statics>
void update_checked(BroadPhase<D>& bp, const Boxes& boxes, const Statics& is_static,
                    PairList& out) {
    bp.update(boxes, is_static, out);
    try {
        bp.validate();
    } catch (const InvariantError& e) {
        ADD_FAILURE() << e.what();
    }
}

struct Case {
    std::string algorithm;
    int dim;
    std::string scene;
};

// Printed in test output instead of the raw bytes of the struct.
void PrintTo(const Case& c, std::ostream* os) {
    *os << c.algorithm << " " << c.dim << "D " << c.scene;
}

std::vector<Case> all_cases() {
    std::vector<Case> out;
    for (const BroadPhaseEntry& e : all_broadphases()) {
        for (int dim : {2, 3}) {
            if (!e.supports(dim)) continue;
            for (const SceneEntry& s : scene_list())
                out.push_back({std::string(e.name), dim, std::string(s.name)});
        }
    }
    return out;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    std::string name =
        info.param.algorithm + "_" + std::to_string(info.param.dim) + "d_" + info.param.scene;
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

// Checks query() against a linear scan for a few regions around the boxes.
template <int D>
void expect_queries_match(const BroadPhase<D>& bp, const std::vector<Aabb<D>>& boxes, Rng& rng) {
    if (boxes.empty()) return;
    Aabb<D> all = Aabb<D>::empty();
    for (const auto& b : boxes) all.grow(b);
    std::vector<BodyId> got;
    for (int q = 0; q < 4; ++q) {
        const Vec<D> c = rng.in_box<D>(all.lo, all.hi);
        const Vec<D> half = (all.hi - all.lo) * rng.uniform(0.0f, 0.3f);
        const Aabb<D> region{c - half, c + half};
        bp.query(region, got);
        std::sort(got.begin(), got.end());
        std::vector<BodyId> want;
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            if (boxes[i].overlaps(region)) want.push_back(BodyId(i));
        }
        ASSERT_EQ(got, want) << "query " << q;
    }
}

template <int D>
void run_scene(const Case& c) {
    const bool gpu = runs_on_gpu(c.algorithm);
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        for (std::size_t n : {0u, 1u, 2u, 100u, 2000u}) {
            // Moving frames: slow, then fast, so persistent structures see both coherence
            // and bodies jumping several cells.
            BallisticMotion<D> motion(make_scene<D>(c.scene, n, seed), seed == 3 ? 2.0f : 0.2f,
                                      seed);
            auto bp = make_any_broadphase<D>(c.algorithm);
            ASSERT_TRUE(bp);
            PairList got;
            Rng rng(seed);
            for (int frame = 0; frame < 4; ++frame) {
                update_checked(*bp, motion.boxes(), motion.is_static(), got);
                const auto diff = pair_set_difference(
                    got, reference_pairs<D>(motion.boxes(), motion.is_static()));
                ASSERT_FALSE(diff)
                    << "seed " << seed << " n " << n << " frame " << frame << ": " << *diff;
                if (gpu) {
                    // Sorted by (a, b), so replays are bit-identical: the reference's order.
                    ASSERT_EQ(got, reference_pairs<D>(motion.boxes(), motion.is_static()))
                        << "seed " << seed << " n " << n << " frame " << frame;
                }
                expect_queries_match<D>(*bp, motion.boxes(), rng);
                motion.advance();
            }
        }
    }
}

class EveryScene : public ::testing::TestWithParam<Case> {};

TEST_P(EveryScene, MatchesReference) {
    SKIP_WITHOUT_GPU(GetParam().algorithm);
    if (GetParam().dim == 2) {
        run_scene<2>(GetParam());
    } else {
        run_scene<3>(GetParam());
    }
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryScene, ::testing::ValuesIn(all_cases()), case_name);

// ---------------------------------------------------------------------------------------
// Degenerate inputs, hand-built.

template <int D>
struct BoxSet {
    std::string name;
    std::vector<Aabb<D>> boxes;
    std::vector<std::uint8_t> is_static;
};

template <int D>
std::vector<BoxSet<D>> degenerate_sets() {
    std::vector<BoxSet<D>> sets;
    auto add = [&](std::string name, std::vector<Aabb<D>> boxes,
                   std::vector<std::uint8_t> st = {}) {
        if (st.empty()) st.assign(boxes.size(), 0);
        sets.push_back({std::move(name), std::move(boxes), std::move(st)});
    };
    Rng rng(7);
    add("empty", {});
    add("one body", {Aabb<D>::around(Vec<D>(3.0f), 1.0f)});

    std::vector<Aabb<D>> v;
    for (int i = 0; i < 300; ++i)
        v.push_back(Aabb<D>::around(Vec<D>(5.0f), rng.uniform(0.1f, 1.0f)));
    add("all at one point", v);

    v.assign(200, Aabb<D>::around(Vec<D>(2.0f), 0.5f));
    add("identical boxes", v);

    // A lattice of unit boxes at integer positions: neighbours touch on faces, edges and
    // corners only (closed intervals mean they all overlap).
    v.clear();
    const int side = D == 2 ? 12 : 6;
    for (int i = 0; i < side; ++i) {
        for (int j = 0; j < side; ++j) {
            for (int k = 0; k < (D == 3 ? side : 1); ++k) {
                Vec<D> lo(static_cast<float>(i));
                lo[1] = static_cast<float>(j);
                if constexpr (D == 3) lo[2] = static_cast<float>(k);
                v.push_back({lo, lo + Vec<D>(1.0f)});
            }
        }
    }
    add("touching lattice", v);

    v.clear();
    for (int i = 0; i < 300; ++i)
        v.push_back(Aabb<D>::around(Vec<D>(std::floor(rng.uniform(0.0f, 8.0f))), 0.0f));
    add("zero radius, coincident points", v);

    v.clear();
    for (int i = 0; i < 300; ++i) {
        Vec<D> p = rng.in_box<D>(Vec<D>(-1e4f), Vec<D>(1e4f));
        if (i % 3 == 0) p *= 100.0f;  // far outside any world
        v.push_back(Aabb<D>::around(p, rng.uniform(0.0f, 500.0f)));
    }
    add("outside the world, negative and huge", v);

    v.clear();
    v.push_back(Aabb<D>::around(Vec<D>(0.0f), 1e5f));  // one box around everything
    for (int i = 0; i < 300; ++i)
        v.push_back(Aabb<D>::around(rng.in_box<D>(Vec<D>(0.0f), Vec<D>(50.0f)), 1.0f));
    add("one giant box", v);

    add("giants: Pareto radii up to three times the world", testing::giant_bodies<D>(2000, 5));

    v.clear();
    std::vector<std::uint8_t> st;
    for (int i = 0; i < 400; ++i) {
        v.push_back(
            Aabb<D>::around(rng.in_box<D>(Vec<D>(0.0f), Vec<D>(20.0f)), rng.uniform(0.2f, 1.5f)));
        st.push_back(i % 2);
    }
    add("half static", v, st);
    st.assign(v.size(), 1);
    add("all static", v, st);
    return sets;
}

class Degenerate : public ::testing::TestWithParam<std::pair<std::string, int>> {};

template <int D>
void run_degenerate(const std::string& algorithm) {
    Rng rng(11);
    // One instance through every set as well as a fresh one per set: a persistent structure
    // must cope with n and the static flags changing between updates.
    auto reused = make_any_broadphase<D>(algorithm);
    for (const BoxSet<D>& set : degenerate_sets<D>()) {
        PairList got;
        update_checked(*reused, set.boxes, set.is_static, got);
        const auto diff_reused =
            pair_set_difference(got, reference_pairs<D>(set.boxes, set.is_static));
        ASSERT_FALSE(diff_reused) << set.name << ", reused instance: " << *diff_reused;

        auto bp = make_any_broadphase<D>(algorithm);
        // Twice: a persistent structure must also be right on its second update.
        for (int round = 0; round < 2; ++round) {
            update_checked(*bp, set.boxes, set.is_static, got);
            const auto diff =
                pair_set_difference(got, reference_pairs<D>(set.boxes, set.is_static));
            ASSERT_FALSE(diff) << set.name << ", update " << round << ": " << *diff;
        }
        expect_queries_match<D>(*bp, set.boxes, rng);
    }
}

TEST_P(Degenerate, MatchesReference) {
    SKIP_WITHOUT_GPU(GetParam().first);
    if (GetParam().second == 2) {
        run_degenerate<2>(GetParam().first);
    } else {
        run_degenerate<3>(GetParam().first);
    }
}

std::vector<std::pair<std::string, int>> algorithms_by_dim() {
    std::vector<std::pair<std::string, int>> out;
    for (const BroadPhaseEntry& e : all_broadphases()) {
        for (int dim : {2, 3}) {
            if (e.supports(dim)) out.emplace_back(std::string(e.name), dim);
        }
    }
    return out;
}

std::string algorithm_dim_name(const ::testing::TestParamInfo<std::pair<std::string, int>>& info) {
    std::string name = info.param.first + "_" + std::to_string(info.param.second) + "d";
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

INSTANTIATE_TEST_SUITE_P(Registry, Degenerate, ::testing::ValuesIn(algorithms_by_dim()),
                         algorithm_dim_name);

// Boxes with NaN or infinite sides (a body the physics lost): the pairs are not defined, but
// every algorithm must come back with pairs of bodies that exist, and a structure that its
// own validate() accepts (debug builds call it on every update). The centred interval tree
// queued the same range forever on NaN centres.
template <int D>
void run_non_finite(const std::string& algorithm) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    Rng rng(11);
    for (const int kind : {0, 1, 2}) {
        std::vector<Aabb<D>> boxes;
        for (int i = 0; i < 200; ++i) {
            Aabb<D> b = Aabb<D>::around(rng.in_box<D>(Vec<D>(0.0f), Vec<D>(20.0f)), 0.5f);
            if (kind == 0 || (kind == 1 && i % 2 == 0)) b.lo = b.hi = Vec<D>(nan);
            if (kind == 2 && i % 3 == 0) b.hi[0] = inf;
            boxes.push_back(b);
        }
        const std::vector<std::uint8_t> is_static(boxes.size(), 0);
        auto bp = make_any_broadphase<D>(algorithm);
        PairList got;
        for (int round = 0; round < 2; ++round) {
            bp->update(boxes, is_static, got);
            ASSERT_NO_THROW(bp->validate()) << "kind " << kind << ", round " << round;
            for (const Pair& p : got) {
                ASSERT_LT(p.a, p.b) << "kind " << kind;
                ASSERT_LT(p.b, boxes.size()) << "kind " << kind;
            }
        }
    }
}

class NonFinite : public ::testing::TestWithParam<std::pair<std::string, int>> {};

TEST_P(NonFinite, ComesBackWithBodiesThatExist) {
    SKIP_WITHOUT_GPU(GetParam().first);
    if (GetParam().second == 2) {
        run_non_finite<2>(GetParam().first);
    } else {
        run_non_finite<3>(GetParam().first);
    }
}

INSTANTIATE_TEST_SUITE_P(Registry, NonFinite, ::testing::ValuesIn(algorithms_by_dim()),
                         algorithm_dim_name);

// ---------------------------------------------------------------------------------------
// Toggles: an algorithm's improvements are switchable (the bench measures each against the
// plain method), so every setting must be exact too: each toggle flipped alone, all off,
// and the settings changed between updates of one instance.

template <int D>
std::vector<std::vector<float>> toggle_settings(BroadPhase<D>& bp) {
    std::vector<float> defaults;
    std::vector<std::size_t> toggles;
    for (std::size_t i = 0; i < bp.params().size(); ++i) {
        defaults.push_back(bp.params()[i].value);
        if (bp.params()[i].kind == Param::Kind::kToggle) toggles.push_back(i);
    }
    std::vector<std::vector<float>> out;
    std::vector<float> plain = defaults;
    for (std::size_t i : toggles) {
        out.push_back(defaults);
        out.back()[i] = defaults[i] != 0.0f ? 0.0f : 1.0f;
        plain[i] = 0.0f;
    }
    if (toggles.size() > 1) out.push_back(plain);
    return out;
}

template <int D>
void apply(BroadPhase<D>& bp, const std::vector<float>& values) {
    for (std::size_t i = 0; i < values.size(); ++i) bp.params()[i].value = values[i];
}

template <int D>
bool has_toggles(BroadPhase<D>& bp) {
    return std::any_of(bp.params().begin(), bp.params().end(),
                       [](const Param& p) { return p.kind == Param::Kind::kToggle; });
}

// The CPU rows with at least one toggle (built here, which costs nothing; the GPU rows
// would open a GL context in every test process, and have none: GpuRowsHaveNoToggles).
std::vector<std::pair<std::string, int>> algorithms_with_toggles() {
    std::vector<std::pair<std::string, int>> out;
    for (const auto& [name, dim] : algorithms_by_dim()) {
        if (runs_on_gpu(name)) continue;
        const bool toggles = dim == 2 ? has_toggles<2>(*make_any_broadphase<2>(name))
                                      : has_toggles<3>(*make_any_broadphase<3>(name));
        if (toggles) out.emplace_back(name, dim);
    }
    return out;
}

template <int D>
void run_toggles(const std::string& algorithm) {
    auto reused = make_any_broadphase<D>(algorithm);
    const auto settings = toggle_settings<D>(*reused);
    ASSERT_FALSE(settings.empty()) << algorithm << " has no toggles";
    PairList got;
    std::size_t turn = 0;
    for (const std::vector<float>& values : settings) {
        for (const char* scene : {"uniform", "powerlaw", "centerline", "clusters"}) {
            BallisticMotion<D> motion(make_scene<D>(scene, 600, 4), 0.5f, 4);
            auto bp = make_any_broadphase<D>(algorithm);
            apply<D>(*bp, values);
            for (int frame = 0; frame < 3; ++frame) {
                const PairList want = reference_pairs<D>(motion.boxes(), motion.is_static());
                update_checked(*bp, motion.boxes(), motion.is_static(), got);
                ASSERT_FALSE(pair_set_difference(got, want)) << scene << " frame " << frame;
                // The reused instance changes setting every update.
                apply<D>(*reused, settings[turn++ % settings.size()]);
                update_checked(*reused, motion.boxes(), motion.is_static(), got);
                ASSERT_FALSE(pair_set_difference(got, want)) << scene << ", reused";
                motion.advance();
            }
        }
        for (const BoxSet<D>& set : degenerate_sets<D>()) {
            auto bp = make_any_broadphase<D>(algorithm);
            apply<D>(*bp, values);
            update_checked(*bp, set.boxes, set.is_static, got);
            ASSERT_FALSE(
                pair_set_difference(got, reference_pairs<D>(set.boxes, set.is_static)))
                << set.name;
        }
    }
}

class Toggles : public Degenerate {};

TEST_P(Toggles, EverySettingMatchesReference) {
    if (GetParam().second == 2) {
        run_toggles<2>(GetParam().first);
    } else {
        run_toggles<3>(GetParam().first);
    }
}

INSTANTIATE_TEST_SUITE_P(Registry, Toggles, ::testing::ValuesIn(algorithms_with_toggles()),
                         algorithm_dim_name);

// The toggle suite leaves the GPU rows out on the grounds that they have no toggles.
TEST(Registry, GpuRowsHaveNoToggles) {
    for (const BroadPhaseEntry& e : gpu_broadphases()) {
        SKIP_WITHOUT_GPU(std::string(e.name));
        EXPECT_FALSE(has_toggles<2>(*make_any_broadphase<2>(e.name))) << e.name;
        EXPECT_FALSE(has_toggles<3>(*make_any_broadphase<3>(e.name))) << e.name;
    }
}

// Every tunable's default and range are of its kind, as the panel's sliders and checkboxes
// and the command lines' checks assume: whole numbers for a whole one, 0 or 1 for a toggle.
template <int D>
void expect_params_of_their_kind(const std::string& algorithm) {
    auto bp = make_any_broadphase<D>(algorithm);
    for (const Param& p : bp->params()) {
        SCOPED_TRACE(algorithm + " " + std::to_string(D) + "D '" + p.name + "'");
        EXPECT_LE(p.min, p.value);
        EXPECT_LE(p.value, p.max);
        switch (p.kind) {
            case Param::Kind::kWhole:
                for (const float v : {p.value, p.min, p.max}) EXPECT_EQ(v, std::trunc(v));
                break;
            case Param::Kind::kToggle:
                EXPECT_EQ(p.min, 0.0f);
                EXPECT_EQ(p.max, 1.0f);
                EXPECT_TRUE(p.value == 0.0f || p.value == 1.0f);
                break;
            case Param::Kind::kReal: break;
        }
    }
}

TEST(Registry, ParamsAreOfTheirKind) {
    for (const auto& [name, dim] : algorithms_by_dim()) {
        if (runs_on_gpu(name)) continue;
        dim == 2 ? expect_params_of_their_kind<2>(name) : expect_params_of_their_kind<3>(name);
    }
}

// An algorithm reads its tunables by kind; a read of the wrong kind (a toggle as a number,
// through the wrong index) stops a debug build.
TEST(Param, ReadOfTheWrongKindFailsInDebugBuilds) {
    const Param toggle = Param::toggle("t", true);
    const Param whole = Param::whole("w", 3, 0, 8);
    const Param real = Param::real("r", 0.5f, 0, 1);
    EXPECT_TRUE(toggle.is_on());
    EXPECT_EQ(whole.as_whole(), 3);
    EXPECT_EQ(real.as_real(), 0.5f);
    // Earlier tests leave oneTBB's workers running: the child re-runs the binary, not fork().
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEBUG_DEATH(static_cast<void>(toggle.as_real()), "kind");
    EXPECT_DEBUG_DEATH(static_cast<void>(real.as_whole()), "kind");
    EXPECT_DEBUG_DEATH(static_cast<void>(whole.is_on()), "kind");
}

// ---------------------------------------------------------------------------------------
// Threads: the parallel passes split work in chunks (several at this n); one and two threads
// must both be exact. (The order of the list may differ: the world sorts its contacts.)

template <int D>
void run_threads(const std::string& algorithm) {
    for (const char* scene : {"uniform", "powerlaw"}) {
        BallisticMotion<D> motion(make_scene<D>(scene, 5000, 5), 0.5f, 5);
        auto one = make_any_broadphase<D>(algorithm);
        auto two = make_any_broadphase<D>(algorithm);
        PairList got_one, got_two;
        for (int frame = 0; frame < 3; ++frame) {
            // The threads are handed in as the arena the update runs on.
            tbb::task_arena(1).execute(
                [&] { update_checked(*one, motion.boxes(), motion.is_static(), got_one); });
            tbb::task_arena(2).execute(
                [&] { update_checked(*two, motion.boxes(), motion.is_static(), got_two); });
            const PairList want = reference_pairs<D>(motion.boxes(), motion.is_static());
            ASSERT_FALSE(pair_set_difference(got_one, want)) << scene << " frame " << frame;
            ASSERT_FALSE(pair_set_difference(got_two, want)) << scene << " frame " << frame;
            motion.advance();
        }
    }
}

class Threads : public Degenerate {};

TEST_P(Threads, OneAndTwoAreExact) {
    SKIP_WITHOUT_GPU(GetParam().first);
    if (GetParam().second == 2) {
        run_threads<2>(GetParam().first);
    } else {
        run_threads<3>(GetParam().first);
    }
}

INSTANTIATE_TEST_SUITE_P(Registry, Threads, ::testing::ValuesIn(algorithms_by_dim()),
                         algorithm_dim_name);

TEST(Registry, NamesAreUniqueAndEveryEntryBuilds) {
    std::set<std::string_view> names;
    for (const BroadPhaseEntry& e : all_broadphases()) {
        EXPECT_TRUE(names.insert(e.name).second) << e.name;
        EXPECT_TRUE(e.in_2d || e.in_3d) << e.name;
        EXPECT_EQ(e.in_2d, make_any_broadphase<2>(e.name) != nullptr) << e.name;
        EXPECT_EQ(e.in_3d, make_any_broadphase<3>(e.name) != nullptr) << e.name;
    }
    EXPECT_EQ(find_any_broadphase("no-such-thing"), nullptr);
    EXPECT_FALSE(make_any_broadphase<2>("no-such-thing"));
}

}  // namespace
}  // namespace collide
