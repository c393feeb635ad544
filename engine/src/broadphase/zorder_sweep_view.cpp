// Z-order (and norm) sweep as the viewer sees it: the curve through the min corners in key order,
// the selected box's scan (with the region it skips to, and the runs it jumped over), the boxes
// the query's key range rejected; the text on one body; Watch mode's pseudocode.
#include "broadphase/zorder_sweep.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <type_traits>

namespace collide {

template <int D, typename Key>
std::size_t KeySweep<D, Key>::rank_of(BodyId id) const {
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        if (id_at(i) == id) return i;
    }
    return entries_.size();
}

template <int D, typename Key>
Aabb<D> KeySweep<D, Key>::skip_region(std::size_t rank) const {
    // The box stretched down by the largest box size: its grid cells, in world coordinates.
    const morton::Coords<D> lo = lowered(coarse(frame_(sorted_[rank].lo)));
    const morton::Coords<D> hi = coarse(frame_(sorted_[rank].hi));
    const double cell = std::ldexp(1.0, coord_shift_);  // the keys' cells, in grid units
    Aabb<D> region;
    for (int k = 0; k < D; ++k) {
        region.lo[k] = frame_.world(lo[k] * cell, k);
        region.hi[k] = frame_.world((hi[k] + 1.0) * cell, k);
    }
    return region;
}

template <int D, typename Key>
WatchScript KeySweep<D, Key>::watch_script() const {
    WatchScript script;
    if constexpr (Key::kSkips) {
        script.lines = {"key: the Morton code of each box's min",
                        "  corner",
                        "sort the boxes by key (insertion sort",
                        "  repairs last frame's order)",
                        "for each box a, in key order:",
                        "  stretch a's box down by the largest box",
                        "  for each later b while b's key <= the",
                        "      code of a's max corner:",
                        "    b's min corner outside the stretched",
                        "    box: step over b; 16 in a row: jump",
                        "      to the next code inside (BIGMIN)",
                        "    skip (a, b) if both are static",
                        "    test a against b",
                        "    if they overlap: report the pair (a, b)"};
        script.rules = {{WatchStep::kPhase, "key", 0},   {WatchStep::kPhase, "sort", 2},
                        {WatchStep::kPhase, "scan", 4},  {WatchStep::kCursor, nullptr, 4},
                        {WatchStep::kVisit, nullptr, 5}, {WatchStep::kJump, nullptr, 9},
                        {WatchStep::kTest, nullptr, 12}, {WatchStep::kEmit, nullptr, 13}};
    } else {
        script.lines = {"key: the squared norm of each box's min",
                        "  corner, from the frame's lower corner",
                        "sort the boxes by key (insertion sort",
                        "  repairs last frame's order)",
                        "for each box a, in key order:",
                        "  for each later b while b's key <= the",
                        "      norm of a's max corner:",
                        "    skip (a, b) if both are static",
                        "    test a against b",
                        "    if they overlap: report the pair (a, b)"};
        script.rules = {{WatchStep::kPhase, "key", 0},  {WatchStep::kPhase, "sort", 2},
                        {WatchStep::kPhase, "scan", 4}, {WatchStep::kCursor, nullptr, 4},
                        {WatchStep::kTest, nullptr, 8}, {WatchStep::kEmit, nullptr, 9}};
    }
    return script;
}

