// The generated scenes. Each sizes its world from the bodies it makes, so the area
// (2D) or volume (3D) fraction stays fixed as n grows.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <mutex>
#include <numbers>
#include <string>

#include "collide/morton.hpp"
#include "collide/pair_budget.hpp"
#include "tooling/random.hpp"
#include "tooling/scenes.hpp"

namespace collide {

namespace {

// Area of a circle (D = 2) or volume of a sphere (D = 3).
template <int D>
float measure(float r) {
    if constexpr (D == 2) {
        return std::numbers::pi_v<float> * r * r;
    } else {
        return 4.0f / 3.0f * std::numbers::pi_v<float> * r * r * r;
    }
}

template <int D>
constexpr float kFraction = D == 2 ? 0.3f : 0.2f;

// Side of the cubic world that holds bodies of total measure `total` at `fraction`.
template <int D>
float world_side(double total, float fraction) {
    const double side = std::pow(total / fraction, 1.0 / D);
    return static_cast<float>(std::max(side, 1.0));
}

template <int D>
WorldSettings<D> settings_for(float side) {
    WorldSettings<D> s;
    s.bounds = {Vec<D>(0.0f), Vec<D>(side)};
    return s;
}

template <int D>
Vec<D> inside(Rng& rng, float side, float r) {
    const float lo = std::min(r, 0.5f * side);
    return rng.in_box<D>(Vec<D>(lo), Vec<D>(side - lo));
}

template <int D>
Vec<D> random_velocity(Rng& rng, float lo, float hi) {
    const float speed = rng.uniform(lo, hi);  // first, as GCC drew it (add_anywhere)
    return rng.direction<D>() * speed;
}

// A body of radius r anywhere in the world, moving in a random direction at a speed in
// [lo, hi).
template <int D>
void add_anywhere(Bodies<D>& bodies, Rng& rng, float side, float r, float lo, float hi) {
    // One statement per draw: the order of a call's arguments is the compiler's (GCC's is
    // the reverse of clang's), and a seed must make the same world with either. This is the
    // order GCC gave, which every recorded scene and figure so far was made with.
    const Vec<D> velocity = random_velocity<D>(rng, lo, hi);
    const Vec<D> centre = inside<D>(rng, side, r);
    bodies.add(centre, velocity, r);
}

// Bodies of the given radii (total measure `total`) spread uniformly over a world sized
// for the scene fraction, moving in random directions.
template <int D>
Scene<D> scatter(const std::vector<float>& radii, double total, Rng& rng) {
    const float side = world_side<D>(total, kFraction<D>);
    Scene<D> scene{settings_for<D>(side), {}};
    scene.bodies.reserve(radii.size());
    for (float r : radii) add_anywhere<D>(scene.bodies, rng, side, r, 1.0f, 3.0f);
    return scene;
}

// Radii 0.5..1 uniformly over the world at the scene fraction.
template <int D>
Scene<D> uniform_scene(std::size_t n, Rng& rng) {
    std::vector<float> radii(n);
    double total = 0;
    for (float& r : radii) {
        r = rng.uniform(0.5f, 1.0f);
        total += measure<D>(r);
    }
    return scatter<D>(radii, total, rng);
}

// Truncated Pareto radii (tail exponent 1) on [0.05, 50]; with n >= 2 the extremes are
// forced so max/min is exactly 1000 at every n.
template <int D>
Scene<D> powerlaw_scene(std::size_t n, Rng& rng) {
    constexpr float kMin = 0.05f;
    constexpr float kMax = 50.0f;
    std::vector<float> radii(n);
    double total = 0;
    for (std::size_t i = 0; i < n; ++i) {
        float r;
        if (i == 0 && n >= 2) {
            r = kMax;
        } else if (i == 1) {
            r = kMin;
        } else {
            // Inverse CDF of the Pareto distribution, truncated to [kMin, kMax].
            const float u = rng.uniform();
            r = kMin / (1.0f - u * (1.0f - kMin / kMax));
        }
        radii[i] = r;
        total += measure<D>(r);
    }
    return scatter<D>(radii, total, rng);
}

// Most bodies small and straddling the centre lines (2D) or planes (3D): the bodies a
// "fits entirely" quadtree keeps at its root (004, "Suppose that every object in the world
// lay on the horizontal and vertical center lines").
template <int D>
Scene<D> centerline_scene(std::size_t n, Rng& rng) {
    const std::size_t on_lines = n * 4 / 5;
    const std::size_t free = n - on_lines;
    const float side = world_side<D>(static_cast<double>(n) * measure<D>(0.75f), kFraction<D>);
    // Radius scale of line bodies: about half of each line (plane) is covered.
    const double per_line = std::max<double>(1.0, static_cast<double>(on_lines) / D);
    float scale;
    if constexpr (D == 2) {
        scale = static_cast<float>(0.5 * side / (1.5 * per_line));
    } else {
        scale = static_cast<float>(side * std::sqrt(0.3 / (per_line * measure<2>(0.75f))));
    }
    scale = std::min(scale, 1.0f);

    Scene<D> scene{settings_for<D>(side), {}};
    scene.bodies.reserve(n);
    const float mid = 0.5f * side;
    for (std::size_t i = 0; i < on_lines; ++i) {
        const float r = scale * rng.uniform(0.5f, 1.0f);
        Vec<D> p = inside<D>(rng, side, r);
        const int axis = static_cast<int>(i % D);
        p[axis] = mid + rng.uniform(-0.5f, 0.5f) * r;  // the body straddles the centre
        scene.bodies.add(p, random_velocity<D>(rng, 0.1f, 0.5f), r);
    }
    for (std::size_t i = 0; i < free; ++i) {
        add_anywhere<D>(scene.bodies, rng, side, rng.uniform(0.5f, 1.0f), 1.0f, 3.0f);
    }
    return scene;
}

// Dense Gaussian clusters (about sqrt(n)/3 of them) in a world sized as `uniform`.
template <int D>
Scene<D> clusters_scene(std::size_t n, Rng& rng) {
    const float side = world_side<D>(static_cast<double>(n) * measure<D>(0.75f), kFraction<D>);
    const std::size_t k =
        std::max<std::size_t>(1, static_cast<std::size_t>(std::sqrt(double(n)) / 3));
    const double per_cluster = std::max<double>(1.0, double(n) / double(k));
    // Two sigmas hold the cluster's bodies at a fraction of about 0.6.
    const float sigma =
        0.5f * static_cast<float>(
                   std::pow(per_cluster * measure<D>(0.75f) / (0.6 * measure<D>(1.0f)), 1.0 / D));
    std::vector<Vec<D>> centres(k);
    for (auto& c : centres) c = inside<D>(rng, side, 2.0f * sigma);
    Scene<D> scene{settings_for<D>(side), {}};
    scene.bodies.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const float r = rng.uniform(0.5f, 1.0f);
        Vec<D> p = centres[i % k];
        for (int a = 0; a < D; ++a) p[a] = std::clamp(p[a] + sigma * rng.normal(), r, side - r);
        scene.bodies.add(p, random_velocity<D>(rng, 0.5f, 2.0f), r);
    }
    return scene;
}

// Bodies on a jittered lattice in the upper part of the world fall under gravity and pile.
// A world where bodies fall and pile up (rain, level), room for n bodies reserved.
template <int D>
Scene<D> piling_scene(float side, std::size_t n) {
    Scene<D> scene{settings_for<D>(side), {}};
    scene.settings.gravity[1] = -9.81f;
    scene.settings.restitution = 0.3f;
    scene.settings.substeps = 4;  // a deep pile needs a stiffer solve to rest without jitter
    scene.bodies.reserve(n);
    return scene;
}

// Adds `count` bodies on a lattice of spacing 2 (the largest diameter, so none overlap),
// `per_row` along each horizontal axis, layer k's centres at height layer_y(k); radii 0.5..1,
// each jittered inside its cell, with a small sideways velocity.
template <int D, typename LayerY>
void pour_lattice(Scene<D>& scene, std::size_t count, std::size_t per_row, float side,
                  LayerY layer_y, Rng& rng) {
    for (std::size_t i = 0; i < count; ++i) {
        std::size_t rest = i;
        Vec<D> p;
        for (int a = 0; a < D; ++a) {
            if (a == 1) continue;
            p[a] = 1.0f + 2.0f * static_cast<float>(rest % per_row);
            rest /= per_row;
        }
        p[1] = layer_y(rest);
        const float r = rng.uniform(0.5f, 1.0f);
        for (int a = 0; a < D; ++a) p[a] += rng.uniform(-0.5f, 0.5f) * (1.0f - r);
        p = glm::clamp(p, Vec<D>(r), Vec<D>(side - r));
        Vec<D> v(0.0f);
        v[0] = rng.uniform(-0.5f, 0.5f);
        scene.bodies.add(p, v, r);
    }
}

template <int D>
Scene<D> rain_scene(std::size_t n, Rng& rng) {
    // A lattice of spacing 2 (the largest diameter), so no two bodies start overlapping;
    // the world grows until all its layers fit under the ceiling.
    float side = world_side<D>(static_cast<double>(n) * measure<D>(0.75f), kFraction<D>);
    std::size_t per_row = 1;
    for (;;) {
        per_row = std::max<std::size_t>(1, static_cast<std::size_t>(side / 2.0f));
        const std::size_t per_layer = D == 2 ? per_row : per_row * per_row;
        const std::size_t layers = (n + per_layer - 1) / per_layer;
        if (2.0f * static_cast<float>(layers) <= side) break;
        side *= 1.05f;
    }
    Scene<D> scene = piling_scene<D>(side, n);
    pour_lattice(scene, n, per_row, side,
                 [&](std::size_t layer) { return side - 1.0f - 2.0f * static_cast<float>(layer); },
                 rng);  // filled from the top down
    // A twentieth of the drops a second, the oldest first: the rain keeps falling on a pile
    // that stays.
    scene.recycled_share = 0.05f;
    return scene;
}

// A game's level: static tiles (radius 0.5, one per lattice cell) make the ground, a rolling
// terrain that holds most of the bodies at large n, two walls and a few platforms; a tenth of
// the bodies are poured in above them and fall. The tiles come walls and platforms first,
// then the terrain layer by layer from the floor up, so the count cuts the top layer short.
template <int D>
std::vector<Vec<D>> level_tiles(float side, const std::array<float, 6>& phase) {
    const int cells = std::max(4, static_cast<int>(side));
    const auto at = [](int i) { return static_cast<float>(i) + 0.5f; };
    std::vector<Vec<D>> tiles;
    // Every cell of the floor plan: x, and z in 3D.
    std::vector<Vec<D>> plan;
    for (int i = 0; i < cells; ++i) {
        for (int k = 0; k < (D == 3 ? cells : 1); ++k) {
            Vec<D> p(0.0f);
            p[0] = at(i);
            if constexpr (D == 3) p[2] = at(k);
            plan.push_back(p);
        }
    }
    // Walls at both ends in 2D; in 3D at the two far sides only, as a room's back walls, so
    // the view from the front sees the ground.
    const auto on_rim = [&](const Vec<D>& p) {
        if constexpr (D == 3) return p[0] < 1.0f || p[2] < 1.0f;
        return p[0] < 1.0f || p[0] > static_cast<float>(cells) - 1.0f;
    };
    const int wall_top = static_cast<int>(0.6f * side);
    for (const Vec<D>& p : plan) {
        if (!on_rim(p)) continue;
        for (int j = 0; j < wall_top; ++j) {
            Vec<D> t = p;
            t[1] = at(j);
            tiles.push_back(t);
        }
    }
    // Platforms: trays one tile thick, a quarter of the world wide, at three heights, with
    // a lip two tiles high around them, so what lands on one stays there.
    for (int k = 0; k < 3; ++k) {
        const float shift = 0.05f * phase[k] / 6.2831853f;  // up to a twentieth of the world
        const float lo = std::floor((0.1f + 0.25f * static_cast<float>(k) + shift) * side);
        const float hi = lo + std::max(3.0f, std::floor(0.25f * side));
        // Four tiles apart at least, so no tray's lip reaches the next one.
        const int y = static_cast<int>(0.42f * side) + k * std::max(4, static_cast<int>(0.07f * side));
        const auto within = [&](float c) { return c >= lo && c < hi; };
        const auto at_edge = [&](float c) { return c < lo + 1.0f || c > hi - 1.0f; };
        for (const Vec<D>& p : plan) {
            bool inside = within(p[0]) && !on_rim(p), edge = at_edge(p[0]);
            if constexpr (D == 3) {
                inside = inside && within(p[2]);
                edge = edge || at_edge(p[2]);
            }
            if (!inside) continue;
            for (int j = y; j <= y + (edge ? 2 : 0); ++j) {
                Vec<D> t = p;
                t[1] = at(j);
                tiles.push_back(t);
            }
        }
    }
    // The terrain: up to 0.3 of the world's height, rolling.
    constexpr float kTau = 6.2831853f;
    std::vector<int> height;
    int highest = 0;
    for (const Vec<D>& p : plan) {
        const float u = p[0] / side, w = D == 3 ? p[D - 1] / side : 0.0f;
        const float rolling = 0.55f + 0.25f * std::sin(kTau * 1.5f * u + phase[3]) *
                                          (D == 3 ? std::cos(kTau * 1.2f * w + phase[4]) : 1.0f) +
                              0.2f * std::sin(kTau * 4.0f * (u + w) + phase[5]);
        height.push_back(on_rim(p) ? 0 : 1 + static_cast<int>(0.3f * side * rolling));
        highest = std::max(highest, height.back());
    }
    for (int j = 0; j < highest; ++j) {
        for (std::size_t c = 0; c < plan.size(); ++c) {
            if (j >= height[c]) continue;
            Vec<D> t = plan[c];
            t[1] = at(j);
            tiles.push_back(t);
        }
    }
    return tiles;
}

template <int D>
Scene<D> level_scene(std::size_t n, Rng& rng) {
    const std::size_t poured = n == 0 ? 0 : std::max<std::size_t>(1, n / 10);
    const std::size_t fixed = n - poured;
    std::array<float, 6> phase{};
    for (float& p : phase) p = rng.uniform(0.0f, 6.2831853f);
    float side = std::max(12.0f, static_cast<float>(std::pow(static_cast<double>(fixed) / 0.17,
                                                            1.0 / D)));
    std::vector<Vec<D>> tiles;
    std::size_t per_row = 1;
    float pour_from = 0.0f;  // the lowest poured layer's centre
    for (;;) {
        tiles = level_tiles<D>(side, phase);
        float top = 0.6f * side;  // the poured bodies start above the walls and every tile
        for (std::size_t i = 0; i < std::min(fixed, tiles.size()); ++i) top = std::max(top, tiles[i][1] + 0.5f);
        pour_from = top + 1.0f;
        per_row = std::max<std::size_t>(1, static_cast<std::size_t>(side / 2.0f));
        const std::size_t per_layer = D == 2 ? per_row : per_row * per_row;
        const std::size_t layers = (poured + per_layer - 1) / per_layer;
        if (tiles.size() >= fixed && pour_from + 2.0f * static_cast<float>(layers) <= side) break;
        side *= 1.05f;
    }
    Scene<D> scene = piling_scene<D>(side, n);
    for (std::size_t i = 0; i < fixed; ++i) scene.bodies.add(tiles[i], Vec<D>(0.0f), 0.5f, true);
    pour_lattice(scene, poured, per_row, side,
                 [&](std::size_t layer) { return pour_from + 2.0f * static_cast<float>(layer); },
                 rng);
    return scene;
}

// The Mean-Max workload of 002: 11 bodies (n as given) in a small arena, moving fast.
template <int D>
Scene<D> meanmax_scene(std::size_t n, Rng& rng) {
    const float side =
        30.0f * static_cast<float>(std::pow(std::max<double>(1.0, double(n) / 11.0), 1.0 / D));
    Scene<D> scene{settings_for<D>(side), {}};
    scene.bodies.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        add_anywhere<D>(scene.bodies, rng, side, rng.uniform(0.8f, 1.4f), 4.0f, 12.0f);
    }
    return scene;
}

