#include "collide/debug_draw.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace collide {

Color ramp_color(float t, float alpha) {
    // Four stops, linearly interpolated: blue, green, yellow, red.
    static constexpr std::array<std::array<float, 3>, 4> kStops = {{
        {0.15f, 0.35f, 0.95f},
        {0.15f, 0.80f, 0.35f},
        {0.95f, 0.85f, 0.15f},
        {0.95f, 0.20f, 0.15f},
    }};
    t = std::clamp(t, 0.0f, 1.0f) * 3.0f;
    const int i = std::min(static_cast<int>(t), 2);
    const float f = t - static_cast<float>(i);
    const auto& a = kStops[i];
    const auto& b = kStops[i + 1];
    return rgba(a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f,
                alpha);
}

namespace {

constexpr float kFocusTintPx = 1.5f;   // inside the lens, cells merge into the tint later
constexpr float kContextAlpha = 0.3f;  // outside the lens
constexpr float kLegibleInk = 0.4f;    // share of a bin's pixels lines may cover at full alpha
// The least of the size and density fades: faint, never gone (the tint takes over below).
constexpr float kMinFade = 0.45f;

template <int D>
bool finite(const Aabb<D>& b) {
    for (int k = 0; k < D; ++k) {
        if (!(b.hi[k] - b.lo[k] < 1e29f)) return false;
    }
    return true;
}

template <int D>
Aabb<D> intersect(const Aabb<D>& a, const Aabb<D>& b) {
    return {glm::max(a.lo, b.lo), glm::min(a.hi, b.hi)};
}

template <int D>
bool is_empty(const Aabb<D>& b) {
    for (int k = 0; k < D; ++k) {
        if (b.lo[k] > b.hi[k]) return true;
    }
    return false;
}

// Index of the cell holding p on a grid of `res` cells per axis over `frame`.
template <int D>
std::size_t grid_index(const Aabb<D>& frame, const glm::vec<D, int>& res, const Vec<D>& p) {
    std::size_t index = 0;
    for (int k = D - 1; k >= 0; --k) {
        const float side = std::max(frame.hi[k] - frame.lo[k], 1e-30f);
        const int i =
            std::clamp(static_cast<int>((p[k] - frame.lo[k]) / side * res[k]), 0, res[k] - 1);
        index = index * static_cast<std::size_t>(res[k]) + static_cast<std::size_t>(i);
    }
    return index;
}

template <int D>
Aabb<D> grid_cell(const Aabb<D>& frame, const glm::vec<D, int>& res, std::size_t index) {
    Aabb<D> cell;
    for (int k = 0; k < D; ++k) {
        const std::size_t i = index % static_cast<std::size_t>(res[k]);
        index /= static_cast<std::size_t>(res[k]);
        const float side = (frame.hi[k] - frame.lo[k]) / static_cast<float>(res[k]);
        cell.lo[k] = frame.lo[k] + side * static_cast<float>(i);
        cell.hi[k] = cell.lo[k] + side;
    }
    return cell;
}

float smoothstep(float t) {
    t = std::clamp(t, 0.0f, 1.0f);
    return t * t * (3.0f - 2.0f * t);
}

}  // namespace

template <int D>
Aabb<D> DebugDraw<D>::frame() const {
    return intersect(view, clip);
}

template <int D>
float DebugDraw<D>::context_alpha(const Aabb<D>& box) const {
    float f = 1.0f;
    if (lens && !box.overlaps(*lens)) f *= kContextAlpha;
    const Vec<D> c = box.center();
    if (slab) {
        // Fade towards the slab's faces along its thinnest axis.
        int axis = 0;
        for (int k = 1; k < D; ++k) {
            if (slab->hi[k] - slab->lo[k] < slab->hi[axis] - slab->lo[axis]) axis = k;
        }
        const float half = 0.5f * (slab->hi[axis] - slab->lo[axis]);
        const float mid = 0.5f * (slab->hi[axis] + slab->lo[axis]);
        f *= 1.0f - 0.7f * std::min(1.0f, std::abs(c[axis] - mid) / std::max(half, 1e-30f));
    } else if (eye) {
        // Fade with distance from the eye across the part of the world in view.
        const Aabb<D> fr = frame();
        if (finite(fr)) {
            const float near = glm::length(glm::max(glm::max(fr.lo - *eye, *eye - fr.hi), 0.0f));
            const float far = glm::length(glm::max(glm::abs(fr.lo - *eye), glm::abs(fr.hi - *eye)));
            const float t = (glm::length(c - *eye) - near) / std::max(far - near, 1e-30f);
            f *= 1.0f - 0.65f * std::clamp(t, 0.0f, 1.0f);
        }
    }
    return f;
}

