// The one case of BodyChanges that the Box2D v3 and Jolt peers adapt: every slot present, the
// still bodies named at the reset and fixed from then on (their static tree, their non-moving
// layer). Sleep and churn are not adapted yet; fed them, a peer says so instead of guessing.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "collide/body_changes.hpp"

namespace collide::bench {

// Throws std::invalid_argument naming `peer` unless `c` fits that case (`built`: the peer
// has taken a reset since). At a reset, `still` becomes the still bodies' flags.
template <int D>
void take_fixed_still_set(const BodyChanges<D>& c, bool built, std::string_view peer,
                          std::vector<std::uint8_t>& still) {
    const bool every_slot = c.moving.size() + c.stilled.size() == c.boxes.size();
    if (c.reset ? !every_slot : (!built || !c.stilled.empty() || !c.left.empty()))
        throw std::invalid_argument(
            std::string(peer) +
            ": fed changes, it handles a fixed set of static and moving bodies only (no sleep, "
            "no bodies added or removed)");
    if (!c.reset) return;
    still.assign(c.boxes.size(), 0);
    for (const BodyId id : c.stilled) still[id] = 1;
}

}  // namespace collide::bench