// A few small fast bodies (1%, at least one) among large slow ones: the tunnelling case.
template <int D>
Scene<D> bullets_scene(std::size_t n, Rng& rng) {
    const std::size_t bullets = n == 0 ? 0 : std::max<std::size_t>(1, n / 100);
    const float side =
        world_side<D>(static_cast<double>(n - bullets) * measure<D>(3.0f), kFraction<D>);
    Scene<D> scene{settings_for<D>(side), {}};
    scene.settings.count_tunnelling = true;  // the point of the scene
    scene.bodies.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (i < bullets) {
            add_anywhere<D>(scene.bodies, rng, side, 0.15f, 120.0f, 180.0f);
        } else {
            add_anywhere<D>(scene.bodies, rng, side, rng.uniform(2.0f, 4.0f), 0.2f, 0.6f);
        }
    }
    return scene;
}

// One random shape for the blobs scene, about 2.5..4 across its bounding radius. Kinds:
// blobby (3-5 overlapping metaballs), elongated (a row), bitten (a negative metaball cut
// into a blob) and lumpy (mixed powers and sizes); powers 1.5..4.
template <int D>
std::vector<Metaball<D>> random_metaballs(int kind, Rng& rng) {
    std::vector<Metaball<D>> balls;
    const float power = rng.uniform(1.5f, 4.0f);
    const auto ball = [&](const Vec<D>& c, float r, float w = 1.0f) {
        balls.push_back({c, r, power, w});
    };
    switch (kind) {
        case 0: {  // blobby
            const int count = 3 + static_cast<int>(rng.uniform() * 3.0f);
            for (int i = 0; i < count; ++i) {  // the draws in GCC's order (add_anywhere)
                const float r = rng.uniform(0.9f, 1.4f);
                const float distance = rng.uniform(0.3f, 1.0f);
                ball(rng.direction<D>() * distance, r);
            }
            break;
        }
        case 1: {  // elongated: a row along x
            const int count = 3 + static_cast<int>(rng.uniform() * 3.0f);
            const float r = rng.uniform(0.7f, 1.0f);
            for (int i = 0; i < count; ++i) {
                Vec<D> c(0.0f);
                c[0] = (static_cast<float>(i) - 0.5f * static_cast<float>(count - 1)) * 1.1f * r;
                ball(c, r);
            }
            break;
        }
        case 2: {  // bitten: two lobes and a negative metaball on one side
            Vec<D> c(0.0f);
            c[0] = 0.6f;
            ball(c, 1.3f);
            ball(-c, 1.3f);
            Vec<D> bite(0.0f);
            bite[1] = 1.5f;
            ball(bite, 1.0f, -1.0f);
            break;
        }
        default: {  // lumpy: a big core with small bumps of their own powers
            ball(Vec<D>(0.0f), 1.5f);
            const int count = 3 + static_cast<int>(rng.uniform() * 3.0f);
            for (int i = 0; i < count; ++i) {
                balls.push_back({rng.direction<D>() * 1.4f, rng.uniform(0.5f, 0.8f),
                                 rng.uniform(1.5f, 4.0f), 1.0f});
            }
            break;
        }
    }
    return balls;
}