template <int D>
void DebugDraw<D>::add_tint(const Vec<D>& at, float weight) {
    const Aabb<D> fr = frame();
    if (!finite(fr)) return;
    if (tint_.empty()) {
        // Tint cells of about kLodTintCellPx on screen; fewer in 3D, where each is a cube.
        const int most = D == 2 ? 192 : 16;
        std::size_t cells = 1;
        for (int k = 0; k < D; ++k) {
            tint_res_[k] = std::clamp(
                static_cast<int>(std::ceil((fr.hi[k] - fr.lo[k]) / (pixel * kLodTintCellPx))), 1,
                most);
            cells *= static_cast<std::size_t>(tint_res_[k]);
        }
        tint_.assign(cells, 0.0f);
    }
    tint_[grid_index(fr, tint_res_, at)] += weight;
}

template <int D>
void DebugDraw<D>::recolor_since(const Mark& m, Color rgb) {
    const auto to = [rgb](Color& c) { c = (c & 0xff000000u) | (rgb & 0x00ffffffu); };
    for (std::size_t i = m.lines; i < lines.size(); ++i) to(lines[i].color);
    for (std::size_t i = m.boxes; i < boxes.size(); ++i) to(boxes[i].color);
    for (std::size_t i = m.fills; i < fills.size(); ++i) to(fills[i].color);
    for (std::size_t i = m.labels; i < labels.size(); ++i) to(labels[i].color);
    for (std::size_t i = m.pending; i < pending_.size(); ++i) {
        to(pending_[i].outline);
        if (pending_[i].fill != 0) to(pending_[i].fill);
    }
}

template <int D>
void DebugDraw<D>::cell(const Aabb<D>& box, Color outline, float weight, Color fill) {
    const Aabb<D> b = intersect(box, clip);
    if (is_empty(b) || !b.overlaps(view) || (slab && !b.overlaps(*slab))) return;
    if (pixel > 0.0f) {
        const float px = b.largest_side() / pixel;
        const bool focused = lens && b.overlaps(*lens);
        const float tint_px = focused ? kFocusTintPx : lens ? 2.0f * kLodTintPx : kLodTintPx;
        if (px < tint_px) {
            if (weight > 0.0f) {
                add_tint(b.center(), weight);
                ++lod.tinted;
            }
            return;
        }
        // Fades in from the tint size up to full detail (at once inside the lens).
        const float f = context_alpha(b);
        outline = scale_alpha(outline, f);
        fill = scale_alpha(fill, f);
        const float size_fade =
            focused ? 1.0f
                    : kMinFade +
                          (1.0f - kMinFade) * smoothstep((px - tint_px) / (kLodFullPx - tint_px));
        pending_.push_back({b, outline, fill, size_fade, false});
        return;
    }
    pending_.push_back({b, outline, fill, 1.0f, false});
}

template <int D>
void DebugDraw<D>::segment(const Vec<D>& a, const Vec<D>& b, Color c) {
    const Aabb<D> extent{glm::min(a, b), glm::max(a, b)};
    if (!extent.overlaps(view) || !extent.overlaps(clip) || (slab && !extent.overlaps(*slab)))
        return;
    if (pixel > 0.0f) {
        // A step shorter than two pixels draws a dot: the tint says more.
        if (glm::length(b - a) < 2.0f * pixel && !(lens && extent.overlaps(*lens))) return;
        c = scale_alpha(c, context_alpha(extent));
    }
    pending_.push_back({{a, b}, c, 0, 1.0f, true});
}

