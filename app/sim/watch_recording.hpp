// Records one update of an algorithm for Watch mode: a fresh instance of it, with the live
// one's parameters, on the frame's boxes (so the recording shows the whole build and
// search, as a first frame does), through collide::record_update, into a WatchTape.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "collide/broadphase.hpp"
#include "sim/watch_tape.hpp"

namespace collidoscope {

// `ids`: recorded index -> world id when the boxes were compacted (empty otherwise);
// `focus`: the world id of the selected body, kept whole at large n; `query`: the viewer's
// region, whose query() on the built structure follows the update as a phase "query":
// the regions its own trace says it looked in or skipped, then each body it returned.
template <int D>
WatchTape record_tape(std::string_view algorithm, collide::BroadPhase<D>& live,
                      std::span<const collide::Aabb<D>> boxes,
                      std::span<const std::uint8_t> is_static,
                      std::span<const collide::BodyId> ids, collide::BodyId focus,
                      const std::optional<collide::Aabb<D>>& query);

}  // namespace collidoscope