// The model of a set of metaballs, built once per process: a model (its mesh and signature)
// is the costly part of a blobs scene, one seed gives the same shapes at every n, and tests
// make the same scene many times (in the clang ASan build a 3D blobs registry test took
// 2.2-2.4 s, 1.2-1.3 with this). Models are immutable, so scenes share them. Bounded: past
// 256 shapes (a process that went through many seeds) the cache starts again.
template <int D>
std::shared_ptr<const ImplicitModel<D>> shared_model(std::vector<Metaball<D>> balls) {
    std::vector<float> key;
    for (const Metaball<D>& b : balls) {
        for (int k = 0; k < D; ++k) key.push_back(b.centre[k]);
        key.insert(key.end(), {b.radius, b.power, b.weight});
    }
    static std::mutex mutex;
    static std::map<std::vector<float>, std::shared_ptr<const ImplicitModel<D>>> models;
    const std::scoped_lock lock(mutex);
    if (const auto found = models.find(key); found != models.end()) return found->second;
    if (models.size() >= 256) models.clear();
    return models[std::move(key)] = ImplicitModel<D>::build(std::move(balls));
}

template <int D>
Rotation<D> random_rotation(Rng& rng) {
    if constexpr (D == 2) {
        return rng.uniform(-std::numbers::pi_v<float>, std::numbers::pi_v<float>);
    } else {
        // The draws in GCC's order (add_anywhere): the last argument first.
        const float z = rng.normal(), y = rng.normal(), x = rng.normal(), w = rng.normal();
        glm::quat q(w, x, y, z);
        return glm::dot(q, q) > 1e-8f ? glm::normalize(q) : glm::quat(1, 0, 0, 0);
    }
}

