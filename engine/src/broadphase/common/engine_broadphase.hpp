// The base of the engine's own broad phases: the cost heat map's two hooks written once,
// and validate() required of each (the peers in bench/ derive from BroadPhase directly).
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>

#include "broadphase/common/body_costs.hpp"
#include "broadphase/common/same_value.hpp"
#include "collide/broadphase.hpp"
#include "collide/broadphase_view.hpp"

namespace collide {

template <int D>
class EngineBroadPhase : public BroadPhase<D>, public BroadPhaseView<D> {
public:
    void set_cost_tracking(bool on) override { costs_.track(on); }
    bool body_costs(std::span<std::uint32_t> out) const override { return costs_.copy_to(out); }
    // Each of the engine's algorithms checks its own structure (see BroadPhase::validate).
    void validate() const override = 0;

protected:
    // Called at the end of every update: debug builds check the structure each time, as
    // Box2D's and Jolt's trees do; release builds leave it to the tests.
    void validate_in_debug() const {
#ifndef NDEBUG
        this->validate();
#endif
    }

    BodyCosts costs_;
};

// A key or code as validate()'s messages print it: "0x3a".
inline std::string hex(std::uint64_t v) {
    char s[24];
    std::snprintf(s, sizeof s, "0x%llx", static_cast<unsigned long long>(v));
    return s;
}

}  // namespace collide
