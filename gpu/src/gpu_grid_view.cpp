// What the GPU's levelled grid shows the viewer: the occupied cells of each level in use
// (one layer per level, tiles filled by how full they are), the selected body's cell and the
// rows of cells its pair pass scans at each level, and the region query's cells. All of it
// from the sorted keys read back once after an update.
#include <bit>
#include <cstdio>
#include <sstream>

#include "gpu_grid.hpp"

namespace collide::gpu {

namespace {
constexpr Color kScanColor = rgba(1.0f, 0.6f, 0.2f, 0.9f);

// Levels in use, finest first, as (level, bodies).
std::vector<std::pair<int, std::size_t>> used_levels(const std::vector<std::uint32_t>& rows,
                                                     const std::uint32_t* base, int levels,
                                                     std::uint32_t mask) {
    std::vector<std::pair<int, std::size_t>> used;
    for (int l = 0; l < levels; ++l) {
        if ((mask & (1u << l)) == 0) continue;
        const std::uint32_t first = base[l];
        const std::uint32_t next = l + 1 < levels ? base[l + 1] : ~0u;
        const auto lo = std::lower_bound(rows.begin(), rows.end(), first);
        const auto hi = std::lower_bound(lo, rows.end(), next);
        used.emplace_back(l, static_cast<std::size_t>(hi - lo));
    }
    return used;
}

Color layer_color(std::size_t layer, std::size_t used, float alpha) {
    return ramp_color(used > 1 ? float(layer) / float(used - 1) : 0.0f, alpha);
}
}  // namespace

template <int D>
std::vector<std::string> GpuGrid<D>::layers() const {
    const HostGrid& h = host_grid();
    std::vector<std::string> names;
    for (const auto& [level, bodies] :
         used_levels(h.rows, layout_.base.data(), layout_.levels, h.level_mask)) {
        char text[96];
        std::snprintf(text, sizeof text, "level %d: cell %.3g, %zu bodies", level,
                      layout_.cell(level), bodies);
        names.emplace_back(text);
    }
    return names;
}

template <int D>
void GpuGrid<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    if (this->count_ == 0) return;
    const HostGrid& h = host_grid();
    const auto used = used_levels(h.rows, layout_.base.data(), layout_.levels, h.level_mask);
    // The level of each row key, found by the level bases (ascending).
    auto level_of_row = [&](std::uint32_t row) {
        int l = 0;
        while (l + 1 < layout_.levels && layout_.base[l + 1] <= row) ++l;
        return l;
    };
    auto cell_of_entry = [&](std::size_t k, int level) {
        std::array<int, D> c{};
        c[0] = static_cast<int>(h.columns[k]);
        std::uint32_t r = h.rows[k] - layout_.base[level];
        if constexpr (D == 2) {
            c[1] = static_cast<int>(r);
        } else {
            c[1] = static_cast<int>(r % layout_.dims[level][1]);
            c[2] = static_cast<int>(r / layout_.dims[level][1]);
        }
        return c;
    };
    if (which.flags.structure) {
        for (std::size_t k = 0; k < h.rows.size();) {
            std::size_t end = k + 1;
            while (end < h.rows.size() && h.rows[end] == h.rows[k] &&
                   h.columns[end] == h.columns[k]) {
                ++end;
            }
            const int level = level_of_row(h.rows[k]);
            const auto layer = static_cast<std::size_t>(
                std::find_if(used.begin(), used.end(), [&](auto u) { return u.first == level; }) -
                used.begin());
            if (((which.flags.hidden_layers >> layer) & 1) == 0) {
                Aabb<D> box = cell_box(cell_of_entry(k, level), level);
                const Vec<D> inset = 0.06f * box.size();
                box = {box.lo + inset, box.hi - inset};
                const auto count = static_cast<float>(end - k);
                // Coarse cells can be as big as the world: filled, they would veil everything.
                const bool filled = box.largest_side() < 0.25f * draw.view.largest_side();
                draw.cell(
                    box, layer_color(layer, used.size(), 0.6f), count,
                    filled ? layer_color(layer, used.size(), std::min(0.1f + 0.06f * count, 0.5f))
                           : 0);
            }
            k = end;
        }
    }
    if (which.selected < this->count_) {
        const Aabb<D> own = this->box_on_host(which.selected);
        const int own_level = level_of(own.largest_side());
        draw.box(cell_box(cell_at(own.lo, own_level), own_level), kHighlightColor);
        // The rows its pair pass scans: its own level and every coarser one in use.
        for (int level = own_level; level < layout_.levels; ++level) {
            if ((h.level_mask & (1u << level)) == 0) continue;
            for_each_reached(own, level,
                             [&](std::array<int, D> c, int x0, int x1, std::size_t, std::size_t) {
                                 c[0] = x0;
                                 Aabb<D> row = cell_box(c, level);
                                 c[0] = x1;
                                 row.grow(cell_box(c, level));
                                 draw.box(row, kScanColor);
                             });
        }
    }
    if (which.query) {
        for (const auto& r : which.query->regions) draw.box(r.box, kTraceDescendedColor);
    }
}

template <int D>
std::string GpuGrid<D>::describe(BodyId id) const {
    if (id >= this->count_) return {};
    const Aabb<D> box = this->box_on_host(id);
    const int level = level_of(box.largest_side());
    const std::array<int, D> c = cell_at(box.lo, level);
    std::ostringstream s;
    s << "level " << level << " of " << layout_.levels << " (cell " << layout_.cell(level)
      << ")\ncell (" << c[0];
    for (int k = 1; k < D; ++k) s << ", " << c[k];
    s << "), key (" << row_key(c, level) << ", " << c[0] << ")\non " << this->context_->renderer();
    return s.str();
}

template <int D>
std::vector<LegendEntry> GpuGrid<D>::legend() const {
    std::vector<LegendEntry> l;
    const std::vector<std::string> names = layers();
    for (std::size_t k = 0; k < names.size(); ++k) {
        l.push_back(LegendEntry::area(layer_color(k, names.size(), 0.5f), names[k]));
    }
    l.push_back(LegendEntry::selection(kHighlightColor, "selected body's cell"));
    l.push_back(LegendEntry::selection(kScanColor, "rows of cells its pair pass scans"));
    l.push_back(LegendEntry::query(kTraceDescendedColor, "cells scanned"));
    return l;
}

template std::vector<std::string> GpuGrid<2>::layers() const;
template void GpuGrid<2>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string GpuGrid<2>::describe(BodyId) const;
template std::vector<LegendEntry> GpuGrid<2>::legend() const;
template std::vector<std::string> GpuGrid<3>::layers() const;
template void GpuGrid<3>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template std::string GpuGrid<3>::describe(BodyId) const;
template std::vector<LegendEntry> GpuGrid<3>::legend() const;

}  // namespace collide::gpu
