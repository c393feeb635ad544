// Marching cubes over the shape's local box: g at every grid corner, a vertex on each cell
// edge whose corners differ in sign (inside = g < 0), refined onto the surface and shared by
// the four cells around the edge, triangles from the compile-time case table. The box is sound
// (f < 1 on and beyond its faces), so the boundary corners are all outside and the surface
// closes.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "collide/implicit.hpp"
#include "implicit/marching_cubes_table.hpp"
#include "implicit/refine.hpp"

namespace collide {

template <>
ImplicitMesh<3> polygonize<3>(const ImplicitShape<3>& shape, const PolygonizeOptions& options) {
    if (options.resolution < 1 || options.resolution > 1024)
        throw std::invalid_argument("polygonize: resolution = " +
                                    std::to_string(options.resolution) + " must be from 1 to 1024");
    const int n = options.resolution;
    const std::size_t side = static_cast<std::size_t>(n) + 1;
    ImplicitMesh<3> mesh;
    mesh.resolution = n;
    mesh.cell_size = grid_cell_size(shape, n);
    const Vec<3> lo = shape.local_box().lo;
    auto at = [&](std::size_t i, std::size_t j, std::size_t k) {
        return i + side * (j + side * k);
    };
    auto corner = [&](std::size_t i, std::size_t j, std::size_t k) {
        return lo + Vec<3>(float(i), float(j), float(k)) * mesh.cell_size;
    };

    std::vector<float> g(side * side * side);
    for (std::size_t k = 0; k < side; ++k) {
        for (std::size_t j = 0; j < side; ++j) {
            for (std::size_t i = 0; i < side; ++i) g[at(i, j, k)] = shape.density(corner(i, j, k));
        }
    }
    mesh.density_evals += g.size();

    // One vertex slot per grid edge: axis a, indexed by the edge's lower corner.
    constexpr std::uint32_t kNone = ~std::uint32_t{0};
    std::vector<std::uint32_t> slots(3 * g.size(), kNone);
    const mc::Table& table = mc::table();

    for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k) {
        for (std::size_t j = 0; j < static_cast<std::size_t>(n); ++j) {
            for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
                int code = 0;
                for (int c = 0; c < 8; ++c) {
                    const std::size_t id = at(i + (c & 1), j + (c >> 1 & 1), k + (c >> 2 & 1));
                    code |= (g[id] < 0.0f) << c;
                }
                const mc::Case& cs = table[code];
                for (int t = 0; t < cs.triangle_count; ++t) {
                    for (int v = 0; v < 3; ++v) {
                        const int e = cs.edges[3 * t + v];
                        const int axis = mc::edge_axis(e), c0 = mc::edge_corner0(e);
                        const std::size_t i0 = i + (c0 & 1), j0 = j + (c0 >> 1 & 1),
                                          k0 = k + (c0 >> 2 & 1);
                        const std::size_t id0 = at(i0, j0, k0);
                        std::uint32_t& slot = slots[3 * id0 + axis];
                        if (slot == kNone) {
                            const std::size_t id1 = id0 + (axis == 0   ? 1
                                                           : axis == 1 ? side
                                                                       : side * side);
                            Vec<3> a = corner(i0, j0, k0);
                            Vec<3> b = corner(i0 + (axis == 0), j0 + (axis == 1), k0 + (axis == 2));
                            float ga = g[id0], gb = g[id1];
                            if (ga >= 0.0f) {
                                std::swap(a, b);
                                std::swap(ga, gb);
                            }
                            slot = add_refined_vertex(shape, a, ga, b, gb, options, mesh);
                        }
                        mesh.indices.push_back(slot);
                    }
                }
            }
        }
    }
    return mesh;
}

}  // namespace collide
