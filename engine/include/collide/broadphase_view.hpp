// What a viewer asks of a broad phase, kept apart from what the simulation needs (as Jolt
// keeps BroadPhaseQuery apart from BroadPhase): draw the structure it built, describe one
// body, name the overlay's layers, say one line on its state. Each algorithm implements
// these in its *_view.cpp; the trace of a region query lets draw() show what query() visited
// without running it again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collide/core.hpp"
#include "collide/debug_draw.hpp"

namespace collide {

// What a region query visited, filled by BroadPhase::query when asked, read by draw(). Each
// algorithm records its own regions (cells, nodes, boxes) and gives the kinds its colours.
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

// Which overlays the viewer wants an algorithm to draw.
template <int D>
struct Overlays {
    OverlayFlags flags;         // flags.structure: cells, nodes, intervals; flags.hidden_layers
    BodyId selected = kNoBody;  // a body to highlight in the structure, if any
    // The trace of the viewer's region query this frame; null when there is no query.
    const QueryTrace<D>* query = nullptr;
};

template <int D>
class BroadPhaseView {
public:
    virtual ~BroadPhaseView() = default;
    // Draw the structure it built (cells, nodes, regions) for the overlays.
    virtual void draw(DebugDraw<D>& /*draw*/, const Overlays<D>& /*which*/) const {}
    // What the structure holds for one body (codes, cells, nodes), as lines of text for the
    // selection panel; empty if the algorithm has nothing to add.
    virtual std::string describe(BodyId /*id*/) const { return {}; }
    // Names of the parts of the overlay the viewer may show or hide one by one (at most
    // 64; bit i of OverlayFlags::hidden_layers hides layer i); empty if the overlay is one piece.
    virtual std::vector<std::string> layers() const { return {}; }
    // One line on the algorithm's state for the panel (auto: which algorithm it chose).
    virtual std::string status() const { return {}; }
};

}  // namespace collide
