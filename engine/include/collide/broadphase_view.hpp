// What a viewer asks of a broad phase, kept apart from what the simulation needs (as Jolt
// keeps its debug renderer apart from its broad phase): draw the structure it built,
// describe one body, name the overlay's layers, say one line on its state. An algorithm
// implements both bases, its view in its *_view.cpp; BroadPhase<D> knows nothing of this
// one, and a viewer reaches it through view_of(). The trace of a region query lets draw()
// show what query() visited without running it again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collide/broadphase.hpp"
#include "collide/core.hpp"
#include "collide/debug_draw.hpp"
#include "collide/query_trace.hpp"
#include "collide/watch.hpp"

namespace collide {

// Which overlays the viewer wants an algorithm to draw.
template <int D>
struct Overlays {
    OverlayFlags flags;         // flags.structure: cells, nodes, intervals; flags.hidden_layers
    BodyId selected = kNoBody;  // a body to highlight in the structure, if any
    // The trace of the viewer's region query this frame; null when there is no query.
    const QueryTrace<D>* query = nullptr;
};

// One line of the legend in the view: a colour and what it means, shown while the overlay
// it explains is (the structure, a selection, a query region). A ramp entry shows
// ramp_color from 0 to 1 (its colour unused), a fill entry a filled swatch.
struct LegendEntry {
    enum class Kind : std::uint8_t { kLine, kFill, kRamp };
    enum class When : std::uint8_t { kStructure, kSelection, kQuery };
    Color color = 0;
    std::string label;
    Kind kind = Kind::kLine;
    When when = When::kStructure;

    static LegendEntry ramp(std::string label) { return {0, std::move(label), Kind::kRamp}; }
    static LegendEntry area(Color c, std::string label, When w = When::kStructure) {
        return {c, std::move(label), Kind::kFill, w};
    }
    static LegendEntry selection(Color c, std::string label) {
        return {c, std::move(label), Kind::kLine, When::kSelection};
    }
    static LegendEntry query(Color c, std::string label) {
        return {c, std::move(label), Kind::kLine, When::kQuery};
    }
};

// The query trace's colours most algorithms share, so their legends say the same.
inline constexpr Color kTraceTakenColor = rgba(0.3f, 1.0f, 0.4f, 0.9f);
inline constexpr Color kTraceDescendedColor = rgba(0.2f, 0.9f, 1.0f, 0.8f);
inline constexpr Color kTracePrunedColor = rgba(0.6f, 0.6f, 0.6f, 0.5f);
inline constexpr Color kHighlightColor = rgba(1, 1, 1);  // the selected body's own cell/node

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
    // What the colours of draw() mean, from the same constants draw() uses; empty if the
    // algorithm draws nothing of its own.
    virtual std::vector<LegendEntry> legend() const { return {}; }
    // Watch mode: attach a recorder to the next updates (null detaches it). False when the
    // algorithm cannot record (a GPU row; see record_update in watch.hpp).
    virtual bool set_watch(WatchRecorder<D>* /*recorder*/) { return false; }
    // The pseudocode the Watch panel shows beside a recording, and which line each event
    // lights; empty where the algorithm does not record.
    virtual WatchScript watch_script() const { return {}; }
    // Why the algorithm cannot record, for the panel; empty when it can.
    virtual std::string why_not_recorded() const { return "its code has no Watch hooks"; }
};

// The view of `algorithm`: the engine's rows, auto, the still split and the GPU rows
// implement one beside their BroadPhase; an algorithm without one (a peer) draws nothing.
template <int D>
const BroadPhaseView<D>& view_of(const BroadPhase<D>& algorithm) {
    static const BroadPhaseView<D> kNothingToShow;
    const auto* view = dynamic_cast<const BroadPhaseView<D>*>(&algorithm);
    return view != nullptr ? *view : kNothingToShow;
}

}  // namespace collide
