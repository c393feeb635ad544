// Watch mode on the world view: the event the player is at, drawn the way its step reads
// (a cell or node lit, a body placed, the sweep's cursor line and active list, the two boxes
// under test, a BIGMIN jump), over the faded trail of the regions visited before it in the
// same phase and the pairs reported so far.
#pragma once

#include "common/geometry.hpp"
#include "sim/watch_tape.hpp"

namespace collidoscope {

// Appends the player's current event to `out` (nothing before the first event).
void add_watch_overlay(const WatchPlayer& player, OverlayGeometry& out);

}  // namespace collidoscope
