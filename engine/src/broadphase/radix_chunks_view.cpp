// Radix chunks as the viewer sees it: the slab boundaries and the cuts inside each slab, the
// chunks holding the selected body; the text on one body (its pieces and chunks).
#include "broadphase/radix_chunks.hpp"

#include <cstdio>

namespace collide {

using radix::key_float;

template <int D>
std::vector<std::string> RadixChunks<D>::layers() const {
    return {"slab boundaries", "chunk cuts", "selected chunk"};
}

template <int D>
Aabb<D> RadixChunks<D>::cell_box(const Cell& c) const {
    Aabb<D> box;
    for (int k = 0; k < D; ++k) {
        box.lo[k] = c.lo[k] == kKeyMin ? world_.lo[k] : std::max(world_.lo[k], key_float(c.lo[k]));
        box.hi[k] = c.hi[k] == kKeyMax ? world_.hi[k] : std::min(world_.hi[k], key_float(c.hi[k]));
    }
    return box;
}

template <int D>
void RadixChunks<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    if (cells_[D].empty()) return;
    const auto shown = [&](int layer) { return !((which.flags.hidden_layers >> layer) & 1u); };
    const bool selecting = which.selected < boxes_.size();
    const float alpha = selecting ? 0.35f : 0.8f;
    if (which.flags.structure && shown(0)) {
        // Slab boundaries on axis 0, across the whole world.
        for (const Cell& slab : cells_[1]) {
            if (draw.full()) break;
            if (slab.lo[0] == kKeyMin) continue;
            Aabb<D> face = cell_box(slab);
            face.hi[0] = face.lo[0];
            if (!face.overlaps(draw.view)) continue;
            if constexpr (D == 2) {
                draw.line(face.lo, face.hi, rgba(1.0f, 0.8f, 0.2f, alpha));
            } else {
                draw.box(face, rgba(1.0f, 0.8f, 0.2f, alpha));
            }
        }
    }
    if (which.flags.structure && shown(1)) {
        // The cuts inside each slab: in 2D a segment across the slab, in 3D each chunk.
        for (const Cell& chunk : cells_[D]) {
            if (draw.full()) break;
            const Aabb<D> box = cell_box(chunk);
            if (!box.overlaps(draw.view)) continue;
            if constexpr (D == 2) {
                if (chunk.lo[1] == kKeyMin) continue;
                draw.line({box.lo[0], box.lo[1]}, {box.hi[0], box.lo[1]},
                          rgba(0.3f, 0.8f, 1.0f, alpha));
            } else {
                draw.box(box, rgba(0.3f, 0.8f, 1.0f, alpha * 0.6f));
            }
        }
    }
    if (selecting && shown(2)) {
        // The chunks holding the selected body: region filled, their entities highlighted,
        // the body's own pieces in white.
        const BodyId id = which.selected;
        for (std::uint32_t p = piece_first_[id]; p < piece_first_[id + 1]; ++p) {
            for_each_chunk(pieces_[p].box, [&](std::uint32_t ci) {
                const Cell& chunk = cells_[D][ci];
                draw.fill(cell_box(chunk), rgba(1.0f, 0.4f, 1.0f, 0.15f));
                for (std::uint32_t i = chunk.first; i < chunk.first + chunk.count; ++i) {
                    const Entity& e = entities_[i];
                    if (e.body != id) draw.box(e.box, rgba(1.0f, 0.3f, 1.0f, 0.9f));
                }
            });
            draw.box(pieces_[p].box, rgba(1, 1, 1));
        }
    }
}

template <int D>
std::string RadixChunks<D>::describe(BodyId id) const {
    if (id >= boxes_.size()) return {};
    const std::uint32_t pieces = piece_first_[id + 1] - piece_first_[id];
    std::size_t chunks = 0, entities = 0;
    std::string list;
    char line[96];
    for (std::uint32_t p = piece_first_[id]; p < piece_first_[id + 1]; ++p) {
        for_each_chunk(pieces_[p].box, [&](std::uint32_t ci) {
            const Cell& chunk = cells_[D][ci];
            if (++chunks <= 6) {
                std::snprintf(line, sizeof line, "\n  chunk %u: %u entities, swept on %c", ci,
                              chunk.count, "xyz"[chunk.axis]);
                list.append(line);
            }
            entities += chunk.count;
        });
    }
    if (chunks > 6) list.append("\n  ...");
    std::string s;
    if (pieces == 1) {
        s.append("Not split");
    } else {
        std::snprintf(line, sizeof line, "Split into %u pieces", pieces);
        s.append(line);
    }
    std::snprintf(line, sizeof line, "\nIn %zu chunk(s), %zu entities in all:", chunks, entities);
    s.append(line);
    s.append(list);
    std::snprintf(line, sizeof line, "\n%zu chunks, %zu entities for %zu bodies", cells_[D].size(),
                  pieces_.size(), boxes_.size());
    s.append(line);
    return s;
}

// The members defined here; the class itself is instantiated in radix_chunks.cpp.
#define COLLIDE_RADIX_CHUNKS_VIEW(D)                                             \
    template std::vector<std::string> RadixChunks<D>::layers() const;            \
    template void RadixChunks<D>::draw(DebugDraw<D>&, const Overlays<D>&) const; \
    template std::string RadixChunks<D>::describe(BodyId) const;
COLLIDE_RADIX_CHUNKS_VIEW(2)
COLLIDE_RADIX_CHUNKS_VIEW(3)
#undef COLLIDE_RADIX_CHUNKS_VIEW

}  // namespace collide
