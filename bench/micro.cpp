// Google Benchmark microbenchmarks: one broad-phase update of every registry entry on a
// static `uniform` scene. The frame-by-frame bench (collidoscope-bench) is the main tool;
// this one gives per-call timings with Google Benchmark's statistics.
#include <benchmark/benchmark.h>
#include <tbb/task_arena.h>

#include "collide/morton.hpp"
#include "collide/registry.hpp"
#include "tooling/random.hpp"
#include "tooling/scenes.hpp"

namespace {

using namespace collide;

template <int D>
void update_once(benchmark::State& state, std::string_view algorithm) {
    const auto n = static_cast<std::size_t>(state.range(0));
    Scene<D> scene = make_scene<D>("uniform", n, 1);
    std::vector<Aabb<D>> boxes(n);
    for (std::size_t i = 0; i < n; ++i)
        boxes[i] = Aabb<D>::around(scene.bodies.pos[i], scene.bodies.radius[i]);
    auto bp = make_broadphase<D>(algorithm);
    PairList pairs;
    for (auto _ : state) {
        bp->update(boxes, scene.bodies.is_static, pairs);
        benchmark::DoNotOptimize(pairs.data());
    }
    state.counters["pairs"] = static_cast<double>(pairs.size());
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

// Morton encoders over 64k random coordinates, each called as the broad phases would.
template <int D, std::uint64_t (*Encode)(const morton::Coords<D>&), bool NeedsBmi2 = false>
void encode_codes(benchmark::State& state) {
    if (NeedsBmi2 && !morton::has_bmi2()) {
        state.SkipWithError("no BMI2 on this CPU");
        return;
    }
    Rng rng(1);
    std::vector<morton::Coords<D>> coords(65536);
    for (auto& c : coords) {
        for (int k = 0; k < D; ++k) c[k] = static_cast<std::uint32_t>(rng.next()) & morton::kMaxCoord<D>;
    }
    std::vector<std::uint64_t> codes(coords.size());
    for (auto _ : state) {
        for (std::size_t i = 0; i < coords.size(); ++i) codes[i] = Encode(coords[i]);
        benchmark::DoNotOptimize(codes.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(coords.size()));
}

std::uint64_t magic2(const morton::Coords<2>& c) { return morton::encode_magic(c); }
std::uint64_t magic3(const morton::Coords<3>& c) { return morton::encode_magic(c); }
std::uint64_t lut2(const morton::Coords<2>& c) { return morton::encode_lut(c); }
std::uint64_t lut3(const morton::Coords<3>& c) { return morton::encode_lut(c); }
std::uint64_t pdep2(const morton::Coords<2>& c) { return morton::encode_pdep(c); }
std::uint64_t pdep3(const morton::Coords<3>& c) { return morton::encode_pdep(c); }
std::uint64_t default2(const morton::Coords<2>& c) { return morton::encode<2>(c); }
std::uint64_t default3(const morton::Coords<3>& c) { return morton::encode<3>(c); }

BENCHMARK(encode_codes<2, lut2>)->Name("morton-encode/lut/2d");
BENCHMARK(encode_codes<2, magic2>)->Name("morton-encode/magic/2d");
BENCHMARK(encode_codes<2, pdep2, true>)->Name("morton-encode/pdep/2d");
BENCHMARK(encode_codes<2, default2>)->Name("morton-encode/default/2d");
BENCHMARK(encode_codes<3, lut3>)->Name("morton-encode/lut/3d");
BENCHMARK(encode_codes<3, magic3>)->Name("morton-encode/magic/3d");
BENCHMARK(encode_codes<3, pdep3, true>)->Name("morton-encode/pdep/3d");
BENCHMARK(encode_codes<3, default3>)->Name("morton-encode/default/3d");

// Region queries on morton-cells with internal references off (the implicit tree, binary
// searches) and on (the linked octree): 100,000 bodies of `scene`, one update, then 1,000
// queries of regions centred on random points, each of half-side `half` of the scene's
// extent per axis. Items are queries.
template <int D>
void morton_queries(benchmark::State& state, const char* scene, float half, bool linked) {
    constexpr std::size_t kBodies = 100000;
    const Scene<D> s = make_scene<D>(scene, kBodies, 1);
    std::vector<Aabb<D>> boxes(kBodies);
    Aabb<D> all = Aabb<D>::empty();
    for (std::size_t i = 0; i < kBodies; ++i) {
        boxes[i] = Aabb<D>::around(s.bodies.pos[i], s.bodies.radius[i]);
        all.grow(boxes[i]);
    }
    auto bp = make_broadphase<D>("morton-cells");
    for (Param& p : bp->params()) {
        if (std::string_view(p.name) == "internal references") p.value = linked ? 1.0f : 0.0f;
    }
    PairList pairs;
    bp->update(boxes, s.bodies.is_static, pairs);
    Rng rng(2);
    std::vector<Aabb<D>> regions(1000);
    for (Aabb<D>& r : regions) {
        const Vec<D> c = rng.in_box<D>(all.lo, all.hi);
        r = {c - (all.hi - all.lo) * half, c + (all.hi - all.lo) * half};
    }
    std::vector<BodyId> out;
    std::size_t found = 0;
    for (auto _ : state) {
        found = 0;
        for (const Aabb<D>& r : regions) {
            bp->query(r, out);
            found += out.size();
        }
        benchmark::DoNotOptimize(found);
    }
    state.counters["found/query"] = static_cast<double>(found) / 1000.0;
    state.SetItemsProcessed(state.iterations() * 1000);
}

const bool morton_queries_registered = [] {
    for (const char* scene : {"uniform", "powerlaw", "centerline", "clusters"}) {
        for (float half : {0.01f, 0.1f}) {
            for (bool linked : {false, true}) {
                for (int dim : {2, 3}) {
                    const std::string name = "morton-cells-query/" + std::string(scene) + "/" +
                                             std::to_string(dim) +
                                             "d/half=" + (half < 0.05f ? "0.01" : "0.1") +
                                             "/refs=" + (linked ? "1" : "0");
                    auto* b = dim == 2 ? benchmark::RegisterBenchmark(
                                             name.c_str(), morton_queries<2>, scene, half, linked)
                                       : benchmark::RegisterBenchmark(
                                             name.c_str(), morton_queries<3>, scene, half, linked);
                    b->Unit(benchmark::kMicrosecond);
                }
            }
        }
    }
    return true;
}();

const bool registered = [] {
    for (const BroadPhaseEntry& e : broadphases()) {
        const long max_n = e.name == kReferenceBroadPhase ? 4096 : 65536;
        for (int dim : {2, 3}) {
            if (!e.supports(dim)) continue;
            const std::string name = std::string(e.name) + "/" + std::to_string(dim) + "d";
            auto* b = dim == 2 ? benchmark::RegisterBenchmark(name.c_str(), update_once<2>, e.name)
                               : benchmark::RegisterBenchmark(name.c_str(), update_once<3>, e.name);
            b->RangeMultiplier(8)->Range(512, max_n)->Unit(benchmark::kMicrosecond);
        }
    }
    return true;
}();

}  // namespace

int main(int argc, char** argv) {
    // One thread, as collidoscope-bench's default, so the two tools' figures compare.
    tbb::task_arena one_thread(1);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    one_thread.execute([] { benchmark::RunSpecifiedBenchmarks(); });
    benchmark::Shutdown();
    return 0;
}
