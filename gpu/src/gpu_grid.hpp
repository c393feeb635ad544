// A levelled grid built on the GPU every frame: each body goes to the level whose cells fit
// its size (cells double from level to level, so powerlaw's sizes spread over levels rather
// than crowding one), keyed by the cell of its low corner. Every cell of every level has one
// key; a cell table of [first, end) runs is indexed by the key itself where the cells are
// few (dense: at most kDenseCellsPerBody a body) or by a hash of it (sparse worlds). A radix
// sort orders the bodies by slot, one pass writes the runs and copies the boxes into sorted
// order, and each body then searches a half stencil of cells at its own level and the cells
// its box reaches at every coarser level in use. The levels are laid out on the host from
// the bounds pass, so the keys never overflow.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>

#include "gpu_broadphase.hpp"

namespace collide::gpu {

// A box of cells of one level, [from, to] on each axis.
template <int D>
struct CellRange {
    std::array<int, D> from, to;

    std::uint64_t count() const {
        std::uint64_t n = 1;
        for (int k = 0; k < D; ++k) n *= static_cast<std::uint64_t>(to[k] - from[k] + 1);
        return n;
    }
    bool contains(const std::array<int, D>& c) const {
        for (int k = 0; k < D; ++k) {
            if (c[k] < from[k] || c[k] > to[k]) return false;
        }
        return true;
    }
    // Calls visit(cell) for each, x fastest (the pair kernel's order).
    template <class Fn>
    void for_each(Fn&& visit) const {
        std::array<int, D> c = from;
        for (;;) {
            visit(c);
            int k = 0;
            for (; k < D && ++c[k] > to[k]; ++k) c[k] = from[k];
            if (k == D) return;
        }
    }
};

// The grid's levels and cell table for one frame (the kernels get them as uniforms).
template <int D>
struct GridLayout {
    static constexpr int kMaxLevels = 32;
    // The table is dense (one slot a cell) up to this many cells a body, else hashed.
    static constexpr std::uint64_t kDenseCellsPerBody = 8;
    Vec<D> origin{0.0f};
    float c0 = 1.0f;  // cell side at level 0
    int levels = 1;
    std::array<std::array<std::uint32_t, 3>, kMaxLevels> dims{};  // cells per axis
    std::array<std::uint32_t, kMaxLevels> base{};                 // first key of each level
    std::array<float, kMaxLevels> fit{};       // the largest body side a level takes
    std::array<float, kMaxLevels> inv_cell{};  // 1 / cell side
    std::uint32_t cells = 0;                   // keys in all
    bool hashed = false;
    std::uint32_t slots = 1;  // the cell table's size

    float cell(int level) const { return std::ldexp(c0, level); }
    // Lays the levels out so the finest cells fit the smallest body and the coarsest the
    // largest, with at most kMaxCells cells an axis, and sizes the table for `bodies`.
    static GridLayout from(const SceneBounds<D>& bounds, std::size_t bodies);

    // The host's mirror of grid_levels.glsl, with the same operations.
    int level_of(float side) const;
    std::array<int, D> cell_at(const Vec<D>& p, int level) const;
    std::uint32_t key(const std::array<int, D>& c, int level) const;
    std::uint32_t slot(std::uint32_t key) const;
    Aabb<D> cell_box(const std::array<int, D>& c, int level) const;
    // The cells of `level` whose bodies can overlap `box`: a body's low corner is at most
    // one cell below any box it overlaps, so from one cell below the box's low corner to
    // the cell of its high corner.
    CellRange<D> reach(const Aabb<D>& box, int level) const;
};

// Sets the layout's uniforms (grid_levels.glsl) in `program`, which must be in use.
template <int D>
void set_grid_uniforms(GLuint program, const GridLayout<D>& layout);

// The grid's sorted entries: (slot, tag) for every body in slot order, the cell table's
// runs, the boxes in sorted order and the set of levels in use. gpu-grid builds them from
// its uploaded boxes, the GPU world from the boxes its integration wrote.
struct GridCells {
    StorageBuffer slots, tags, slots_scratch, tags_scratch, ranges, sorted_boxes, level_mask;

