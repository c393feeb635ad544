// Implicit bodies: one-metaball spheres against the analytic sphere-sphere contact, the
// signature never changing a contact, refined vertices on the surface (and closed meshes),
// sound local boxes and signatures, and refusal of bad metaballs and poses.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "collide/implicit.hpp"
#include "tooling/random.hpp"

namespace collide {
namespace {

template <int D>
Pose<D> random_pose(Rng& rng, float spread);

template <>
Pose<2> random_pose<2>(Rng& rng, float spread) {
    Pose<2> p;
    p.position = Vec<2>(rng.uniform(-spread, spread), rng.uniform(-spread, spread));
    p.angle = rng.uniform(-3.2f, 3.2f);
    return p;
}

template <>
Pose<3> random_pose<3>(Rng& rng, float spread) {
    Pose<3> p;
    p.position = Vec<3>(rng.uniform(-spread, spread), rng.uniform(-spread, spread),
                        rng.uniform(-spread, spread));
    p.rotation = glm::normalize(glm::quat(rng.normal(), rng.normal(), rng.normal(), rng.normal()));
    return p;
}

// A pose that puts the local point `local` at the world point `world`.
template <int D>
Pose<D> pose_placing(Rng& rng, const Vec<D>& local, const Vec<D>& world) {
    Pose<D> p = random_pose<D>(rng, 0.0f);
    p.position = world - direction_to_world<D>(p, local);
    return p;
}

template <int D>
std::vector<Metaball<D>> random_blob(Rng& rng) {
    std::vector<Metaball<D>> balls;
    const int n = 2 + static_cast<int>(rng.uniform() * 4.0f);  // 2..5
    for (int i = 0; i < n; ++i) {
        Metaball<D> m;
        m.centre = rng.in_box<D>(Vec<D>(-1.2f), Vec<D>(1.2f));
        m.radius = rng.uniform(0.4f, 1.0f);
        const float powers[] = {1.5f, 2.0f, 3.0f, 4.0f};
        m.power = powers[static_cast<int>(rng.uniform() * 4.0f)];
        m.weight = (i > 0 && rng.uniform() < 0.25f) ? -0.6f : 1.0f;
        balls.push_back(m);
    }
    return balls;
}

template <int D>
ImplicitModelOptions options_for() {
    ImplicitModelOptions o;
    o.mesh.resolution = D == 2 ? 32 : 16;
    o.signature_resolution = D == 2 ? 32 : 16;
    return o;
}

// ---- two spheres against the analytic answer ----

template <int D>
void spheres_match_analytic() {
    Rng rng(D * 101 + 5);
    const float radii[] = {0.5f, 0.8f, 1.3f, 2.0f};
    std::map<int, std::shared_ptr<const ImplicitModel<D>>> models;
    std::map<int, Vec<D>> offsets;  // the metaball sits off the body origin: rotations matter
    for (int i = 0; i < 4; ++i) {
        const Vec<D> off = rng.in_box<D>(Vec<D>(-0.7f), Vec<D>(0.7f));
        offsets[i] = off;
        models[i] = ImplicitModel<D>::build({Metaball<D>{off, radii[i], i == 3 ? 3.0f : 2.0f, 1}},
                                            options_for<D>());
    }
    int contacts = 0, separate = 0, skipped_band = 0;
    float worst_depth = 0.0f, worst_angle = 0.0f;
    for (int trial = 0; trial < 1500; ++trial) {
        const int ia = static_cast<int>(rng.uniform() * 4),
                  ib = static_cast<int>(rng.uniform() * 4);
        const float ra = radii[ia], rb = radii[ib];
        const Vec<D> ca = rng.in_box<D>(Vec<D>(-3.0f), Vec<D>(3.0f));
        // From the smaller sphere's centre just outside the larger (deeper than that, the
        // deepest point is on the far side and the depth is |ra - rb| + |d|: see the header)
        // to well apart.
        const float dist = rng.uniform(std::min(ra, rb) + 0.05f, (ra + rb) * 1.25f);
        const Vec<D> cb = ca + dist * rng.direction<D>();
        const ImplicitBody<D> a{models[ia], pose_placing<D>(rng, offsets[ia], ca)};
        const ImplicitBody<D> b{models[ib], pose_placing<D>(rng, offsets[ib], cb)};
        const float analytic = ra + rb - dist;
        // The sampling band: the deepest vertex can miss the deepest point by half a cell's
        // arc on the smaller sphere; ~ h^2 / r_min, with h the cell size of the larger.
        const float h = 2.0f * std::max(ra, rb) / options_for<D>().mesh.resolution;
        const float band = std::max(h * h / std::min(ra, rb), 1e-3f);
        ImplicitCounters counters;
        const auto c = implicit_contact<D>(a, b, ContactOptions{true}, counters);
        if (std::abs(analytic) < band) {
            ++skipped_band;
            continue;
        }
        if (analytic < 0.0f) {
            ++separate;
            EXPECT_FALSE(c.has_value()) << "trial " << trial << " depth " << analytic;
            continue;
        }
        ++contacts;
        ASSERT_TRUE(c.has_value()) << "trial " << trial << " depth " << analytic;
        const float err = std::abs(c->depth - analytic);
        worst_depth = std::max(worst_depth, err / band);
        // The polish takes the deepest vertex to the true deepest point, so the depth is far
        // better than the sampling band (measured: under 3% of it).
        EXPECT_LE(err, 0.25f * band) << "trial " << trial << " ra " << ra << " rb " << rb;
        const Vec<D> expect = glm::normalize(cb - ca);
        const float angle = std::acos(std::min(1.0f, glm::dot(expect, c->normal)));
        worst_angle = std::max(worst_angle, angle);
        // Measured under 0.012 rad (bisection and polish tolerances).
        EXPECT_LE(angle, 0.03f) << "trial " << trial;
        EXPECT_NEAR(glm::length(c->normal), 1.0f, 1e-4f);
    }
    std::printf(
        "[%dD spheres] contacts %d, apart %d, in band %d; worst depth error %.3f of the "
        "band, worst normal angle %.4f rad\n",
        D, contacts, separate, skipped_band, worst_depth, worst_angle);
    EXPECT_GT(contacts, 300);
    EXPECT_GT(separate, 100);
}

TEST(Implicit, SpheresMatchAnalytic2D) {
    spheres_match_analytic<2>();
}
TEST(Implicit, SpheresMatchAnalytic3D) {
    spheres_match_analytic<3>();
}

// ---- the signature never changes a result ----

template <int D>
void signature_changes_nothing() {
    Rng rng(D * 7 + 11);
    std::vector<std::shared_ptr<const ImplicitModel<D>>> models;
    for (int i = 0; i < 8; ++i)
        models.push_back(ImplicitModel<D>::build(random_blob<D>(rng), options_for<D>()));
    ImplicitCounters with, without;
    int contacts = 0, apart = 0;
    for (int trial = 0; trial < 600; ++trial) {
        const ImplicitBody<D> a{models[trial % 8], random_pose<D>(rng, 2.5f)};
        const ImplicitBody<D> b{models[(trial / 8) % 8], random_pose<D>(rng, 2.5f)};
        if (!a.world_box().overlaps(b.world_box())) continue;  // what the broad phase passes
        const auto c1 = implicit_contact<D>(a, b, ContactOptions{true}, with);
        const auto c0 = implicit_contact<D>(a, b, ContactOptions{false}, without);
        ASSERT_EQ(c1.has_value(), c0.has_value()) << "trial " << trial;
        if (!c0) {
            ++apart;
            continue;
        }
        ++contacts;
        EXPECT_EQ(c1->depth, c0->depth) << "trial " << trial;
        EXPECT_EQ(c1->normal, c0->normal) << "trial " << trial;
        EXPECT_EQ(c1->point, c0->point) << "trial " << trial;
        EXPECT_EQ(c1->inside_points, c0->inside_points) << "trial " << trial;
        EXPECT_GE(c0->depth, 0.0f);
    }
    std::printf(
        "[%dD signature] contacts %d, apart %d; density evals %llu with, %llu without "
        "(%llu of %llu points skipped)\n",
        D, contacts, apart, (unsigned long long)with.density_evals,
        (unsigned long long)without.density_evals, (unsigned long long)with.points_skipped,
        (unsigned long long)with.points_tested);
    EXPECT_GT(contacts, 50);
    EXPECT_GT(apart, 20);
    EXPECT_LT(with.density_evals, without.density_evals);
    EXPECT_EQ(without.points_skipped, 0u);
    EXPECT_EQ(with.density_evals + with.points_skipped, with.points_tested);
}

TEST(Implicit, SignatureNeverChangesResult2D) {
    signature_changes_nothing<2>();
}
TEST(Implicit, SignatureNeverChangesResult3D) {
    signature_changes_nothing<3>();
}

// The runs the probe skips whole: every vertex in exactly one run, inside that run's box,
// and in 3D the runs compact patches (the probe skips little when runs span the shape).
template <int D>
void vertex_runs_cover_the_mesh() {
    Rng rng(D * 5 + 3);
    for (int s = 0; s < 8; ++s) {
        const auto model = ImplicitModel<D>::build(random_blob<D>(rng));
        const auto& vertices = model->mesh.vertices;
        const auto& order = model->vertex_order;
        constexpr std::size_t kRun = ImplicitModel<D>::kVertexRun;
        ASSERT_EQ(order.size(), vertices.size());
        ASSERT_EQ(model->vertex_runs.size(), (vertices.size() + kRun - 1) / kRun);
        std::vector<int> seen(vertices.size(), 0);
        for (std::size_t i = 0; i < order.size(); ++i) {
            ASSERT_LT(order[i], vertices.size());
            ++seen[order[i]];
            const Aabb<D>& run = model->vertex_runs[i / kRun];
            const Vec<D>& v = vertices[order[i]];
            ASSERT_TRUE(run.contains(v)) << "shape " << s << " vertex " << order[i];
        }
        EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<long>(seen.size()));
        // The mean side of a run's box, as a share of the shape's box, against runs of the
        // mesh's own order (cell order: slabs as wide as the shape). In 3D, at the default
        // resolution, about 0.18 against 0.23-0.35. In 2D a run is a quarter of the outline
        // whatever the order, so only the cover is checked there.
        const Aabb<D> shape_box = model->shape.local_box();
        const auto mean_side = [&](auto vertex_at) {
            double sum = 0.0;
            for (std::size_t begin = 0; begin < vertices.size(); begin += kRun) {
                Aabb<D> run = Aabb<D>::empty();
                for (std::size_t i = begin; i < std::min(begin + kRun, vertices.size()); ++i)
                    run.grow(Aabb<D>{vertex_at(i), vertex_at(i)});
                for (int k = 0; k < D; ++k) sum += run.size()[k] / shape_box.size()[k] / D;
            }
            return sum / static_cast<double>(model->vertex_runs.size());
        };
        if (D == 3) {
            const double runs = mean_side([&](std::size_t i) { return vertices[order[i]]; });
            const double cells = mean_side([&](std::size_t i) { return vertices[i]; });
            EXPECT_LT(runs, 0.8 * cells) << "shape " << s;
        }
    }
}

TEST(Implicit, VertexRunsCoverTheMesh2D) {
    vertex_runs_cover_the_mesh<2>();
}
TEST(Implicit, VertexRunsCoverTheMesh3D) {
    vertex_runs_cover_the_mesh<3>();
}

// A small body wholly inside a big one: only the small body's points see the contact.
template <int D>
void nested_bodies_touch() {
    const auto big = make_sphere_model<D>(3.0f, options_for<D>());
    const auto small = make_sphere_model<D>(0.5f, options_for<D>());
    Pose<D> pa{}, pb{};
    pb.position[0] = 1.0f;
    for (bool sig : {false, true}) {
        ImplicitCounters counters;
        const auto c = implicit_contact<D>({big, pa}, {small, pb}, ContactOptions{sig}, counters);
        ASSERT_TRUE(c.has_value());
        EXPECT_FALSE(c->point_on_a);
        EXPECT_NEAR(c->depth, 3.0f + 0.5f - 1.0f, 0.02f);
        EXPECT_NEAR(c->normal[0], 1.0f, 1e-3f);
    }
}

TEST(Implicit, NestedBodiesTouch2D) {
    nested_bodies_touch<2>();
}
TEST(Implicit, NestedBodiesTouch3D) {
    nested_bodies_touch<3>();
}

// ---- polygonization ----

template <int D>
void vertices_on_surface_and_closed() {
    Rng rng(D * 3 + 1);
    for (int s = 0; s < 12; ++s) {
        const ImplicitShape<D> shape(random_blob<D>(rng));
        PolygonizeOptions o;
        o.resolution = D == 2 ? 48 : 20;
        const ImplicitMesh<D> mesh = polygonize<D>(shape, o);
        ASSERT_FALSE(mesh.vertices.empty());
        EXPECT_EQ(mesh.refine_failures, 0u);
        for (const auto& v : mesh.vertices) ASSERT_LT(std::abs(shape.density(v)), o.tolerance);
        EXPECT_LT(mesh.max_abs_density, o.tolerance);
        // Closed: in 2D every vertex ends two segments; in 3D every edge borders two triangles,
        // once in each direction (consistent winding).
        std::map<std::pair<std::uint32_t, std::uint32_t>, int> edges;
        const int per = D;  // indices per primitive
        for (std::size_t p = 0; p < mesh.indices.size(); p += per) {
            for (int k = 0; k < per; ++k) {
                if (D == 2 && k == 1) break;
                edges[{mesh.indices[p + k], mesh.indices[p + (k + 1) % per]}] += 1;
            }
        }
        for (const auto& [e, count] : edges) {
            EXPECT_EQ(count, 1) << "shape " << s;
            if (D == 3) {
                EXPECT_EQ(edges.count({e.second, e.first}), 1u) << "shape " << s;
            }
        }
        if (D == 2) {
            std::vector<int> starts(mesh.vertices.size()), ends(mesh.vertices.size());
            for (std::size_t p = 0; p < mesh.indices.size(); p += 2) {
                ++starts[mesh.indices[p]];
                ++ends[mesh.indices[p + 1]];
            }
            for (std::size_t v = 0; v < starts.size(); ++v) {
                EXPECT_EQ(starts[v], 1) << "shape " << s;
                EXPECT_EQ(ends[v], 1) << "shape " << s;
            }
        }
        // Winding agrees with the gradient normals.
        if constexpr (D == 3) {
            int agree = 0, total = 0;
            for (std::size_t p = 0; p < mesh.indices.size(); p += 3) {
                const Vec<3> a = mesh.vertices[mesh.indices[p]],
                             b = mesh.vertices[mesh.indices[p + 1]],
                             c = mesh.vertices[mesh.indices[p + 2]];
                const Vec<3> n = glm::cross(b - a, c - a);
                const Vec<3> m = mesh.normals[mesh.indices[p]] + mesh.normals[mesh.indices[p + 1]] +
                                 mesh.normals[mesh.indices[p + 2]];
                agree += glm::dot(n, m) > 0.0f;
                ++total;
            }
            EXPECT_GE(agree, total * 99 / 100) << "shape " << s;
        }
    }
}

TEST(Implicit, VerticesOnSurfaceAndClosed2D) {
    vertices_on_surface_and_closed<2>();
}
TEST(Implicit, VerticesOnSurfaceAndClosed3D) {
    vertices_on_surface_and_closed<3>();
}

// ---- local boxes and signatures are sound ----

template <int D>
void boxes_and_signatures_sound() {
    Rng rng(D * 13 + 2);
    for (int s = 0; s < 20; ++s) {
        const ImplicitShape<D> shape(random_blob<D>(rng));
        const Signature<D> sig(shape, 24);
        const Aabb<D> box = shape.local_box();
        const Vec<D> c = box.center(), half = box.size();  // sample twice the box
        int inside = 0;
        for (int i = 0; i < 40000; ++i) {
            const Vec<D> p = rng.in_box<D>(c - half, c + half);
            const bool in = shape.density(p) <= 0.0f;
            inside += in;
            if (in) {
                ASSERT_TRUE(box.contains(p)) << "shape " << s;
                ASSERT_TRUE(sig.may_be_inside(p)) << "shape " << s;
            }
        }
        EXPECT_GT(inside, 100);
        EXPECT_LT(sig.marked(), sig.cells()) << "the signature must skip something";
    }
    // One metaball: the box is the sphere's, up to the margin.
    for (float power : {1.0f, 2.0f, 5.0f}) {
        const Vec<D> centre(0.25f);
        const ImplicitShape<D> one({Metaball<D>{centre, 1.5f, power, 1.0f}});
        for (int k = 0; k < D; ++k) {
            EXPECT_NEAR(one.local_box().lo[k], centre[k] - 1.5f, 3e-3f);
            EXPECT_NEAR(one.local_box().hi[k], centre[k] + 1.5f, 3e-3f);
        }
    }
}

TEST(Implicit, BoxesAndSignaturesSound2D) {
    boxes_and_signatures_sound<2>();
}
TEST(Implicit, BoxesAndSignaturesSound3D) {
    boxes_and_signatures_sound<3>();
}

// ---- bad input ----

template <int D>
void expect_refused(std::vector<Metaball<D>> balls, const std::string& fragment) {
    try {
        const ImplicitShape<D> shape(std::move(balls));
        ADD_FAILURE() << "accepted; expected a message with '" << fragment << "'";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

template <int D>
void bad_input_refused() {
    const float nan = std::nanf(""), inf = INFINITY;
    const Metaball<D> ok{Vec<D>(0.0f), 1.0f, 2.0f, 1.0f};
    expect_refused<D>({}, "no metaballs");
    auto with = [&](auto change) {
        std::vector<Metaball<D>> v{ok, ok};
        change(v[1]);
        return v;
    };
    expect_refused<D>(with([](Metaball<D>& m) { m.radius = 0.0f; }),
                      "metaball 1: radius = 0 must be > 0");
    expect_refused<D>(with([](Metaball<D>& m) { m.radius = -2.0f; }), "radius = -2 must be > 0");
    expect_refused<D>(with([](Metaball<D>& m) { m.power = -1.5f; }), "power = -1.5 must be > 0");
    expect_refused<D>(with([](Metaball<D>& m) { m.power = 0.0f; }), "power = 0 must be > 0");
    expect_refused<D>(with([&](Metaball<D>& m) { m.centre[1] = nan; }),
                      "centre.y = nan is not finite");
    expect_refused<D>(with([&](Metaball<D>& m) { m.centre[0] = -inf; }),
                      "centre.x = -inf is not finite");
    expect_refused<D>(with([&](Metaball<D>& m) { m.radius = inf; }), "radius = inf is not finite");
    expect_refused<D>(with([&](Metaball<D>& m) { m.power = nan; }), "power = nan is not finite");
    expect_refused<D>(with([&](Metaball<D>& m) { m.weight = nan; }), "weight = nan is not finite");
    expect_refused<D>({Metaball<D>{Vec<D>(0.0f), 1.0f, 2.0f, -1.0f}},
                      "no metaball has a positive weight");
    EXPECT_THROW(ImplicitModel<D>::build({}), std::invalid_argument);
    Pose<D> pose{};
    pose.position[D - 1] = nan;
    EXPECT_THROW(validate_pose<D>(pose), std::invalid_argument);
}

TEST(Implicit, BadInputRefused2D) {
    bad_input_refused<2>();
}
TEST(Implicit, BadInputRefused3D) {
    bad_input_refused<3>();
}

// ---- timing (printed, never asserted) ----

template <int D>
void print_timing() {
    Rng rng(99);
    auto blob = [&](float dx) {
        std::vector<Metaball<D>> v;
        for (int i = 0; i < 4; ++i) {
            Vec<D> c(0.0f);
            c[0] = -1.2f + 0.8f * i + dx * 0.0f;
            c[1] = 0.3f * ((i & 1) ? 1.0f : -1.0f);
            v.push_back({c, 0.7f, 2.0f, 1.0f});
        }
        return v;
    };
    const auto model = ImplicitModel<D>::build(blob(0), options_for<D>());
    const float reach = glm::length(model->shape.local_box().size()) * 0.5f;
    constexpr int kTests = 3000;
    std::vector<ImplicitBody<D>> as, bs;
    for (int t = 0; t < kTests; ++t) {
        Pose<D> pa = random_pose<D>(rng, 0.0f), pb = random_pose<D>(rng, 0.0f);
        pb.position = rng.uniform(0.3f, 1.6f) * reach * rng.direction<D>();
        as.push_back({model, pa});
        bs.push_back({model, pb});
    }
    for (bool sig : {false, true}) {
        // Per outcome: tests, seconds, density evals, points tested.
        double n[2] = {0, 0}, sec[2] = {0, 0}, evals[2] = {0, 0}, points[2] = {0, 0};
        for (int t = 0; t < kTests; ++t) {
            if (!as[t].world_box().overlaps(bs[t].world_box())) continue;
            ImplicitCounters counters;
            const auto t0 = std::chrono::steady_clock::now();
            const bool hit =
                implicit_contact<D>(as[t], bs[t], ContactOptions{sig}, counters).has_value();
            sec[hit] +=
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            n[hit] += 1;
            evals[hit] += double(counters.density_evals);
            points[hit] += double(counters.points_tested);
        }
        for (int hit = 1; hit >= 0; --hit) {
            std::printf(
                "[%dD timing] %-10s signature %-3s: %6.0f tests %7.2f us/test, "
                "%7.1f density evals/test of %.0f points\n",
                D, hit ? "contact" : "no contact", sig ? "on" : "off", n[hit],
                1e6 * sec[hit] / n[hit], evals[hit] / n[hit], points[hit] / n[hit]);
        }
    }
    std::printf("[%dD timing] model: %zu surface points, signature %zu of %zu cells marked\n", D,
                model->mesh.vertices.size(), model->signature.marked(), model->signature.cells());
}

TEST(ImplicitTiming, Print2D) {
    print_timing<2>();
}
TEST(ImplicitTiming, Print3D) {
    print_timing<3>();
}

}  // namespace
}  // namespace collide
