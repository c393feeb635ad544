// Google Benchmark microbenchmarks: one broad-phase update of every registry entry on a
// static `uniform` scene. The frame-by-frame bench (collidoscope-bench) is the main tool;
// this one gives per-call timings with Google Benchmark's statistics.
#include <benchmark/benchmark.h>
#include <tbb/global_control.h>

#include "collide/registry.hpp"
#include "collide/scenes.hpp"

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
    tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