template <int D>
void DebugDraw<D>::finish() {
    constexpr std::size_t kBoxCost = D == 2 ? 4 : 12;
    const auto cost = [&](const Pending& p) -> std::size_t {
        if (p.segment) return 1;
        return (p.outline >> 24 ? kBoxCost : 0) + (p.fill >> 24 ? kBoxCost : 0);
    };
    Aabb<D> fr = frame();
    if (!finite(fr)) {
        fr = Aabb<D>::empty();
        for (const Pending& p : pending_) fr.grow(p.box);
    }
    std::vector<Fill> tint_fills;
    if (!tint_.empty()) {
        const Aabb<D> tf = frame();
        for (float w : tint_) lod.tint_max = std::max(lod.tint_max, w);
        for (std::size_t i = 0; i < tint_.size(); ++i) {
            if (tint_[i] > 0.0f)
                tint_fills.push_back(
                    {grid_cell(tf, tint_res_, i), tint_color(tint_[i] / lod.tint_max)});
        }
    }
    // Bins over the frame: each gets an even share of the budget (water-filled, so bins
    // that need less leave theirs to the others) and keeps every k-th of its primitives.
    const glm::vec<D, int> bins(D == 2 ? 16 : 8);
    std::size_t bin_count = 1;
    for (int k = 0; k < D; ++k) bin_count *= static_cast<std::size_t>(bins[k]);
    std::vector<std::size_t> bin_of(pending_.size()), bin_cost(bin_count, 0);
    for (std::size_t i = 0; i < pending_.size(); ++i) {
        bin_of[i] = grid_index(fr, bins, pending_[i].box.center());
        bin_cost[bin_of[i]] += cost(pending_[i]);
    }
    const std::size_t used =
        lines.size() + (boxes.size() + fills.size() + tint_fills.size()) * kBoxCost;
    std::size_t left = budget > used ? budget - used : 0;
    std::vector<std::size_t> sorted = bin_cost;
    std::sort(sorted.begin(), sorted.end());
    std::size_t cap = SIZE_MAX;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        const std::size_t share = left / (sorted.size() - i);
        if (sorted[i] > share) {
            cap = std::max<std::size_t>(share, 1);
            break;
        }
        left -= sorted[i];
    }
    std::vector<std::size_t> seen(bin_count, 0), kept_cost(bin_count, 0);
    std::vector<float> ink(bin_count, 0.0f);
    std::vector<char> keep(pending_.size(), 0);
    const Vec<D> bin_side = fr.size() / Vec<D>(bins);
    float bin_span = 0.0f;  // a bin's extent: lines longer than that leave it
    for (int k = 0; k < D; ++k) bin_span = std::max(bin_span, bin_side[k]);
    for (std::size_t i = 0; i < pending_.size(); ++i) {
        const std::size_t b = bin_of[i];
        const std::size_t stride = bin_cost[b] <= cap ? 1 : (bin_cost[b] + cap - 1) / cap;
        // The stride spreads what is kept; the cap holds it under the share when costs mix.
        if (seen[b]++ % stride != 0 || kept_cost[b] + cost(pending_[i]) > cap) continue;
        kept_cost[b] += cost(pending_[i]);
        keep[i] = 1;
        ++lod.kept;
        const Vec<D> s = pending_[i].box.size();
        float length = 0.0f;
        for (int k = 0; k < D; ++k) length += std::min(s[k], bin_span);
        // A box's edges: 2 per axis in 2D, 4 per axis in 3D.
        ink[b] += pending_[i].segment ? glm::length(s) : (D == 2 ? 2.0f : 4.0f) * length;
    }
    lod.offered = pending_.size();
    // Line alpha follows density: a bin whose lines would cover more than kLegibleInk of
    // its pixels has them all faded in proportion.
    float bin_area = 0.0f;  // in pixels, the bin's largest face
    {
        float a = 0, b = 0;
        for (int k = 0; k < D; ++k) {
            if (bin_side[k] > a) {
                b = a;
                a = bin_side[k];
            } else {
                b = std::max(b, bin_side[k]);
            }
        }
        // In 3D a column of bins behind one another shares the same pixels.
        bin_area = pixel > 0.0f ? a * b / (pixel * pixel) / (D == 3 ? bins[0] : 1) : 0.0f;
    }
    std::vector<Line> new_lines;
    std::vector<Box> new_boxes;
    std::vector<Fill> new_fills = std::move(tint_fills);
    for (std::size_t i = 0; i < pending_.size(); ++i) {
        if (!keep[i]) continue;
        const Pending& p = pending_[i];
        float f = 1.0f;
        if (bin_area > 0.0f) {
            const float covered = ink[bin_of[i]] / pixel / bin_area;
            // 3D stacks many layers on the same pixels: it may fade further.
            f = std::clamp(kLegibleInk / std::max(covered, 1e-6f), D == 2 ? kMinFade : 0.15f,
                           1.0f);
        }
        f = std::min(f, p.size_fade);
        if (p.segment) {
            new_lines.push_back({p.box.lo, p.box.hi, scale_alpha(p.outline, f)});
            continue;
        }
        if (p.fill >> 24) new_fills.push_back({p.box, p.fill});
        if (p.outline >> 24) new_boxes.push_back({p.box, scale_alpha(p.outline, f)});
    }
    // Under the highlights drawn so far.
    new_lines.insert(new_lines.end(), lines.begin(), lines.end());
    new_boxes.insert(new_boxes.end(), boxes.begin(), boxes.end());
    new_fills.insert(new_fills.end(), fills.begin(), fills.end());
    lines = std::move(new_lines);
    boxes = std::move(new_boxes);
    fills = std::move(new_fills);
    pending_.clear();
    tint_.clear();
}

template <int D>
std::string DebugDraw<D>::lod_note() const {
    std::string note;
    char text[96];
    if (lod.kept < lod.offered) {
        const double k = static_cast<double>(lod.offered) /
                         static_cast<double>(std::max<std::size_t>(lod.kept, 1));
        std::snprintf(text, sizeof text, "showing 1 in %.0f cells and lines (draw budget)",
                      std::round(k));
        note += text;
    }
    if (lod.tinted > 0) {
        std::snprintf(text, sizeof text, "%s%zu cells under %.0f px drawn as a density tint",
                      note.empty() ? "" : "\n", lod.tinted, double(kLodTintPx));
        note += text;
    }
    return note;
}

template struct DebugDraw<2>;
template struct DebugDraw<3>;

}  // namespace collide
