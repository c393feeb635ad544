// The marching cubes case table (256 corner sign patterns -> triangles over the 12 cube
// edges), generated at compile time from the algorithm's definition instead of typed in:
// on each face, the crossed face edges are joined in pairs (marching squares; a saddle face,
// whose inside corners are diagonal, always cuts its inside corners off, a rule that depends
// on the face's own corners only, so two cubes sharing a face agree and the surface is
// watertight). Every crossed cube edge then ends exactly two face segments, so the segments
// form closed loops; each loop is wound so that its normal points from the inside corners to
// the outside ones and is fanned into triangles.
//
// Corner c has coordinates (c & 1, c >> 1 & 1, c >> 2 & 1). Edge e runs along axis e / 4 from
// corner edge_corner0(e) to edge_corner0(e) | (1 << axis).
#pragma once

#include <array>
#include <cstdint>

namespace collide::mc {

struct Case {
    std::uint8_t triangle_count = 0;
    std::array<std::int8_t, 36> edges{};  // 3 per triangle
};
using Table = std::array<Case, 256>;

constexpr int edge_axis(int e) {
    return e / 4;
}

constexpr int edge_corner0(int e) {
    const int axis = e / 4, m = e % 4;
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    const int first = u < v ? u : v, second = u < v ? v : u;
    return ((m & 1) << first) | (((m >> 1) & 1) << second);
}

constexpr int edge_between(int c0, int c1) {
    const int diff = c0 ^ c1;
    const int axis = diff == 1 ? 0 : diff == 2 ? 1 : 2;
    const int base = c0 & c1;
    for (int e = axis * 4; e < axis * 4 + 4; ++e) {
        if (edge_corner0(e) == base) return e;
    }
    return -1;
}

constexpr std::array<int, 3> corner_pos(int c) {
    return {c & 1, (c >> 1) & 1, (c >> 2) & 1};
}

constexpr Case make_case(int code) {
    auto inside = [code](int c) { return ((code >> c) & 1) != 0; };
    // Neighbours of each crossed edge through the face segments (two per crossed edge).
    std::array<std::array<int, 2>, 12> link{};
    std::array<int, 12> links{};
    auto join = [&](int a, int b) {
        link[a][links[a]++] = b;
        link[b][links[b]++] = a;
    };
    for (int axis = 0; axis < 3; ++axis) {
        for (int side = 0; side < 2; ++side) {
            const int u = (axis + 1) % 3, v = (axis + 2) % 3;
            const int base = side << axis;
            const std::array<int, 4> q = {base, base | (1 << u), base | (1 << u) | (1 << v),
                                          base | (1 << v)};
            std::array<int, 4> crossed{};
            int n = 0;
            for (int k = 0; k < 4; ++k) {
                if (inside(q[k]) != inside(q[(k + 1) % 4])) crossed[n++] = k;
            }
            if (n == 2) {
                join(edge_between(q[crossed[0]], q[(crossed[0] + 1) % 4]),
                     edge_between(q[crossed[1]], q[(crossed[1] + 1) % 4]));
            } else if (n == 4) {
                for (int k = 0; k < 4; ++k) {
                    if (!inside(q[k])) continue;  // cut each inside corner off
                    join(edge_between(q[(k + 3) % 4], q[k]), edge_between(q[k], q[(k + 1) % 4]));
                }
            }
        }
    }
    Case out;
    std::array<bool, 12> used{};
    for (int start = 0; start < 12; ++start) {
        if (links[start] == 0 || used[start]) continue;
        std::array<int, 12> loop{};
        int len = 0, prev = -1, cur = start;
        do {
            used[cur] = true;
            loop[len++] = cur;
            const int next = link[cur][0] != prev ? link[cur][0] : link[cur][1];
            prev = cur;
            cur = next;
        } while (cur != start);
        // Newell normal of the loop through the edge midpoints (doubled coordinates), against
        // the inside-to-outside direction summed over its edges.
        std::array<int, 3> normal{}, outward{};
        for (int k = 0; k < len; ++k) {
            const int e0 = loop[k], e1 = loop[(k + 1) % len];
            std::array<int, 3> p0{}, p1{};
            for (int d = 0; d < 3; ++d) {
                p0[d] = corner_pos(edge_corner0(e0))[d] * 2 + (d == edge_axis(e0) ? 1 : 0);
                p1[d] = corner_pos(edge_corner0(e1))[d] * 2 + (d == edge_axis(e1) ? 1 : 0);
            }
            normal[0] += p0[1] * p1[2] - p0[2] * p1[1];
            normal[1] += p0[2] * p1[0] - p0[0] * p1[2];
            normal[2] += p0[0] * p1[1] - p0[1] * p1[0];
            const int c0 = edge_corner0(e0);
            outward[edge_axis(e0)] += inside(c0) ? 1 : -1;
        }
        const int dot = normal[0] * outward[0] + normal[1] * outward[1] + normal[2] * outward[2];
        if (dot < 0) {
            for (int k = 0; k < len / 2; ++k) {
                const int t = loop[k];
                loop[k] = loop[len - 1 - k];
                loop[len - 1 - k] = t;
            }
        }
        for (int k = 1; k + 1 < len; ++k) {
            const int t = out.triangle_count++;
            out.edges[3 * t] = static_cast<std::int8_t>(loop[0]);
            out.edges[3 * t + 1] = static_cast<std::int8_t>(loop[k]);
            out.edges[3 * t + 2] = static_cast<std::int8_t>(loop[k + 1]);
        }
    }
    return out;
}

constexpr Table make_table() {
    Table t{};
    for (int code = 0; code < 256; ++code) t[code] = make_case(code);
    return t;
}

// The table, built once by the compiler.
const Table& table();

}  // namespace collide::mc