template <int D>
Spin<D> random_spin(Rng& rng) {
    if constexpr (D == 2) {
        return rng.uniform(-1.0f, 1.0f);
    } else {
        const float rate = rng.uniform(0.0f, 1.0f);  // first, as GCC drew it (add_anywhere)
        return rng.direction<3>() * rate;
    }
}

// A few dozen implicit bodies (min(40, n/5), at least 2 when n >= 2; up to 12 shapes shared
// among them) among circles/spheres. Sphere radii take 8 values in 0.5..1: each distinct
// radius that meets an implicit body gets its own sphere model, built once.
template <int D>
Scene<D> blobs_scene(std::size_t n, Rng& rng) {
    const std::size_t blobs =
        n < 2 ? n : std::max<std::size_t>(2, std::min<std::size_t>(40, n / 5));
    const std::size_t shapes = std::min<std::size_t>(blobs, 12);
    Bodies<D> bodies;
    bodies.reserve(n);
    std::vector<float> bound(shapes);
    double total = 0;
    for (std::size_t s = 0; s < shapes; ++s) {
        bodies.models.push_back(shared_model<D>(random_metaballs<D>(int(s % 4), rng)));
        bound[s] = bounding_radius<D>(*bodies.models.back());
    }
    std::vector<float> radii(n - blobs);
    for (float& r : radii) {
        r = 0.5f + 0.5f * std::floor(rng.uniform() * 8.0f) / 7.0f;
        total += measure<D>(r);
    }
    // A blob fills about half its bounding circle/sphere.
    for (std::size_t i = 0; i < blobs; ++i) total += 0.5 * measure<D>(bound[i % shapes]);
    const float side = world_side<D>(total, kFraction<D>);
    Scene<D> scene{settings_for<D>(side), std::move(bodies)};

    // Rejection sampling against the implicit bodies' bounding spheres (at most 40), so
    // nothing starts inside a blob; circles/spheres may overlap each other as in `uniform`.
    std::vector<std::pair<Vec<D>, float>> placed;
    const auto place = [&](float r) {
        Vec<D> p = inside<D>(rng, side, r);
        for (int attempt = 0; attempt < 100; ++attempt) {
            bool clear = true;
            for (const auto& [q, rq] : placed) {
                const Vec<D> d = p - q;
                if (glm::dot(d, d) < (r + rq) * (r + rq)) clear = false;
            }
            if (clear) break;
            p = inside<D>(rng, side, r);
        }
        return p;
    };
    for (std::size_t i = 0; i < blobs; ++i) {
        const auto s = static_cast<std::int32_t>(i % shapes);
        const Vec<D> p = place(bound[s]);
        placed.push_back({p, bound[s]});
        // The draws in GCC's order (add_anywhere): the last argument first.
        const auto spin = random_spin<D>(rng);
        const auto rotation = random_rotation<D>(rng);
        const Vec<D> velocity = random_velocity<D>(rng, 0.5f, 1.5f);
        scene.bodies.add_implicit(p, velocity, s, rotation, spin);
    }
    for (float r : radii) {
        const Vec<D> velocity = random_velocity<D>(rng, 1.0f, 3.0f);
        scene.bodies.add(place(r), velocity, r);
    }
    return scene;
}

