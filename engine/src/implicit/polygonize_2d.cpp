// Marching squares over the shape's local box: g at every grid corner, a vertex on each cell
// edge whose corners differ in sign (inside = g < 0), refined onto the surface, shared by the
// two cells of the edge; one or two segments per cell. The box is sound (f < 1 on and beyond
// its faces), so the boundary corners are all outside and every contour closes.
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "collide/implicit.hpp"
#include "implicit/refine.hpp"

namespace collide {

template <>
ImplicitMesh<2> polygonize<2>(const ImplicitShape<2>& shape, const PolygonizeOptions& options) {
    if (options.resolution < 1 || options.resolution > 4096)
        throw std::invalid_argument("polygonize: resolution = " +
                                    std::to_string(options.resolution) + " must be from 1 to 4096");
    const int n = options.resolution;
    const int side = n + 1;
    ImplicitMesh<2> mesh;
    mesh.resolution = n;
    mesh.cell_size = grid_cell_size(shape, n);
    const Vec<2> lo = shape.local_box().lo;
    auto corner = [&](int i, int j) {
        return lo + Vec<2>(i * mesh.cell_size.x, j * mesh.cell_size.y);
    };

    std::vector<float> g(static_cast<std::size_t>(side) * side);
    for (int j = 0; j < side; ++j) {
        for (int i = 0; i < side; ++i) g[i + j * side] = shape.density(corner(i, j));
    }
    mesh.density_evals += g.size();

    // Vertex of each edge, created on first use: horizontal edges (i,j)-(i+1,j) and
    // vertical edges (i,j)-(i,j+1), both indexed by their lower corner.
    constexpr std::uint32_t kNone = ~std::uint32_t{0};
    std::vector<std::uint32_t> h_vertex(g.size(), kNone), v_vertex(g.size(), kNone);
    auto edge_vertex = [&](int i0, int j0, int i1, int j1) {
        const bool horizontal = j0 == j1;
        const std::size_t key = static_cast<std::size_t>(std::min(i0, i1)) +
                                static_cast<std::size_t>(std::min(j0, j1)) * side;
        std::uint32_t& slot = horizontal ? h_vertex[key] : v_vertex[key];
        if (slot != kNone) return slot;
        float ga = g[i0 + j0 * side], gb = g[i1 + j1 * side];
        Vec<2> a = corner(i0, j0), b = corner(i1, j1);
        if (ga >= 0.0f) {
            std::swap(a, b);
            std::swap(ga, gb);
        }
        slot = add_refined_vertex(shape, a, ga, b, gb, options, mesh);
        return slot;
    };

    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
            // Corners counter-clockwise from (i, j); edge e joins corner e and corner e + 1.
            const std::array<std::array<int, 2>, 4> c = {
                {{i, j}, {i + 1, j}, {i + 1, j + 1}, {i, j + 1}}};
            int code = 0;
            for (int k = 0; k < 4; ++k) code |= (g[c[k][0] + c[k][1] * side] < 0.0f) << k;
            if (code == 0 || code == 15) continue;
            auto vertex_on = [&](int e) {
                const auto& a = c[e];
                const auto& b = c[(e + 1) & 3];
                return edge_vertex(a[0], a[1], b[0], b[1]);
            };
            // Pairs of crossed edges to join. Saddles (5, 10): the g at the centre says
            // whether the inside corners connect through the cell.
            std::array<int, 4> join{};
            int joins = 0;
            if (code == 5 || code == 10) {
                const float centre = shape.density(corner(i, j) + 0.5f * mesh.cell_size);
                ++mesh.density_evals;
                const bool inside_connected = centre < 0.0f;
                // Cut off corners 0 and 2 (edges 3,0 and 1,2) or corners 1 and 3.
                const bool cut_02 = (code == 5) != inside_connected;
                join = cut_02 ? std::array<int, 4>{3, 0, 1, 2} : std::array<int, 4>{0, 1, 2, 3};
                joins = 2;
            } else {
                int m = 0;
                for (int e = 0; e < 4; ++e) {
                    if (((code >> e) ^ (code >> ((e + 1) & 3))) & 1) join[m++] = e;
                }
                joins = 1;
            }
            for (int s = 0; s < joins; ++s) {
                std::uint32_t p = vertex_on(join[2 * s]), q = vertex_on(join[2 * s + 1]);
                // Wind with the inside on the left: the right-hand normal points outwards.
                const Vec<2> d = mesh.vertices[q] - mesh.vertices[p];
                const Vec<2> out = mesh.normals[p] + mesh.normals[q];
                if (d.y * out.x - d.x * out.y < 0.0f) std::swap(p, q);
                mesh.indices.push_back(p);
                mesh.indices.push_back(q);
            }
        }
    }
    return mesh;
}

}  // namespace collide
