// What a region query visited: plain data the query fills when asked and the viewer reads,
// so the core contract can offer it without knowing how anything is drawn.
#pragma once

#include <cstdint>
#include <vector>

#include "collide/core.hpp"

namespace collide {

// Each algorithm records its own regions (cells, nodes, boxes); its view gives the kinds
// their colours.
enum class TraceKind : std::uint8_t {
    kTaken,      // taken whole: every body in it was a candidate
    kDescended,  // entered, looked inside
    kPruned,     // skipped whole: empty, or outside the region
    kRejected,   // scanned and found not to overlap the region
};

template <int D>
struct QueryTrace {
    struct Region {
        Aabb<D> box;
        TraceKind kind;
    };
    std::vector<Region> regions;

    void add(const Aabb<D>& box, TraceKind kind) { regions.push_back({box, kind}); }
    void clear() { regions.clear(); }
};

}  // namespace collide
