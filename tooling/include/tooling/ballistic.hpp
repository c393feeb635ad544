// Ballistic motion for benches and tests: bodies fly in straight lines at one speed and
// bounce off the world's walls, with no contacts. It drives a broad phase with realistic
// frame-to-frame coherence without the cost (or the feedback) of a full simulation.
#pragma once

#include <cstdint>
#include <vector>

#include "tooling/scenes.hpp"

namespace collide {

template <int D>
class BallisticMotion {
public:
    // `speed_fraction`: displacement per frame as a fraction of the median radius.
    BallisticMotion(Scene<D> scene, float speed_fraction, std::uint64_t seed);

    // Moves every non-static body one frame and recomputes the boxes.
    void advance();

    const std::vector<Aabb<D>>& boxes() const { return boxes_; }
    const std::vector<std::uint8_t>& is_static() const { return bodies_.is_static; }
    const Bodies<D>& bodies() const { return bodies_; }
    const Aabb<D>& bounds() const { return bounds_; }
    std::size_t size() const { return bodies_.size(); }

private:
    void compute_boxes();

    Aabb<D> bounds_;
    Bodies<D> bodies_;
    std::vector<Aabb<D>> boxes_;
};

}  // namespace collide