template <int D>
using Generator = Scene<D> (*)(std::size_t, Rng&);

struct SceneRow {
    SceneEntry entry;
    Generator<2> make_2d;
    Generator<3> make_3d;
};

constexpr std::array kScenes = {
    SceneRow{{"uniform", "radii 0.5..1 spread uniformly (area fraction 0.3, volume 0.2)"},
             uniform_scene<2>,
             uniform_scene<3>},
    SceneRow{{"powerlaw", "Pareto radii, max/min = 1000, same fraction"},
             powerlaw_scene<2>,
             powerlaw_scene<3>},
    SceneRow{{"centerline", "80% small bodies straddling the centre lines/planes"},
             centerline_scene<2>,
             centerline_scene<3>},
    SceneRow{{"clusters", "dense Gaussian clusters"}, clusters_scene<2>, clusters_scene<3>},
    SceneRow{{"rain", "gravity: bodies fall and pile up; the app recycles 5% of the drops a second"}, rain_scene<2>, rain_scene<3>},
    SceneRow{{"level", "a game level: 90% static tiles (terrain, walls, platforms), 10% poured in"},
             level_scene<2>,
             level_scene<3>},
    SceneRow{{"meanmax", "the Mean-Max workload: use n = 11, a small arena, fast bodies"},
             meanmax_scene<2>,
             meanmax_scene<3>},
    SceneRow{{"bullets", "1% small fast bodies among large slow ones"},
             bullets_scene<2>,
             bullets_scene<3>},
    SceneRow{{"blobs", "a few dozen implicit (metaball) bodies among circles/spheres"},
             blobs_scene<2>,
             blobs_scene<3>},
};

