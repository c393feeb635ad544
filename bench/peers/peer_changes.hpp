// BodyChanges as the Box2D v3 and Jolt peers take them: each update, the bodies that left
// their place (removed, or moved from moving to still and back, or a still body placed anew)
// and those that arrived, still or moving, so that a peer destroys and creates their proxies
// or bodies through its engine's API, as a game would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "collide/body_changes.hpp"

namespace collide::bench {

class PeerChanges {
public:
    enum class State : std::uint8_t { kAbsent, kMoving, kStill };

    // Reads one update (after a reset: every present body arrives). `departed` are the
    // bodies that left their state, in this update's order; `arrived` those that take one,
    // moving or still; a body may be in both (it was placed anew).
    template <int D>
    void read(const BodyChanges<D>& c) {
        departed_.clear();
        arrived_.clear();
        const std::size_t n = c.boxes.size();
        if (c.reset) {
            state_.assign(n, State::kAbsent);
            moving_.clear();
        }
        if (state_.size() < n) state_.resize(n, State::kAbsent);
        ++stamp_;
        seen_.resize(n, 0);
        for (const BodyId id : c.moving) seen_[id] = stamp_;
        for (const BodyId id : moving_)
            if (id < n && seen_[id] != stamp_) depart(id);
        for (const BodyId id : c.left)
            if (state_[id] == State::kStill) depart(id);
        for (const BodyId id : c.stilled) arrive(id, State::kStill);
        for (const BodyId id : c.moving)
            if (state_[id] != State::kMoving) arrive(id, State::kMoving);
        moving_.assign(c.moving.begin(), c.moving.end());
    }

    // read() for `peer`'s update_changes: the first update must be a reset (before it the
    // peer has nothing to move); throws std::invalid_argument naming the peer otherwise.
    template <int D>
    void read_for(const BodyChanges<D>& c, bool built, std::string_view peer) {
        if (!c.reset && !built)
            throw std::invalid_argument(std::string(peer) +
                                        ": the first update from changes needs a reset");
        read(c);
    }

    State state(BodyId id) const { return state_[id]; }
    bool still(BodyId id) const { return state_[id] == State::kStill; }
    bool present(BodyId id) const { return state_[id] != State::kAbsent; }
    // For bodies 0..n-1 of the last update, 1 for the still ones: a rebuild's static flags.
    std::vector<std::uint8_t> still_flags(std::size_t n) const {
        std::vector<std::uint8_t> out(n);
        for (BodyId id = 0; id < n; ++id) out[id] = still(id);
        return out;
    }
    const std::vector<BodyId>& departed() const { return departed_; }
    const std::vector<BodyId>& arrived() const { return arrived_; }

private:
    void depart(BodyId id) {
        state_[id] = State::kAbsent;
        departed_.push_back(id);
    }
    void arrive(BodyId id, State s) {
        state_[id] = s;
        arrived_.push_back(id);
    }

    std::vector<State> state_;
    std::vector<BodyId> moving_, departed_, arrived_;
    std::vector<std::uint32_t> seen_;
    std::uint32_t stamp_ = 0;
};

// A rebuild's loop: add(id) for each of bodies 0..n-1 that `changes` has present (each of
// them without changes); returns how many are absent.
template <typename Add>
std::size_t add_present(std::size_t n, const PeerChanges* changes, const Add& add) {
    std::size_t absent = 0;
    for (BodyId id = 0; id < n; ++id) {
        if (changes && !changes->present(id)) {
            ++absent;
        } else {
            add(id);
        }
    }
    return absent;
}

}  // namespace collide::bench
