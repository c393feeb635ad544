// Radix chunks as the viewer sees it: the slab boundaries and the cuts inside each slab, the
// chunks holding the selected body; the text on one body (its pieces and chunks); Watch mode's
// pseudocode.
#include "broadphase/radix_chunks.hpp"

#include <cstdio>

namespace collide {

using radix::key_float;

namespace {

constexpr Color kSlabColor = rgba(1.0f, 0.8f, 0.2f, 1.0f);
constexpr Color kCutColor = rgba(0.3f, 0.85f, 1.0f, 1.0f);
// Neighbouring chunks alternate between two shades, so each reads as an area.
constexpr Color kChunkShade[2] = {rgba(0.3f, 0.85f, 1.0f, 0.05f), rgba(0.3f, 0.85f, 1.0f, 0.16f)};
constexpr Color kSelectedChunkColor = rgba(1.0f, 0.4f, 1.0f, 0.15f);
constexpr Color kSharingColor = rgba(1.0f, 0.3f, 1.0f, 0.9f);

}  // namespace

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
WatchScript RadixChunks<D>::watch_script() const {
    return {{"split each box larger than about a chunk",
             "  into pieces (split big boxes)",
             "radix-sort the entities by low end on the",
             "  cut's axis",
             "for each cell of the level (first: all):",
             "  cut it into slabs at rank quantiles,",
             "    dropping cuts closer than box size",
             "  put each entity in every slab it meets",
             "  (sort each slab on the next axis and",
             "    cut again, until slabs are chunks)",
             "re-sort each crowded chunk on its least",
             "  crowded axis",
             "for each chunk:",
             "  for each entity a along its sweep axis:",
             "    for each later b starting before a's",
             "        end:",
             "      skip pieces of one body, static pairs",
             "      test a against b",
             "      if they overlap, and the chunk holds",
             "          their overlap's lower corner:",
             "        report the pair (a, b)"},
            {{WatchStep::kPhase, "split big boxes", 0},
             {WatchStep::kPhase, "sort", 2},
             {WatchStep::kPhase, "cut", 4},
             {WatchStep::kVisit, "cut", 4},
             {WatchStep::kPlace, nullptr, 7},
             {WatchStep::kPhase, "choose sweep axes", 10},
             {WatchStep::kPhase, "sweep", 12},
             {WatchStep::kVisit, "sweep", 12},
             {WatchStep::kCursor, nullptr, 13},
             {WatchStep::kTest, nullptr, 17},
             {WatchStep::kEmit, nullptr, 20}}};
}

template <int D>
void RadixChunks<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    if (cells_[D].empty()) return;
    const auto shown = [&](int layer) { return !((which.flags.hidden_layers >> layer) & 1u); };
    const bool selecting = which.selected < boxes_.size();
    const float alpha = selecting ? 0.4f : 1.0f;
    if (which.flags.structure && shown(0)) {
        // Slab boundaries on axis 0, across the whole world.
        for (const Cell& slab : cells_[1]) {
            if (slab.lo[0] == kKeyMin) continue;
            Aabb<D> face = cell_box(slab);
            face.hi[0] = face.lo[0];
            if constexpr (D == 2) {
                draw.segment(face.lo, face.hi, scale_alpha(kSlabColor, alpha));
            } else {
                draw.cell(face, scale_alpha(kSlabColor, alpha), 0.0f);
            }
        }
    }
    if (which.flags.structure && shown(1)) {
        // The cuts inside each slab: in 2D a segment across the slab, in 3D each chunk.
        for (std::size_t i = 0; i < cells_[D].size(); ++i) {
            const Cell& chunk = cells_[D][i];
            const Aabb<D> box = cell_box(chunk);
            if constexpr (D == 2) {
                draw.cell(box, 0, static_cast<float>(chunk.count), kChunkShade[i % 2]);
                if (chunk.lo[1] == kKeyMin) continue;
                draw.segment({box.lo[0], box.lo[1]}, {box.hi[0], box.lo[1]},
                             scale_alpha(kCutColor, alpha));
            } else {
                draw.cell(box, scale_alpha(kCutColor, alpha * 0.6f),
                          static_cast<float>(chunk.count));
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
                draw.fill(cell_box(chunk), kSelectedChunkColor);
                for (std::uint32_t i = chunk.first; i < chunk.first + chunk.count; ++i) {
                    const Entity& e = entities_[i];
                    if (e.body != id) draw.box(e.box, kSharingColor);
                }
            });
            draw.box(pieces_[p].box, kHighlightColor);
        }
    }
}

template <int D>
std::vector<LegendEntry> RadixChunks<D>::legend() const {
    std::vector<LegendEntry> l = {
        {kSlabColor, "slab boundaries (cuts on x)"},
        {kCutColor, D == 2 ? "chunk cuts inside each slab" : "chunks inside each slab"},
        LegendEntry::area(kSelectedChunkColor, "chunks holding the selected body",
                          LegendEntry::When::kSelection),
        LegendEntry::selection(kSharingColor, "entities sharing those chunks"),
        LegendEntry::selection(kHighlightColor, "the selected body's pieces"),
    };
    if (D == 2)
        l.insert(l.begin() + 2, LegendEntry::area(kChunkShade[1], "chunks (alternate shades)"));
    return l;
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
    template Aabb<D> RadixChunks<D>::cell_box(const Cell&) const;                \
    template WatchScript RadixChunks<D>::watch_script() const;                   \
    template std::vector<std::string> RadixChunks<D>::layers() const;            \
    template void RadixChunks<D>::draw(DebugDraw<D>&, const Overlays<D>&) const; \
    template std::string RadixChunks<D>::describe(BodyId) const;                 \
    template std::vector<LegendEntry> RadixChunks<D>::legend() const;
COLLIDE_RADIX_CHUNKS_VIEW(2)
COLLIDE_RADIX_CHUNKS_VIEW(3)
#undef COLLIDE_RADIX_CHUNKS_VIEW

}  // namespace collide