const std::array<SceneEntry, kScenes.size()> kSceneEntries = [] {
    std::array<SceneEntry, kScenes.size()> out{};
    for (std::size_t i = 0; i < kScenes.size(); ++i) out[i] = kScenes[i].entry;
    return out;
}();

}  // namespace

std::span<const SceneEntry> scene_list() {
    return kSceneEntries;
}

// A scene file can pile bodies on one place, where pairs grow with the square of their count
// (50,000 at one point: 1.25e9 pairs, 10 GB): refused here, naming the count, before any
// broad phase allocates them.
template <int D>
void check_pair_budget(const Scene<D>& scene, std::string_view path) {
    const Bodies<D>& b = scene.bodies;
    std::vector<Aabb<D>> boxes(b.size());
    for (std::size_t i = 0; i < b.size(); ++i) boxes[i] = Aabb<D>::around(b.pos[i], b.radius[i]);
    if (count_pairs_up_to<D>(boxes, b.is_static, kMaxPairs) > kMaxPairs) {
        throw InputError(std::string(path) + ": its " + std::to_string(b.size()) +
                         " bodies overlap in more than " + std::to_string(kMaxPairs) +
                         " pairs, the pair budget (are they piled on one place?)");
    }
}

template <int D>
Scene<D> make_scene(std::string_view name, std::size_t n, std::uint64_t seed) {
    if (is_csv_scene(name)) {
        const std::string_view path = name.substr(kCsvPrefix.size());
        Scene<D> scene = load_csv_scene<D>(std::string(path));
        check_pair_budget(scene, path);
        return scene;
    }
    if (n > kMaxBodies) {
        throw InputError("body count " + std::to_string(n) + " is above the maximum of " +
                         std::to_string(kMaxBodies));
    }
    for (const SceneRow& row : kScenes) {
        if (row.entry.name != name) continue;
        Rng rng(seed);
        if constexpr (D == 2) {
            return row.make_2d(n, rng);
        } else {
            return row.make_3d(n, rng);
        }
    }
    std::string known;
    for (const SceneRow& row : kScenes)
        known += std::string(known.empty() ? "" : ", ") + std::string(row.entry.name);
    throw InputError("unknown scene '" + std::string(name) + "' (scenes: " + known + ", csv:PATH)");
}

