// A saved state of a SimWorld (the rewind buffer's snapshots, session_history.hpp) and the
// hash of what decides its future (the recordings' checks, session_file.hpp). Both are the
// same state: the hash is taken over what a snapshot holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "collide/tunnelling_check.hpp"
#include "collide/world.hpp"

namespace collidoscope {

// The GPU world keeps a rewind snapshot of every step up to this many bodies; beyond, none,
// since each would read every body back and stall the GPU.
inline constexpr std::size_t kGpuRewindBodies = 100'000;

// A saved state of a SimWorld: the world's own snapshot (collide::World::Snapshot says what
// it holds) and the tunnelling count. Only the world that made it can restore it.
class WorldSnapshot {
public:
    virtual ~WorldSnapshot() = default;
    virtual std::uint64_t step() const = 0;
    virtual std::size_t bytes() const = 0;
};

// The snapshot of a World<D>; the base class hides D from the rewind buffer.
template <int D>
struct SnapshotOf final : WorldSnapshot {
    typename collide::World<D>::Snapshot world;
    collide::TunnellingCount tunnelling;
    std::uint64_t step() const override { return world.steps; }
    std::size_t bytes() const override { return sizeof(*this) + world.bytes(); }
};

// A snapshot to fill: `spare` if it is a SnapshotOf<D> (its buffers are reused, so no fresh
// pages are faulted in at a million bodies), else a new one.
template <int D>
std::unique_ptr<SnapshotOf<D>> reuse_snapshot(std::unique_ptr<WorldSnapshot> spare);

// About the bytes a snapshot of `world` takes, without taking one.
template <int D>
std::size_t snapshot_bytes(const collide::World<D>& world);

// FNV-1a over the raw bytes of what decides the future: positions, velocities, rotations,
// spins, the step counter, the solver's warm-start impulses, who sleeps, and the tunnelling
// count `tunnelled`. Two worlds with equal hashes step on alike.
template <int D>
std::uint64_t state_hash(const typename collide::World<D>::Snapshot& s, std::uint64_t tunnelled);

}  // namespace collidoscope
