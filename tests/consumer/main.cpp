// Uses the installed engine as any other project would: every 2D broad phase in the registry
// on four boxes, of which 0-1 and 2-3 overlap (1 and 2 only come close). Exit 1 on a wrong set.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <collide/registry.hpp>

int main() {
    using Box = collide::Aabb<2>;
    const std::vector<Box> boxes = {
        {{0, 0}, {2, 2}}, {{2, 1}, {4, 3}},  // touching sides overlap: intervals are closed
        {{4.5f, 0}, {6, 2}}, {{5, 1}, {7, 3}}};
    const std::vector<std::uint8_t> is_static(boxes.size(), 0);
    const collide::PairList expected = {{0, 1}, {2, 3}};
    int tested = 0, failures = 0;
    for (const collide::BroadPhaseEntry& entry : collide::broadphases()) {
        auto bp = entry.make<2>();
        if (!bp) continue;  // a 3D-only entry such as the octree
        collide::PairList pairs;
        bp->update(boxes, is_static, pairs);
        std::sort(pairs.begin(), pairs.end());  // any order is allowed, each pair once
        const bool ok = pairs == expected;
        std::printf("%-24.*s", static_cast<int>(entry.name.size()), entry.name.data());
        for (const collide::Pair& p : pairs) std::printf(" (%u,%u)", p.a, p.b);
        std::printf("%s\n", ok ? "" : "  <- not the expected pairs");
        ++tested;
        failures += ok ? 0 : 1;
    }
    return tested > 0 && failures == 0 ? 0 : 1;  // an empty registry proves nothing
}
