// The tunnelling check: a measuring instrument that watches World<D> step from outside and
// counts pairs that passed into each other during a step without the world seeing a contact
// (what continuous collision prevents). Its candidates come from its own broad phase over
// the bodies' paths, given by the caller, whatever the world's broad phase or its swept
// setting.
#pragma once

#include <cstdint>
#include <memory>

#include "collide/world.hpp"

namespace collide {

// Pairs that passed into each other without a contact.
struct TunnellingCount {
    std::uint64_t last_step = 0;
    std::uint64_t total = 0;
};

template <int D>
class TunnellingCheck final : public StepObserver<D> {
public:
    // `path_sweep` finds the pairs whose paths' boxes overlap (the callers use sort-and-sweep).
    explicit TunnellingCheck(std::unique_ptr<BroadPhase<D>> path_sweep);

    void observe(const World<D>& world) override;
    const TunnellingCount& count() const { return count_; }
    // Rewinding the world rewinds the count with it.
    void set_count(const TunnellingCount& count) { count_ = count; }

private:
    std::unique_ptr<BroadPhase<D>> path_sweep_;
    std::vector<Aabb<D>> path_boxes_;
    PairList path_pairs_;
    TunnellingCount count_;
};

// Steps `world`, with `check` watching when its settings ask for the count
// (WorldSettings::count_tunnelling).
template <int D>
void step_counting_tunnelling(World<D>& world, TunnellingCheck<D>& check) {
    world.step(world.settings().count_tunnelling ? &check : nullptr);
}

}  // namespace collide