    // Each step of the build over the first `n` of `boxes` (common.glsl's layout) and
    // their static flags.
    template <int D>
    void key(ComputeContext& ctx, const GridLayout<D>& layout, const StorageBuffer& boxes,
             const StorageBuffer& statics, std::size_t n);
    template <int D>
    void sort(ComputeContext& ctx, RadixSort& sort, const GridLayout<D>& layout, std::size_t n);
    template <int D>
    void fill_table(ComputeContext& ctx, const GridLayout<D>& layout, const StorageBuffer& boxes,
                    std::size_t n);
    // The three at once.
    template <int D>
    void build(ComputeContext& ctx, RadixSort& sort, const GridLayout<D>& layout,
               const StorageBuffer& boxes, const StorageBuffer& statics, std::size_t n);
    // Binds them where grid_keys.comp, grid_cells.comp and grid_pairs.comp find them.
    void bind() const;
    std::size_t bytes() const;
};

template <int D>
class GpuGrid final : public GpuBroadPhase<D> {
public:
    void search(const Aabb<D>& region, std::vector<BodyId>& out,
                QueryTrace<D>* trace = nullptr) const override;

    void draw(DebugDraw<D>& draw, const Overlays<D>& which) const override;
    std::string describe(BodyId id) const override;
    std::vector<LegendEntry> legend() const override;
    std::vector<std::string> layers() const override;
    // Reads the grid back: ids a permutation, slots in order, each body with a finite box
    // at the level and in the cell the host computes for it, each slot's run in the table,
    // and the sorted boxes the bodies' own.
    void validate() const override;

private:
    void build(const SceneBounds<D>& bounds) override;
    void bind_pair_inputs() override;
    GLuint pair_program() override;
    BroadPhaseStats structure_stats() const override;

    // The sorted entries as the GPU left them, on the host, their tags decoded once.
    struct HostGrid {
        std::vector<std::uint32_t> slots, ids;
        std::vector<int> levels;  // of each sorted entry
        std::uint32_t level_mask = 0;
    };
    const HostGrid& host_grid() const;
    // The sorted positions of the bodies in cell c of `level`.
    template <class Fn>
    void for_each_in_cell(const std::array<int, D>& c, int level, Fn&& visit) const;
    // The cells a body with `box` searches, in the pair kernel's order: (cell, level).
    template <class Fn>
    void for_each_searched_cell(const Aabb<D>& box, Fn&& visit) const;

    GridLayout<D> layout_;
    GridCells cells_;
    mutable HostGrid host_;
    mutable bool host_fresh_ = false;
};

template <int D>
template <class Fn>
void GpuGrid<D>::for_each_in_cell(const std::array<int, D>& c, int level, Fn&& visit) const {
    const HostGrid& h = host_grid();
    const std::vector<Aabb<D>>& boxes = this->boxes_on_host();
    const std::uint32_t slot = layout_.slot(layout_.key(c, level));
    const auto first = std::lower_bound(h.slots.begin(), h.slots.end(), slot);
    for (auto it = first; it != h.slots.end() && *it == slot; ++it) {
        const std::size_t k = static_cast<std::size_t>(it - h.slots.begin());
        const BodyId id = h.ids[k];
        if (h.levels[k] == level && layout_.cell_at(boxes[id].lo, level) == c) {
            visit(k);
        }
    }
}

template <int D>
template <class Fn>
void GpuGrid<D>::for_each_searched_cell(const Aabb<D>& box, Fn&& visit) const {
    const HostGrid& h = host_grid();
    const int own = layout_.level_of(box.largest_side());
    const std::array<int, D> cell = layout_.cell_at(box.lo, own);
    constexpr int kStencil = D == 2 ? 9 : 27;
    for (int o = kStencil / 2; o < kStencil; ++o) {
        std::array<int, D> c = cell;
        bool inside = true;
        for (int k = 0; k < D; ++k) {
            c[k] += (k == 0 ? o % 3 : k == 1 ? o / 3 % 3 : o / 9) - 1;
            inside = inside && c[k] >= 0 && c[k] < static_cast<int>(layout_.dims[own][k]);
        }
        if (inside) visit(c, own);
    }
    for (int level = own + 1; level < layout_.levels; ++level) {
        if ((h.level_mask & (1u << level)) == 0) continue;
        layout_.reach(box, level).for_each([&](const std::array<int, D>& c) { visit(c, level); });
    }
}

extern template class GpuGrid<2>;
extern template class GpuGrid<3>;

}  // namespace collide::gpu
