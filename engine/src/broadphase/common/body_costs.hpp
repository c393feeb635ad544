// Per-body cost counters for the viewer's heat map: how many candidate tests each body took
// part in during the last update. An algorithm holds one and calls add() where it counts a
// candidate test; the counters exist only while tracking is on, so the timed path (the
// bench, tracking off) pays one predictable branch per test and no memory traffic.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "collide/core.hpp"

namespace collide {

class BodyCosts {
public:
    void track(bool on) {
        on_ = on;
        if (!on) counts_.clear();
    }
    bool on() const { return on_; }
    // This, or null when off: hoisted out of a hot loop, one register test per candidate.
    const BodyCosts* if_on() const { return on_ ? this : nullptr; }
    // Zeroes the counters of n bodies; call at the start of an update.
    void reset(std::size_t n) {
        if (on_) counts_.assign(n, 0);
    }
    // One candidate test of `a` (against a body or a node). Safe from parallel sweeps:
    // relaxed atomic increments, as two chunks may count the same body.
    void add(BodyId a, std::uint32_t k = 1) const {
        if (on_) std::atomic_ref<std::uint32_t>(counts_[a]).fetch_add(k, std::memory_order_relaxed);
    }
    // One candidate test between two bodies: it counts for both.
    void add_pair(BodyId a, BodyId b) const {
        if (!on_) return;
        add(a);
        add(b);
    }
    // Copies the counters into `out` (one per body); false when tracking is off or the
    // number of bodies differs from the last update's.
    bool copy_to(std::span<std::uint32_t> out) const {
        if (!on_ || out.size() != counts_.size()) return false;
        std::copy(counts_.begin(), counts_.end(), out.begin());
        return true;
    }

private:
    bool on_ = false;
    // Mutable: the sweeps that count are const members run in parallel chunks.
    mutable std::vector<std::uint32_t> counts_;
};

}  // namespace collide
