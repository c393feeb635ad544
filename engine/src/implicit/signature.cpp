// The spatial signature: a bit grid over a shape's local box, 1 where a cell may hold a point
// with g <= 0 (the surface or the inside), 0 where it provably does not.
//
// Why surface-touching cells alone would not do: a point of A deep inside B lies in a cell
// that no part of B's surface touches, yet it is a contact. So the bit is 1 for every cell
// that may hold any point with f >= 1, surface or inside, and the only points skipped are
// those certainly outside B, which contribute nothing to the result anyway.
//
// Soundness. For a cell Q, ImplicitShape::field_upper_bound gives B >= f on Q (positive terms
// at Q's nearest point to their centre, negative ones at the farthest) and a margin M above
// the rounding of a float evaluation of f at any point of Q. The bit is 0 only when
// B + M < 1, so a float evaluation there yields f < 1, g > 0: outside, the same verdict the
// unskipped test would reach. Q is the cell inflated by 1e-3 of its size on every side, which
// covers any rounding in computing a point's cell index (a few ulps of at most `resolution`),
// so the cell a point is looked up in always contains it. Points outside the local box are
// skipped too: the box is built so that beyond it f < 1 - kBoxMargin even before negative
// terms (see implicit_shape.cpp), again far beyond rounding. Hence a skipped point would have
// been found outside, the set of inside points is the same with or without the signature,
// and so is the contact (depth and normal come from the inside points only).
#include <cmath>
#include <stdexcept>

#include "collide/implicit.hpp"

namespace collide {

template <int D>
Signature<D>::Signature(const ImplicitShape<D>& shape, int resolution)
    : box_(shape.local_box()), resolution_(resolution) {
    if (resolution < 1 || resolution > (D == 2 ? 4096 : 256))
        throw std::invalid_argument("signature: resolution = " + std::to_string(resolution) +
                                    " is out of range");
    const Vec<D> cell = box_.size() / static_cast<float>(resolution);
    inv_cell_ = 1.0f / cell;
    bits_.assign((cells() + 63) / 64, 0);
    glm::vec<D, int, glm::defaultp> c(0);
    for (;;) {
        Aabb<D> q;
        for (int k = 0; k < D; ++k) {
            q.lo[k] = box_.lo[k] + (c[k] - 1e-3f) * cell[k];
            q.hi[k] = box_.lo[k] + (c[k] + 1.001f) * cell[k];
        }
        float bound = 0.0f, margin = 0.0f;
        shape.field_upper_bound(q, bound, margin);
        ++bound_evals_;
        if (bound + margin >= kImplicitThreshold) {
            const std::size_t id = index(c);
            bits_[id / 64] |= std::uint64_t{1} << (id % 64);
            ++marked_;
        }
        int k = 0;
        while (k < D && ++c[k] == resolution) c[k++] = 0;
        if (k == D) break;
    }
}

template <int D>
std::size_t Signature<D>::cells() const {
    std::size_t n = 1;
    for (int k = 0; k < D; ++k) n *= static_cast<std::size_t>(resolution_);
    return n;
}

template <int D>
std::size_t Signature<D>::index(const glm::vec<D, int, glm::defaultp>& cell) const {
    std::size_t id = 0;
    for (int k = D - 1; k >= 0; --k) id = id * resolution_ + static_cast<std::size_t>(cell[k]);
    return id;
}

template <int D>
bool Signature<D>::bit(const glm::vec<D, int, glm::defaultp>& cell) const {
    const std::size_t id = index(cell);
    return (bits_[id / 64] >> (id % 64)) & 1;
}

template <int D>
bool Signature<D>::may_be_inside(const Vec<D>& local) const {
    glm::vec<D, int, glm::defaultp> c;
    for (int k = 0; k < D; ++k) {
        // Outside the box (or NaN, which the unskipped test also finds not inside).
        if (!(local[k] >= box_.lo[k] && local[k] <= box_.hi[k])) return false;
        const int i = static_cast<int>((local[k] - box_.lo[k]) * inv_cell_[k]);
        c[k] = i < 0 ? 0 : (i >= resolution_ ? resolution_ - 1 : i);
    }
    return bit(c);
}

template class Signature<2>;
template class Signature<3>;

}  // namespace collide