template <int D>
void order_by_morton(Bodies<D>& bodies) {
    const std::size_t n = bodies.size();
    Aabb<D> extent = Aabb<D>::empty();
    for (const Vec<D>& p : bodies.pos) extent.grow({p, p});
    if (n < 2) return;
    const auto q = morton::Quantizer<D>::covering(extent);
    std::vector<std::pair<std::uint64_t, std::uint32_t>> keyed(n);
    for (std::size_t i = 0; i < n; ++i)
        keyed[i] = {morton::encode<D>(q(bodies.pos[i])), static_cast<std::uint32_t>(i)};
    std::sort(keyed.begin(), keyed.end());  // ties keep id order: the result is deterministic
    Bodies<D> sorted;
    sorted.reserve(n);
    sorted.models = bodies.models;
    const bool implicit = bodies.shape.size() == n;
    for (const auto& [code, i] : keyed) {
        sorted.add(bodies.pos[i], bodies.vel[i], bodies.radius[i], bodies.is_static[i] != 0);
        if (!implicit) continue;
        sorted.shape.back() = bodies.shape[i];
        sorted.rotation.back() = bodies.rotation[i];
        sorted.spin.back() = bodies.spin[i];
    }
    bodies = std::move(sorted);
}

template void order_by_morton<2>(Bodies<2>&);
template void order_by_morton<3>(Bodies<3>&);
template Scene<2> make_scene<2>(std::string_view, std::size_t, std::uint64_t);
template Scene<3> make_scene<3>(std::string_view, std::size_t, std::uint64_t);

}  // namespace collide
