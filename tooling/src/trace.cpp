#include "tooling/trace.hpp"

#include <cassert>

namespace collide {

template <int D>
Trace<D> Trace<D>::record(World<D>& world, int frames) {
    assert(frames >= 0);
    Trace t;
    t.frames_ = frames;
    t.is_static_ = world.bodies().is_static;
    t.boxes_.reserve(static_cast<std::size_t>(frames) * t.size());
    for (int f = 0; f < frames; ++f) {
        world.step();
        const auto boxes = world.boxes();
        t.boxes_.insert(t.boxes_.end(), boxes.begin(), boxes.end());
    }
    return t;
}

template class Trace<2>;
template class Trace<3>;

}  // namespace collide
