// The seed's refinement, shared by both polygonizers: a vertex placed by linear interpolation
// on a cell edge moves by bisection along the edge until |g| is below the tolerance, so the
// point set lies on the true surface rather than on the interpolated one.
#pragma once

#include <cmath>
#include <cstdint>

#include "collide/implicit.hpp"

namespace collide {

// `in` has g_in < 0 (inside), `out` has g_out >= 0. Appends the refined vertex and its unit
// outward normal to `mesh` and returns its index.
template <int D>
std::uint32_t add_refined_vertex(const ImplicitShape<D>& shape, Vec<D> in, float g_in, Vec<D> out,
                                 float g_out, const PolygonizeOptions& options,
                                 ImplicitMesh<D>& mesh) {
    float t = g_in / (g_in - g_out);  // in [0, 1): the interpolated crossing
    Vec<D> x = in + t * (out - in);
    float g = shape.density(x);
    ++mesh.density_evals;
    Vec<D> best = x;
    float best_g = g;
    int it = 0;
    while (!(std::abs(g) < options.tolerance)) {
        if (it == options.max_iterations) {
            ++mesh.refine_failures;
            break;
        }
        (g < 0.0f ? in : out) = x;
        x = 0.5f * (in + out);
        g = shape.density(x);
        ++mesh.density_evals;
        ++it;
        if (std::abs(g) < std::abs(best_g)) {
            best = x;
            best_g = g;
        }
    }
    mesh.refine_iterations += it;
    Vec<D> grad;
    shape.density_gradient(best, grad);
    ++mesh.density_evals;
    const float len = glm::length(grad);
    mesh.max_abs_density = std::max(mesh.max_abs_density, std::abs(best_g));
    mesh.vertices.push_back(best);
    mesh.normals.push_back(len > 0.0f ? grad / len : Vec<D>(0.0f));
    return static_cast<std::uint32_t>(mesh.vertices.size() - 1);
}

// Cell size of a grid of `resolution` cells per axis over the shape's local box.
template <int D>
Vec<D> grid_cell_size(const ImplicitShape<D>& shape, int resolution) {
    return shape.local_box().size() / static_cast<float>(resolution);
}

}  // namespace collide