template <int D, typename Key>
void KeySweep<D, Key>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    const std::size_t n = entries_.size();
    if (n == 0) return;
    const std::size_t selected = which.selected == kNoBody ? n : rank_of(which.selected);
    const float dim = selected < n ? 0.35f : 0.8f;
    if (which.flags.structure) {
        // The curve through the min corners in key order, coloured along its length.
        for (std::size_t i = 1; i < n && !draw.full(); ++i) {
            const Vec<D>& a = sorted_[i - 1].lo;
            const Vec<D>& b = sorted_[i].lo;
            if (!draw.view.contains(a) && !draw.view.contains(b)) continue;
            draw.line(a, b, ramp_color(float(i) / float(n), dim));
        }
    }
    if (selected < n) {
        // Every box the selected box's scan tested, overlapping ones in magenta, and the
        // curve along its scan: white where it tested, red over the runs it jumped over.
        const auto test = [&](std::size_t j) {
            const bool hit = sorted_[selected].overlaps(sorted_[j]);
            draw.box(sorted_[j], hit ? rgba(1.0f, 0.3f, 1.0f) : rgba(0.3f, 0.9f, 1.0f, 0.8f));
            draw.line(sorted_[j - 1].lo, sorted_[j].lo, rgba(1, 1, 1));
        };
        const auto skipped = [&](std::size_t j, std::size_t next, bool) {
            for (; j < next && !draw.full(); ++j) {
                draw.line(sorted_[j - 1].lo, sorted_[j].lo, rgba(1.0f, 0.25f, 0.25f, 0.7f));
            }
        };
        scan(selected, test, skipped);
        // The region the later min corners must lie in.
        if (skips()) draw.box(skip_region(selected), rgba(0.3f, 1.0f, 0.4f, 0.9f));
        draw.box(sorted_[selected], rgba(1, 1, 1));
    }
    if (which.query) {
        // The boxes in the key range the query's binary search bounded that it then
        // rejected: the cost of a key range that is not a box.
        for (const auto& r : which.query->regions) {
            if (draw.full()) break;
            if (r.box.overlaps(draw.view)) draw.box(r.box, rgba(0.5f, 0.5f, 0.5f, 0.6f));
        }
    }
}

template <int D, typename Key>
std::string KeySweep<D, Key>::describe(BodyId id) const {
    const std::size_t rank = rank_of(id);
    if (rank >= entries_.size()) return {};
    std::size_t tested = 0, hits = 0, skipped = 0;
    const auto test = [&](std::size_t j) {
        ++tested;
        hits += sorted_[rank].overlaps(sorted_[j]);
    };
    scan(rank, test, [&](std::size_t j, std::size_t next, bool) { skipped += next - j; });
    std::string s = "Rank " + std::to_string(rank) + " of " + std::to_string(entries_.size());
    if constexpr (std::is_same_v<Key, MortonKey>) {
        const std::string groups = D == 2 ? "yx" : "zyx";
        // In the quantizer's grid: the levels the keys dropped read 0 and are not shown.
        const auto code = [&](std::uint64_t key) {
            return morton::format_code<D>(key << (D * coord_shift_), coord_shift_);
        };
        s += "\nMin corner code (" + groups + " per level):\n" + code(key_at(rank));
        s += "\nMax corner code:\n" + code(hi_key_at(rank));
    } else {
        s += "\nSquared norm, min corner: " + std::to_string(key_at(rank));
        s += "\nSquared norm, max corner: " + std::to_string(hi_key_at(rank));
    }
    s += "\nScan tested " + std::to_string(tested) + " boxes, " + std::to_string(hits) + " overlap";
    if (skips()) {
        s += "\nSkipped " + std::to_string(skipped) + " outside the region";
    }
    return s;
}

// The members defined here; the class itself is instantiated in zorder_sweep.cpp.
template Aabb<2> KeySweep<2, MortonKey>::skip_region(std::size_t) const;
template Aabb<3> KeySweep<3, MortonKey>::skip_region(std::size_t) const;
template Aabb<2> KeySweep<2, NormKey>::skip_region(std::size_t) const;
template Aabb<3> KeySweep<3, NormKey>::skip_region(std::size_t) const;
template WatchScript KeySweep<2, MortonKey>::watch_script() const;
template WatchScript KeySweep<3, MortonKey>::watch_script() const;
template WatchScript KeySweep<2, NormKey>::watch_script() const;
template WatchScript KeySweep<3, NormKey>::watch_script() const;
template void KeySweep<2, MortonKey>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string KeySweep<2, MortonKey>::describe(BodyId) const;
template void KeySweep<2, NormKey>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string KeySweep<2, NormKey>::describe(BodyId) const;
template void KeySweep<3, MortonKey>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template std::string KeySweep<3, MortonKey>::describe(BodyId) const;
template void KeySweep<3, NormKey>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template std::string KeySweep<3, NormKey>::describe(BodyId) const;

}  // namespace collide
