// The overlay's shapes as line and triangle vertices: a line, a box's edges, a box's faces
// filled, a ring facing the viewer. The overlay builder and Watch mode's drawing share them.
#pragma once

#include <cmath>
#include <numbers>
#include <vector>

#include "collide/debug_draw.hpp"
#include "common/geometry.hpp"
#include "sim/dim_cast.hpp"

namespace collidoscope {

inline constexpr int kRingSegments = 48;

inline void add_line(std::vector<LineVertex>& lines, const glm::vec3& a, const glm::vec3& b,
              collide::Color c) {
    lines.push_back({a, c});
    lines.push_back({b, c});
}

// A box as its 4 (2D) or 12 (3D) edges.
template <int D>
void add_box(std::vector<LineVertex>& lines, const collide::Aabb<D>& box, collide::Color c) {
    const glm::vec3 lo = to3<D>(box.lo);
    const glm::vec3 hi = to3<D>(box.hi);
    if constexpr (D == 2) {
        add_line(lines, {lo.x, lo.y, 0}, {hi.x, lo.y, 0}, c);
        add_line(lines, {hi.x, lo.y, 0}, {hi.x, hi.y, 0}, c);
        add_line(lines, {hi.x, hi.y, 0}, {lo.x, hi.y, 0}, c);
        add_line(lines, {lo.x, hi.y, 0}, {lo.x, lo.y, 0}, c);
    } else {
        // Corner i has x from bit 0, y from bit 1, z from bit 2; an edge flips one bit.
        auto corner = [&](int i) {
            return glm::vec3(i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z);
        };
        for (int i = 0; i < 8; ++i) {
            for (int bit = 1; bit < 8; bit <<= 1) {
                if (!(i & bit)) add_line(lines, corner(i), corner(i | bit), c);
            }
        }
    }
}

// Two triangles per face: the rectangle in 2D, the six faces in 3D.
template <int D>
void add_fill(std::vector<LineVertex>& tris, const collide::Aabb<D>& box, collide::Color c) {
    const glm::vec3 lo = to3<D>(box.lo);
    const glm::vec3 hi = to3<D>(box.hi);
    auto quad = [&](glm::vec3 a, glm::vec3 b, glm::vec3 d, glm::vec3 e) {
        for (const glm::vec3& p : {a, b, d, a, d, e}) tris.push_back({p, c});
    };
    if constexpr (D == 2) {
        quad({lo.x, lo.y, 0}, {hi.x, lo.y, 0}, {hi.x, hi.y, 0}, {lo.x, hi.y, 0});
    } else {
        // A cube shows two or three faces over each other (and cells stack in depth), so
        // each face gets half the alpha the algorithm asked for.
        c = (((c >> 24) / 2) << 24) | (c & 0x00FFFFFFu);
        // Faces at x, y, z = lo and hi: axis k is fixed, the other two span the face.
        for (int k = 0; k < 3; ++k) {
            const int u = (k + 1) % 3;
            const int v = (k + 2) % 3;
            for (const float side : {lo[k], hi[k]}) {
                glm::vec3 p[4];
                for (int i = 0; i < 4; ++i) {
                    p[i][k] = side;
                    p[i][u] = (i == 1 || i == 2) ? hi[u] : lo[u];
                    p[i][v] = (i >= 2) ? hi[v] : lo[v];
                }
                quad(p[0], p[1], p[2], p[3]);
            }
        }
    }
}

inline void add_ring(std::vector<LineVertex>& lines, const glm::vec3& centre, float radius,
              const glm::vec3& right, const glm::vec3& up, collide::Color c,
              int segments = kRingSegments) {
    const float step = 2.0f * std::numbers::pi_v<float> / static_cast<float>(segments);
    glm::vec3 prev = centre + right * radius;
    for (int i = 1; i <= segments; ++i) {
        const float a = step * static_cast<float>(i);
        const glm::vec3 next = centre + (right * std::cos(a) + up * std::sin(a)) * radius;
        add_line(lines, prev, next, c);
        prev = next;
    }
}

}  // namespace collidoscope
