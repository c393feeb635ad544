// Jolt's BroadPhaseQuadTree and BodyManager behind a narrow interface of plain types, for
// peer:jolt-quadtree. jolt_world.cpp is compiled with Jolt's CPU flags (-mavx2 -mfma ...) in a
// library of its own, so this header declares no inline function or template the rest of the
// bench also uses: the linker keeps one copy of each such function for the whole program, and
// an AVX2 copy chosen here would run in every subject.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace collide::bench::jolt {

// Receives one body pair (a < b not guaranteed) or one body found by a query.
using PairSink = void (*)(void* context, std::uint32_t a, std::uint32_t b);
using BodySink = void (*)(void* context, std::uint32_t body);

class World {
public:
    World();
    ~World();
    World(const World&) = delete;
    World& operator=(const World&) = delete;

    // The most bodies Jolt's body ids can name.
    static std::size_t max_bodies();

    // Starts over with n bodies (centres and half-sides as x, y, z triples; static flags).
    void reset(const float* centres, const float* halves, const std::uint8_t* is_static,
               std::uint32_t n);
    // Bodies leaving the world and coming back, as a game pools them with BodyInterface's
    // RemoveBodies and AddBodies: removed bodies are deactivated and leave the broad phase;
    // added ones (removed before) are placed and join it again, activated when dynamic. A
    // body that comes back static after being dynamic, or the reverse, is destroyed and made
    // anew under the same index.
    void remove(const std::uint32_t* bodies, std::uint32_t count);
    void add(const std::uint32_t* bodies, const float* centres, const float* halves,
             const std::uint8_t* is_static, std::uint32_t count);
    // Moves a body (notified in the next step); it gets a new shape when its half-sides
    // differ from its shape's by more than `tolerance`.
    void move(std::uint32_t body, const float* centre, const float* half, float tolerance);
    // One step of PhysicsSystem's broad-phase work (see jolt_world.cpp); returns the number
    // of bodies moved since the last step.
    std::size_t step(float speculative, PairSink sink, void* context);
    void query(const float* lo, const float* hi, BodySink sink, void* context) const;
    // Jolt's node pool and bodies, estimated (their sizes are private to Jolt).
    std::size_t bytes() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace collide::bench::jolt
