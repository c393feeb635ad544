// Churn for the bench's broad mode (--churn F): each frame a share F of the bodies leaves the
// world and as many come back at new places, as a game's bullets, debris and enemies do. A
// slot freed in one frame is taken again in the next (a world that frees and reuses slots, as
// collide::World does), so what the broad phase is told (BodyChanges) names every departure
// and arrival: a moving body leaves the moving list and comes back in it, a still one (static,
// or at rest) is `left` and later `stilled` at its new place. The churn itself is not timed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "collide/body_changes.hpp"
#include "tooling/ballistic.hpp"
#include "tooling/random.hpp"

namespace collide::bench {

template <int D>
class Churn {
public:
    // `still`: per body, 1 where it is still (static or at rest); it stays so across churn.
    Churn(double share, std::vector<std::uint8_t> still, std::uint64_t seed);

    // Frame f's changes: at f = 0 every body, at a reset; later the bodies that came back
    // (placed anew in `motion`) and those that left.
    void frame(int f, BallisticMotion<D>& motion);
    BodyChanges<D> changes(std::span<const Aabb<D>> boxes, bool reset) const {
        return {boxes, moving_, stilled_, left_, reset};
    }
    bool present(BodyId id) const { return present_[id] != 0; }
    std::span<const std::uint8_t> still() const { return still_; }

private:
    void leave(BodyId id);
    void come_back(BodyId id, BallisticMotion<D>& motion);

    std::size_t per_frame_;
    std::vector<std::uint8_t> still_, present_;
    std::vector<BodyId> moving_;
    std::vector<std::uint32_t> in_moving_;  // per body: its index in moving_
    std::vector<int> back_at_;              // per body: the frame it last came back
    std::vector<BodyId> stilled_, left_, gone_;  // gone_: left last frame, back this frame
    int frame_ = 0;
    Rng rng_;
};

}  // namespace collide::bench
