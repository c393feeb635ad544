// Radix chunks' invariants (validate()), checked after every update where assertions are on,
// and by the tests.
#include <algorithm>
#include <array>
#include <vector>

#include "broadphase/radix_chunks.hpp"

namespace collide {

// The pieces: each body's tile its box as a grid (faces shared, the first at its lower
// corner, the last ones flagged and at its upper faces). The cut: every cell's children
// tile it on the level's axis, their entry ranges consecutive. The chunks: copies of the
// pieces, sorted on their sweep axis, and each cell at every level holds exactly the
// pieces that cut_level() registers there (those its region meets), each once.
template <int D>
void RadixChunks<D>::validate() const {
    const InvariantFail fail("radix-chunks");
    const std::size_t n = boxes_.size();
    if (cells_[0].empty()) {  // no update yet
        if (n != 0 || !entities_.empty()) fail("entities but no cells");
        return;
    }
    Aabb<D> world = Aabb<D>::empty();
    for (const Aabb<D>& b : boxes_) world.grow(b);
    if (!same_box(world, world_)) fail("the bounds of the boxes are stale");
    if (piece_first_.size() != n + 1 || piece_first_[0] != 0 || piece_first_[n] != pieces_.size())
        fail(str(piece_first_.size()) + " piece offsets for " + str(n) + " bodies and " +
             str(pieces_.size()) + " pieces");
    for (BodyId i = 0; i < n; ++i) {
        const std::uint32_t first = piece_first_[i], total = piece_first_[i + 1] - first;
        const Aabb<D>& b = boxes_[i];
        const auto body = [&] { return "body " + str(i); };
        if (piece_first_[i + 1] <= first || piece_first_[i + 1] > pieces_.size() ||
            total > kMaxPieces)
            fail(body() + " has pieces " + str(first) + " to " + str(piece_first_[i + 1]));
        const std::uint8_t fixed = pieces_[first].flags & kStatic;
        if (total == 1) {
            const Entity& p = pieces_[first];
            if (p.body != i || p.flags != (fixed | kLastAll) || !same_box(p.box, b))
                fail(body() + "'s one piece " + str(first) + " is not its whole box");
            continue;
        }
        // The grid's size along each axis: the first piece that is the last along axis k
        // has index (m[k] - 1) * stride.
        std::array<std::uint32_t, D> m, stride;
        std::uint32_t size = 1;
        for (int k = 0; k < D; ++k) {
            std::uint32_t g = 0;
            while (g < total && !(pieces_[first + g].flags & (1u << k))) ++g;
            if (g == total || g % size != 0)
                fail(body() + "'s pieces are not a grid on axis " + str(k));
            stride[k] = size;
            m[k] = g / size + 1;
            size *= m[k];
        }
        if (size != total)
            fail(body() + "'s " + str(total) + " pieces are not a grid of " + str(size));
        for (std::uint32_t g = 0; g < total; ++g) {
            const Entity& p = pieces_[first + g];
            const auto piece = [&] { return body() + "'s piece " + str(g); };
            if (p.body != i || (p.flags & ~kLastAll) != (fixed | kSplit))
                fail(piece() + " has body " + str(p.body) + " and flags " + str(int(p.flags)));
            for (int k = 0; k < D; ++k) {
                const std::uint32_t j = g / stride[k] % m[k];
                const bool last = j + 1 == m[k];
                const float lo = j == 0 ? b.lo[k] : pieces_[first + g - stride[k]].box.hi[k];
                if (p.box.lo[k] != lo || !(p.box.lo[k] <= p.box.hi[k]) ||
                    (last && p.box.hi[k] != b.hi[k]) || bool(p.flags & (1u << k)) != last)
                    fail(piece() + " does not tile the box on axis " + str(k) + ": [" +
                         str(p.box.lo[k]) + ", " + str(p.box.hi[k]) + "] after " + str(lo));
            }
        }
    }
    // The cut: the root, then every cell's children tiling it on the axis of its level.
    const Cell& root = cells_[0][0];
    bool whole = cells_[0].size() == 1 && root.first == 0 && root.count == pieces_.size();
    for (int k = 0; k < D; ++k) whole = whole && root.lo[k] == kKeyMin && root.hi[k] == kKeyMax;
    if (!whole)
        fail("the root is not one cell over all space and all " + str(pieces_.size()) + " pieces");
    for (int level = 0; level < D; ++level) {
        const std::vector<Cell>& children = cells_[level + 1];
        std::uint32_t next = 0;
        for (std::size_t ci = 0; ci < cells_[level].size(); ++ci) {
            const Cell& p = cells_[level][ci];
            const auto cell = [&] { return "level " + str(level) + " cell " + str(ci); };
            if (p.child_first != next || p.child_count == 0 ||
                std::size_t{p.child_first} + p.child_count > children.size())
                fail(cell() + " has children " + str(p.child_first) + " + " + str(p.child_count) +
                     ", not from " + str(next) + " of " + str(children.size()));
            next += p.child_count;
            std::uint32_t at = p.lo[level];
            for (std::uint32_t j = p.child_first; j < next; ++j) {
                const Cell& c = children[j];
                for (int k = 0; k < D; ++k) {
                    if (k != level && (c.lo[k] != p.lo[k] || c.hi[k] != p.hi[k]))
                        fail(cell() + "'s child " + str(j) + " differs from it on axis " + str(k));
                }
                if (c.lo[level] != at || c.hi[level] < c.lo[level])
                    fail(cell() + "'s child " + str(j) + " spans keys " + str(c.lo[level]) + ".." +
                         str(c.hi[level]) + " on axis " + str(level) + ", not from " + str(at));
                at = c.hi[level];
            }
            if (at != p.hi[level])
                fail(cell() + "'s children end at key " + str(at) + ", not " + str(p.hi[level]));
        }
        if (next != children.size())
            fail("level " + str(level) + "'s cells have " + str(next) + " children of " +
                 str(children.size()));
        std::uint32_t first = 0;
        for (std::size_t j = 0; j < children.size(); ++j) {
            if (children[j].first != first)
                fail("level " + str(level + 1) + " cell " + str(j) + "'s entries start at " +
                     str(children[j].first) + ", not " + str(first));
            first += children[j].count;
        }
    }
    // What each cell should hold: the pieces cut_level() sends into it, followed down.
    std::array<std::vector<std::uint32_t>, D + 1> expected;
    for (int level = 0; level <= D; ++level) expected[level].assign(cells_[level].size(), 0);
    for (const Entity& piece : pieces_) {
        std::array<std::uint32_t, D> klo, khi;
        for (int k = 0; k < D; ++k) {
            klo[k] = radix::float_key(piece.box.lo[k]);
            khi[k] = radix::float_key(piece.box.hi[k]);
        }
        const auto descend = [&](auto& self, int level, std::uint32_t ci) -> void {
            ++expected[level][ci];
            if (level == D) return;
            const Cell& p = cells_[level][ci];
            const Cell* c = cells_[level + 1].data() + p.child_first;
            // How many children start at or below `key` (their starts ascend).
            const auto starting_by = [&](std::uint32_t key) {
                const auto below = [level](std::uint32_t v, const Cell& x) {
                    return v < x.lo[level];
                };
                return std::uint32_t(std::upper_bound(c, c + p.child_count, key, below) - c);
            };
            const std::uint32_t home = std::max(starting_by(klo[level]), 1u) - 1;
            const std::uint32_t last = std::max(starting_by(khi[level]), home + 1) - 1;
            for (std::uint32_t j = home; j <= last; ++j) {
                if (c[j].lo[level] < c[j].hi[level]) self(self, level + 1, p.child_first + j);
            }
        };
        descend(descend, 0, 0);
    }
    for (int level = 0; level <= D; ++level) {
        for (std::size_t ci = 0; ci < cells_[level].size(); ++ci) {
            if (cells_[level][ci].count != expected[level][ci])
                fail("level " + str(level) + " cell " + str(ci) + " holds " +
                     str(cells_[level][ci].count) + " pieces, but " + str(expected[level][ci]) +
                     " reach it");
        }
    }
    // The chunks' entities: copies of pieces, each once per chunk, meeting its region, in
    // order on its sweep axis.
    const std::vector<Cell>& chunks = cells_[D];
    const std::size_t entities =
        chunks.empty() ? 0 : std::size_t{chunks.back().first} + chunks.back().count;
    if (entities_.size() != entities || list_.size() != entities)
        fail(str(entities_.size()) + " entities and " + str(list_.size()) + " list entries for " +
             str(entities) + " chunk entries");
    std::vector<std::uint32_t> chunk_of(pieces_.size(), ~0u);  // last chunk a piece was met in
    for (std::uint32_t ci = 0; ci < chunks.size(); ++ci) {
        const Cell& chunk = chunks[ci];
        if (chunk.child_count != 0 || chunk.axis >= D)
            fail("chunk " + str(ci) + " has children or sweep axis " + str(int(chunk.axis)));
        for (std::uint32_t i = chunk.first; i < chunk.first + chunk.count; ++i) {
            const Entity& e = entities_[i];
            const std::uint32_t piece = list_[i];
            const auto entity = [&] {
                return "chunk " + str(ci) + "'s entity " + str(i) + " (body " + str(e.body) +
                       ", piece " + str(piece) + ")";
            };
            if (piece >= pieces_.size() || chunk_of[piece] == ci)
                fail(entity() + " is no piece, or a second copy in the chunk");
            chunk_of[piece] = ci;
            const Entity& p = pieces_[piece];
            if (e.body != p.body || e.flags != p.flags || !same_box(e.box, p.box))
                fail(entity() + " is not a copy of its piece");
            for (int k = 0; k < D; ++k) {
                if (radix::float_key(e.box.lo[k]) >= chunk.hi[k] ||
                    radix::float_key(e.box.hi[k]) < chunk.lo[k])
                    fail(entity() + " is outside the chunk on axis " + str(k));
            }
            const int a = chunk.axis;
            if (i > chunk.first &&
                radix::float_key(e.box.lo[a]) < radix::float_key(entities_[i - 1].box.lo[a]))
                fail(entity() + " starts at " + str(e.box.lo[a]) + " on sweep axis " + str(a) +
                     ", before the one preceding it at " + str(entities_[i - 1].box.lo[a]));
        }
    }
}

// The member defined here; the class itself is instantiated in radix_chunks.cpp.
template void RadixChunks<2>::validate() const;
template void RadixChunks<3>::validate() const;

}  // namespace collide
