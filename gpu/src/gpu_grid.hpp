// A levelled grid built on the GPU every frame: each body goes to the level whose cells fit
// its size (cells double from level to level, so powerlaw's sizes spread over levels rather
// than crowding one), keyed by the cell of its low corner; a radix sort orders the keys, and
// each body then scans the rows of cells its box reaches at its own level and every coarser
// level in use. The levels are laid out on the host from the bounds pass, so the keys never
// overflow: at most 2^16 cells an axis in 2D and 2^15 in 3D.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>

#include "gpu_broadphase.hpp"

namespace collide::gpu {

// The grid's levels for one frame (the kernels get them as uniforms).
template <int D>
struct GridLayout {
    static constexpr int kMaxLevels = 32;
    Vec<D> origin{0.0f};
    float c0 = 1.0f;  // cell side at level 0
    int levels = 1;
    std::array<std::array<std::uint32_t, 3>, kMaxLevels> dims{};  // cells per axis
    std::array<std::uint32_t, kMaxLevels> base{};                 // first row key
    std::array<float, kMaxLevels> fit{};       // the largest body side a level takes
    std::array<float, kMaxLevels> inv_cell{};  // 1 / cell side
    std::uint32_t rows = 0;                    // row keys in all

    float cell(int level) const { return std::ldexp(c0, level); }
    // Lays the levels out so the finest cells fit the smallest body and the coarsest the
    // largest, with at most kMaxCells cells an axis.
    static GridLayout from(const SceneBounds<D>& bounds);
};

// Sets the layout's uniforms (grid_levels.glsl) in `program`, which must be in use.
template <int D>
void set_grid_uniforms(GLuint program, const GridLayout<D>& layout);

// The grid's keys: (row, column, body) for every body, sorted into cell order, and the set
// of levels in use. gpu-grid builds them from its uploaded boxes, the GPU world from the
// boxes its integration wrote.
struct GridKeys {
    StorageBuffer rows, columns, ids, rows_scratch, columns_scratch, ids_scratch, level_mask;

    // Keys the `n` boxes (bound where common.glsl reads them) and sorts them.
    template <int D>
    void build(ComputeContext& ctx, RadixSort& sort, const GridLayout<D>& layout, std::size_t n);
    // Binds them where grid_keys.comp and grid_pairs.comp find them.
    void bind() const;
    std::size_t bytes() const;
};

template <int D>
class GpuGrid final : public GpuBroadPhase<D> {
public:
    void query(const Aabb<D>& region, std::vector<BodyId>& out,
               QueryTrace<D>* trace = nullptr) const override;

    void draw(DebugDraw<D>& draw, const Overlays<D>& which) const override;
    std::string describe(BodyId id) const override;
    std::vector<LegendEntry> legend() const override;
    std::vector<std::string> layers() const override;
    // Reads the keys back: ids a permutation, keys in (row, column) order, and each body
    // with a finite box keyed by the level and cell the host computes for it.
    void validate() const override;

private:
    void build(const SceneBounds<D>& bounds) override;
    void bind_pair_inputs() override;
    GLuint pair_program() override;
    BroadPhaseStats structure_stats() const override;

    // The sorted keys as the GPU left them, on the host.
    struct HostGrid {
        std::vector<std::uint32_t> rows, columns, ids;
        std::uint32_t level_mask = 0;
    };
    const HostGrid& host_grid() const;
    // Level and cell of a body's low corner, as the kernels compute them.
    int level_of(float side) const;
    std::array<int, D> cell_at(const Vec<D>& p, int level) const;
    std::uint32_t row_key(const std::array<int, D>& c, int level) const;
    Aabb<D> cell_box(const std::array<int, D>& c, int level) const;
    // Visits the entries of each cell row that a box at `level` reaches (as the pair pass).
    template <class Fn>
    void for_each_reached(const Aabb<D>& box, int level, Fn&& visit) const;

    GridLayout<D> layout_;
    GridKeys keys_;
    mutable HostGrid host_;
    mutable bool host_fresh_ = false;
};

template <int D>
template <class Fn>
void GpuGrid<D>::for_each_reached(const Aabb<D>& box, int level, Fn&& visit) const {
    const HostGrid& h = host_grid();
    std::array<int, D> from = cell_at(box.lo, level);
    const std::array<int, D> to = cell_at(box.hi, level);
    for (int k = 0; k < D; ++k) from[k] = std::max(from[k] - 1, 0);
    const int z_from = D == 3 ? from[D - 1] : 0;
    const int z_to = D == 3 ? to[D - 1] : 0;
    for (int z = z_from; z <= z_to; ++z) {
        for (int y = from[1]; y <= to[1]; ++y) {
            std::array<int, D> c = from;
            c[1] = y;
            if constexpr (D == 3) c[2] = z;
            const std::uint32_t row = row_key(c, level);
            // The first entry at or after (row, from.x) in the sorted keys.
            std::size_t lo = 0, hi = h.rows.size();
            while (lo < hi) {
                const std::size_t mid = (lo + hi) / 2;
                const bool before =
                    h.rows[mid] < row ||
                    (h.rows[mid] == row && h.columns[mid] < static_cast<std::uint32_t>(from[0]));
                if (before) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            std::size_t end = lo;
            while (end < h.rows.size() && h.rows[end] == row &&
                   h.columns[end] <= static_cast<std::uint32_t>(to[0])) {
                ++end;
            }
            visit(c, from[0], to[0], lo, end);
        }
    }
}

extern template class GpuGrid<2>;
extern template class GpuGrid<3>;

}  // namespace collide::gpu
