#include "gpu_grid.hpp"

#include <algorithm>
#include <cassert>
#include <string>
#include <utility>

#include "shaders/gpu/common.glsl.hpp"
#include "shaders/gpu/grid_keys.comp.hpp"
#include "shaders/gpu/grid_levels.glsl.hpp"
#include "shaders/gpu/grid_pairs.comp.hpp"
#include "shaders/gpu/pair_emit.glsl.hpp"

namespace collide::gpu {

using namespace collidoscope::shaders;

namespace {
constexpr std::size_t kGroup = 256;
// A level's cell holds bodies up to this share of its side: the slack absorbs rounding in
// the cell coordinates, so a body never reaches more than one cell past its own.
constexpr float kFit = 15.0f / 16.0f;
}  // namespace

template <int D>
GridLayout<D> GridLayout<D>::from(const SceneBounds<D>& bounds) {
    // Row keys must fit 32 bits over all levels: 2^16 cells an axis in 2D, 2^15 in 3D.
    constexpr float kMaxCells = D == 2 ? 65536.0f : 32768.0f;
    GridLayout g;
    g.origin = bounds.box.lo;
    const float extent = bounds.box.largest_side();
    g.c0 = std::max(bounds.min_side / kFit, extent / (kMaxCells - 1.0f));
    if (!(g.c0 > 0.0f) || !std::isfinite(g.c0)) g.c0 = 1.0f;  // every box one point
    g.levels = 1;
    while (g.levels < kMaxLevels && g.cell(g.levels - 1) * kFit < bounds.max_side) ++g.levels;
    std::uint64_t rows = 0;
    for (int l = 0; l < g.levels; ++l) {
        g.fit[l] = g.cell(l) * kFit;
        g.inv_cell[l] = 1.0f / g.cell(l);
        std::uint64_t level_rows = 1;
        for (int k = 0; k < 3; ++k) {
            const float cells = k < D ? (bounds.box.hi[k] - g.origin[k]) * g.inv_cell[l] : 0.0f;
            g.dims[l][k] =
                static_cast<std::uint32_t>(std::clamp(cells, 0.0f, kMaxCells - 1.0f)) + 1;
            if (k >= 1 && k < D) level_rows *= g.dims[l][k];
        }
        g.base[l] = static_cast<std::uint32_t>(rows);
        rows += level_rows;
    }
    assert(rows < (std::uint64_t{1} << 32));
    g.rows = static_cast<std::uint32_t>(rows);
    return g;
}

template <int D>
void set_grid_uniforms(GLuint program, const GridLayout<D>& g) {
    if constexpr (D == 2) {
        glUniform2fv(glGetUniformLocation(program, "u_origin"), 1, &g.origin[0]);
    } else {
        glUniform3fv(glGetUniformLocation(program, "u_origin"), 1, &g.origin[0]);
    }
    glUniform1ui(glGetUniformLocation(program, "u_levels"), static_cast<GLuint>(g.levels));
    glUniform1fv(glGetUniformLocation(program, "u_fit"), g.levels, g.fit.data());
    glUniform1fv(glGetUniformLocation(program, "u_inv_cell"), g.levels, g.inv_cell.data());
    glUniform3uiv(glGetUniformLocation(program, "u_dims"), g.levels, g.dims[0].data());
    glUniform1uiv(glGetUniformLocation(program, "u_base"), g.levels, g.base.data());
}

template <int D>
void GridKeys::build(ComputeContext& ctx, RadixSort& sort, const GridLayout<D>& layout,
                     std::size_t n) {
    for (StorageBuffer* b : {&rows, &columns, &ids}) b->reserve(n * 4);
    level_mask.reserve(4);
    level_mask.fill(0);
    const GLuint keys = ctx.program("grid_keys", D, {kCommonGlsl, kGridLevelsGlsl, kGridKeysComp});
    glUseProgram(keys);
    set_uint(keys, "u_count", static_cast<std::uint32_t>(n));
    set_grid_uniforms(keys, layout);
    bind();
    dispatch(groups_for(n, kGroup));

    const std::array<RadixSort::Field, 2> fields{
        {{1, bits_below(layout.dims[0][0])}, {0, bits_below(layout.rows)}}};
    const std::array<StorageBuffer*, 3> data{&rows, &columns, &ids};
    const std::array<StorageBuffer*, 3> scratch{&rows_scratch, &columns_scratch, &ids_scratch};
    sort.sort(ctx, data, scratch, n, fields);
}

void GridKeys::bind() const {
    rows.bind(2);
    columns.bind(3);
    ids.bind(4);
    level_mask.bind(5);
}

std::size_t GridKeys::bytes() const {
    return rows.bytes() + columns.bytes() + ids.bytes() + rows_scratch.bytes() +
           columns_scratch.bytes() + ids_scratch.bytes() + level_mask.bytes();
}

template <int D>
void GpuGrid<D>::build(const SceneBounds<D>& bounds) {
    host_fresh_ = false;
    layout_ = GridLayout<D>::from(bounds);
    this->boxes_.bind(kBoxBinding);
    keys_.build(*this->context_, this->sort_, layout_, this->count_);
}

template <int D>
GLuint GpuGrid<D>::pair_program() {
    const GLuint program = this->context_->program(
        "grid_pairs", D, {kCommonGlsl, kPairEmitGlsl, kGridLevelsGlsl, kGridPairsComp});
    return program;
}

template <int D>
void GpuGrid<D>::bind_pair_inputs() {
    set_grid_uniforms(pair_program(), layout_);
    keys_.bind();
}

template <int D>
BroadPhaseStats GpuGrid<D>::structure_stats() const {
    BroadPhaseStats s;
    s.depth = layout_.levels;
    s.nodes = this->count_;
    s.structure_bytes = keys_.bytes();
    return s;
}

template <int D>
const typename GpuGrid<D>::HostGrid& GpuGrid<D>::host_grid() const {
    if (host_fresh_) return host_;
    this->context_->make_current();
    const std::size_t n = this->count_;
    host_.rows.resize(n);
    host_.columns.resize(n);
    host_.ids.resize(n);
    keys_.rows.download(std::span<std::uint32_t>(host_.rows));
    keys_.columns.download(std::span<std::uint32_t>(host_.columns));
    keys_.ids.download(std::span<std::uint32_t>(host_.ids));
    host_.level_mask = 0;
    if (n > 0) keys_.level_mask.download(std::span<std::uint32_t>(&host_.level_mask, 1));
    host_fresh_ = true;
    return host_;
}

template <int D>
int GpuGrid<D>::level_of(float side) const {
    int l = 0;
    while (l + 1 < layout_.levels && layout_.fit[l] < side) ++l;
    return l;
}

template <int D>
std::array<int, D> GpuGrid<D>::cell_at(const Vec<D>& p, int level) const {
    std::array<int, D> c{};
    for (int k = 0; k < D; ++k) {
        const float f = std::floor((p[k] - layout_.origin[k]) * layout_.inv_cell[level]);
        const float top = static_cast<float>(layout_.dims[level][k] - 1);
        c[k] = static_cast<int>(std::clamp(f, 0.0f, top));
    }
    return c;
}

template <int D>
std::uint32_t GpuGrid<D>::row_key(const std::array<int, D>& c, int level) const {
    std::uint32_t row = layout_.base[level] + static_cast<std::uint32_t>(c[1]);
    if constexpr (D == 3) row += static_cast<std::uint32_t>(c[2]) * layout_.dims[level][1];
    return row;
}

template <int D>
Aabb<D> GpuGrid<D>::cell_box(const std::array<int, D>& c, int level) const {
    const float side = layout_.cell(level);
    Aabb<D> box;
    for (int k = 0; k < D; ++k) {
        box.lo[k] = layout_.origin[k] + static_cast<float>(c[k]) * side;
        box.hi[k] = box.lo[k] + side;
    }
    return box;
}

template <int D>
void GpuGrid<D>::query(const Aabb<D>& region, std::vector<BodyId>& out,
                       QueryTrace<D>* trace) const {
    out.clear();
    if (this->count_ == 0) return;
    const HostGrid& h = host_grid();
    const std::vector<Aabb<D>>& boxes = this->boxes_on_host();
    for (int level = 0; level < layout_.levels; ++level) {
        if ((h.level_mask & (1u << level)) == 0) continue;
        // A region spanning more rows than there are bodies (a fine level stretched by a
        // giant's bounds) reads the level's entries once instead: they lie together in the
        // sorted keys, and the cell test is the one the row walk makes.
        std::array<int, D> from = cell_at(region.lo, level);
        const std::array<int, D> to = cell_at(region.hi, level);
        for (int k = 0; k < D; ++k) from[k] = std::max(from[k] - 1, 0);
        std::uint64_t rows = 1;
        for (int k = 1; k < D; ++k) rows *= static_cast<std::uint64_t>(to[k] - from[k] + 1);
        if (rows > h.rows.size()) {
            const std::uint32_t first_row = layout_.base[level];
            const std::uint32_t end_row = level + 1 < layout_.levels ? layout_.base[level + 1]
                                                                      : layout_.rows;
            const auto begin = std::lower_bound(h.rows.begin(), h.rows.end(), first_row);
            const auto end = std::lower_bound(begin, h.rows.end(), end_row);
            for (auto it = begin; it != end; ++it) {
                const BodyId j = h.ids[static_cast<std::size_t>(it - h.rows.begin())];
                const std::array<int, D> c = cell_at(boxes[j].lo, level);
                bool reached = true;
                for (int k = 0; k < D; ++k) reached = reached && c[k] >= from[k] && c[k] <= to[k];
                if (reached && boxes[j].overlaps(region)) out.push_back(j);
            }
            continue;
        }
        for_each_reached(region, level,
                         [&](std::array<int, D> c, int, int, std::size_t begin, std::size_t end) {
                             for (std::size_t k = begin; k < end; ++k) {
                                 const BodyId j = h.ids[k];
                                 if (boxes[j].overlaps(region)) out.push_back(j);
                                 if (trace && (k == begin || h.columns[k] != h.columns[k - 1])) {
                                     c[0] = static_cast<int>(h.columns[k]);
                                     trace->add(cell_box(c, level), TraceKind::kDescended);
                                 }
                             }
                         });
    }
}

template <int D>
void GpuGrid<D>::validate() const {
    const std::size_t n = this->count_;
    if (n == 0) return;
    const auto fail = [](const std::string& what) { invariant_broken("gpu-grid", what); };
    const HostGrid& h = host_grid();
    this->check_permutation("gpu-grid", h.ids);
    for (std::size_t p = 1; p < n; ++p) {
        if (std::pair(h.rows[p - 1], h.columns[p - 1]) > std::pair(h.rows[p], h.columns[p])) {
            fail("keys out of order at sorted position " + std::to_string(p));
        }
    }
    // The host mirrors the kernels' float operations (its queries rely on it), so a body
    // keyed elsewhere is a kernel that computed otherwise. NaN has no defined cell.
    const std::vector<Aabb<D>>& boxes = this->boxes_on_host();
    for (std::size_t p = 0; p < n; ++p) {
        const Aabb<D>& box = boxes[h.ids[p]];
        if (!finite_box(box)) continue;
        const int level = level_of(box.largest_side());
        const std::array<int, D> cell = cell_at(box.lo, level);
        if (h.rows[p] != row_key(cell, level) ||
            h.columns[p] != static_cast<std::uint32_t>(cell[0])) {
            fail("body " + std::to_string(h.ids[p]) + " keyed (" + std::to_string(h.rows[p]) +
                 ", " + std::to_string(h.columns[p]) + "), not level " + std::to_string(level) +
                 "'s (" + std::to_string(row_key(cell, level)) + ", " + std::to_string(cell[0]) +
                 ")");
        }
        if ((h.level_mask & (1u << level)) == 0) {
            fail("level " + std::to_string(level) + " in use but not in the mask");
        }
    }
}

template struct GridLayout<2>;
template struct GridLayout<3>;
template void GridKeys::build<2>(ComputeContext&, RadixSort&, const GridLayout<2>&, std::size_t);
template void GridKeys::build<3>(ComputeContext&, RadixSort&, const GridLayout<3>&, std::size_t);
template void set_grid_uniforms<2>(GLuint, const GridLayout<2>&);
template void set_grid_uniforms<3>(GLuint, const GridLayout<3>&);
template class GpuGrid<2>;
template class GpuGrid<3>;

}  // namespace collide::gpu
