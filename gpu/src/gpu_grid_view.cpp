// What the GPU's levelled grid shows the viewer: the occupied cells of each level in use
// (one layer per level, tiles filled by how full they are), the selected body's cell and the
// cells its pair pass searches at each level, and the region query's cells. All of it from
// the sorted entries read back once after an update.
#include <bit>
#include <cstdio>
#include <sstream>

#include "gpu_grid.hpp"

namespace collide::gpu {

namespace {
constexpr Color kScanColor = rgba(1.0f, 0.6f, 0.2f, 0.9f);

// Levels in use, finest first, as (level, bodies).
std::vector<std::pair<int, std::size_t>> used_levels(const std::vector<int>& entry_levels,
                                                     int levels, std::uint32_t mask) {
    std::vector<std::size_t> bodies(static_cast<std::size_t>(levels), 0);
    for (const int l : entry_levels) ++bodies[static_cast<std::size_t>(std::min(l, levels - 1))];
    std::vector<std::pair<int, std::size_t>> used;
    for (int l = 0; l < levels; ++l) {
        if ((mask & (1u << l)) != 0) used.emplace_back(l, bodies[static_cast<std::size_t>(l)]);
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
    for (const auto& [level, bodies] : used_levels(h.levels, layout_.levels, h.level_mask)) {
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
    const auto used = used_levels(h.levels, layout_.levels, h.level_mask);
    if (which.flags.structure) {
        // Each occupied cell once: (level, cell key) of every entry, sorted, then counted.
        // (A hashed slot can hold several cells, so the slots alone do not tell them.)
        const std::vector<Aabb<D>>& boxes = this->boxes_on_host();
        std::vector<std::pair<std::uint32_t, std::uint32_t>> keys;  // (key, entry)
        keys.reserve(h.ids.size());
        for (std::size_t k = 0; k < h.ids.size(); ++k) {
            const int level = h.levels[k];
            keys.emplace_back(layout_.key(layout_.cell_at(boxes[h.ids[k]].lo, level), level),
                              static_cast<std::uint32_t>(k));
        }
        std::sort(keys.begin(), keys.end());
        for (std::size_t k = 0; k < keys.size();) {
            std::size_t end = k + 1;
            while (end < keys.size() && keys[end].first == keys[k].first) ++end;
            const std::size_t entry = keys[k].second;
            const int level = h.levels[entry];
            const auto layer = static_cast<std::size_t>(
                std::find_if(used.begin(), used.end(), [&](auto u) { return u.first == level; }) -
                used.begin());
            if (((which.flags.hidden_layers >> layer) & 1) == 0) {
                Aabb<D> box =
                    layout_.cell_box(layout_.cell_at(boxes[h.ids[entry]].lo, level), level);
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
        const int own_level = layout_.level_of(own.largest_side());
        draw.box(layout_.cell_box(layout_.cell_at(own.lo, own_level), own_level), kHighlightColor);
        // The cells its pair pass searches: half its own level's stencil (the other half
        // searches it), and what its box reaches at every coarser level in use.
        for_each_searched_cell(own, [&](const std::array<int, D>& c, int level) {
            const Aabb<D> cell = layout_.cell_box(c, level);
            const Vec<D> inset = 0.03f * cell.size();
            draw.box({cell.lo + inset, cell.hi - inset}, kScanColor);
        });
    }
    if (which.query) {
        for (const auto& r : which.query->regions) draw.box(r.box, kTraceDescendedColor);
    }
}

template <int D>
std::string GpuGrid<D>::describe(BodyId id) const {
    if (id >= this->count_) return {};
    const Aabb<D> box = this->box_on_host(id);
    const int level = layout_.level_of(box.largest_side());
    const std::array<int, D> c = layout_.cell_at(box.lo, level);
    const std::uint32_t key = layout_.key(c, level);
    std::ostringstream s;
    s << "level " << level << " of " << layout_.levels << " (cell " << layout_.cell(level)
      << ")\ncell (" << c[0];
    for (int k = 1; k < D; ++k) s << ", " << c[k];
    s << "), key " << key;
    if (layout_.hashed) {
        s << "\nslot " << layout_.slot(key) << " of " << layout_.slots << " (hashed)";
    } else {
        s << " (dense table, " << layout_.cells << " cells)";
    }
    s << "\non " << this->context_->renderer();
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
    l.push_back(LegendEntry::selection(kScanColor, "cells its pair pass searches"));
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
