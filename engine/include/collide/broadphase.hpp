// The broad-phase contract: from an array of boxes (indexed by body id), report every
// pair whose boxes overlap, exactly once. Every algorithm implements this interface and
// is listed in registry.cpp; brute force is the reference all others are tested against.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collide/core.hpp"
#include "collide/debug_draw.hpp"

namespace collide {

// Which overlays the viewer wants an algorithm to draw.
template <int D>
struct Overlays {
    bool structure = true;      // cells, nodes, intervals: the algorithm's own structure
    BodyId selected = kNoBody;  // a body to highlight in the structure, if any
    // A region the viewer is querying: the algorithm draws what its query() visited.
    std::optional<Aabb<D>> query;
    // Bit i set: the viewer hid layer i of the algorithm's layers() (hash levels, say).
    std::uint64_t hidden_layers = 0;
};

struct BroadPhaseStats {
    std::uint64_t candidate_tests = 0;  // box-box overlap tests in the last update
    std::size_t structure_bytes = 0;    // memory held by the structure (capacity, not size)
    std::size_t nodes = 0;              // cells, nodes or entries, whatever the algorithm has
    int depth = 0;                      // tree depth or levels; 0 where meaningless
    // Bodies whose entries the structure moved in the last update (re-bucketed,
    // re-inserted); 0 for structures rebuilt from scratch every frame.
    std::uint64_t reinserted = 0;
};

// A tunable the UI shows as a slider, or as a checkbox when `toggle` (value 0 or 1).
struct Param {
    const char* name;
    float value;
    float min;
    float max;
    bool toggle = false;
};

template <int D>
class BroadPhase {
public:
    virtual ~BroadPhase() = default;
    // Report every pair (a < b) whose boxes overlap (closed intervals), exactly once.
    // Pairs of two static bodies are not reported. `out` is cleared first.
    virtual void update(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                        PairList& out) = 0;
    // Bodies whose boxes overlap `region`, as of the last update.
    virtual void query(const Aabb<D>& region, std::vector<BodyId>& out) const = 0;
    // Draw the structure it built (cells, nodes, regions) for the overlays.
    virtual void draw(DebugDraw<D>& /*draw*/, const Overlays<D>& /*which*/) const {}
    // What the structure holds for one body (codes, cells, nodes), as lines of text for the
    // selection panel; empty if the algorithm has nothing to add.
    virtual std::string describe(BodyId /*id*/) const { return {}; }
    // Names of the parts of the overlay the viewer may show or hide one by one (at most
    // 64; bit i of Overlays::hidden_layers hides layer i); empty if the overlay is one piece.
    virtual std::vector<std::string> layers() const { return {}; }
    // One line on the algorithm's state for the panel (auto: which algorithm it chose).
    virtual std::string status() const { return {}; }
    virtual BroadPhaseStats stats() const = 0;
    // Tunable parameters the UI shows (name, value, range); empty if none.
    virtual std::span<Param> params() { return {}; }
};

}  // namespace collide
