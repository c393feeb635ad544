// What the renderer and the cameras work with: GPU vertex and instance layouts, the overlay
// geometry of one frame, and world boxes. Colours are 0xAARRGGBB (the engine's
// collide::Color); nothing here depends on the simulation.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "collide/core.hpp"

namespace collidoscope {

// World boxes cross the app's boundaries as the engine's 3D box (z = 0 in 2D).
using Box3 = collide::Aabb<3>;

// One body as the GPU sees it (20 bytes); the GPU reads `color` as BGRA bytes.
struct Instance {
    glm::vec3 centre;
    float radius;
    std::uint32_t color;  // 0xAARRGGBB
};

// The GPU world's bodies as its buffers hold them (GL buffer names; collide/gpu/gpu_world.hpp
// gives the layout, D floats of position a body), which the renderer draws from directly,
// and the speed the colour ramp tops out at.
struct GpuBodies {
    unsigned pos = 0, vel = 0, radius = 0, mass = 0;
    std::size_t count = 0;
    int dim = 2;
    float speed_scale = 1.0f;
    float max_radius = 0.0f;  // the largest body's: small ones are drawn as point sprites
    int mass_stride = 8;      // bytes from one body's inverse mass to the next
};

// The CPU world's bodies as its arrays hold them (D floats of position and of velocity a
// body, a radius, an inverse mass: 0 static), which the renderer uploads as they are and
// colours in the shader, rather than building an instance per body. `shape_id` changes only
// when the radii and masses do (another world): they are uploaded again only then.
struct BodyArrays {
    // inv_mass: 0 for a static body, < 0 for a sleeping one (drawn dimmed), else > 0.
    std::span<const float> pos, vel, radius, inv_mass;
    int dim = 2;
    float speed_scale = 1.0f;
    float max_radius = 0.0f;
    std::uint64_t shape_id = 0;
    std::uint64_t revision = 0;       // of pos and vel (collide::World::revision)
    std::uint64_t mass_revision = 0;  // of inv_mass (collide::World::flags_revision)
};

// One end of an overlay line.
struct LineVertex {
    glm::vec3 pos;
    std::uint32_t color;  // 0xAARRGGBB
};

struct Label {
    glm::vec3 at;
    std::string text;
    std::uint32_t color;  // 0xAARRGGBB
};

// Everything the overlays draw this frame: line pairs, translucent triangles (heat maps;
// drawn under the bodies in 2D) and text labels.
struct OverlayGeometry {
    std::vector<LineVertex> lines;
    std::vector<LineVertex> triangles;
    std::vector<Label> labels;
    void clear() {
        lines.clear();
        triangles.clear();
        labels.clear();
    }
};

// Implicit bodies as drawn: their polygonized surfaces at their poses, in their colours
// (2D: outline segments; 3D: lit, opaque triangles).
struct ShapeGeometry {
    std::vector<LineVertex> lines;
    std::vector<LineVertex> triangles;
};

}  // namespace collidoscope
