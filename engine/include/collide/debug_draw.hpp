// DebugDraw: the plain data an algorithm fills to show what it built (cells, nodes,
// intervals). The engine never draws; the app uploads these lists as one batched draw.
// Structure goes through cell()/segment(), which decide from the size on screen what reads:
// clipped to the world, culled to the view, faded by size, density, lens, slab and depth,
// merged into a density tint when a few pixels wide, and thinned evenly over the view when
// over the budget (finish() does the last two). Highlights use the plain line()/box()/fill().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collide/core.hpp"

namespace collide {

// Colours are 0xAARRGGBB.
using Color = std::uint32_t;

inline constexpr Color rgba(float r, float g, float b, float a = 1.0f) {
    auto c = [](float v) {
        return static_cast<Color>((v < 0 ? 0 : v > 1 ? 1 : v) * 255.0f + 0.5f);
    };
    return (c(a) << 24) | (c(r) << 16) | (c(g) << 8) | c(b);
}

// A colour from a perceptual ramp (blue -> green -> yellow -> red), t in [0, 1].
Color ramp_color(float t, float alpha = 1.0f);

// Colour c with its alpha multiplied by f.
inline constexpr Color scale_alpha(Color c, float f) {
    const float a = static_cast<float>(c >> 24) * (f < 0 ? 0 : f > 1 ? 1 : f);
    return (static_cast<Color>(a + 0.5f) << 24) | (c & 0x00FFFFFFu);
}

// The density tint's colour for occupancy t in [0, 1] (the legend draws the same ramp).
inline Color tint_color(float t) {
    return ramp_color(t, 0.12f + 0.5f * t);
}

// Below this many pixels a structure cell merges into the density tint; it fades in up to
// kLodFullPx. The tint's own cells are about kLodTintCellPx wide.
inline constexpr float kLodTintPx = 4.0f;
inline constexpr float kLodFullPx = 14.0f;
inline constexpr float kLodTintCellPx = 8.0f;

// Which overlays the viewer shows, as Box2D's debug draw carries its flags: set once by the
// command line and the panel, and passed along by value to the algorithm's draw().
struct OverlayFlags {
    bool aabbs = false;
    bool pairs = false;
    bool structure = false;           // the algorithm's own cells, nodes, intervals
    std::uint64_t hidden_layers = 0;  // bit i hides layer i of BroadPhaseView::layers()
    // Implicit bodies in contact (and the selected one): sample points inside/outside the
    // partner, signature cells, contact normals.
    bool implicit = false;
};

template <int D>
struct DebugDraw {
    struct Line {
        Vec<D> a, b;
        Color color;
    };
    struct Box {
        Aabb<D> box;
        Color color;
    };
    // A translucent filled rectangle (heat maps); in 3D drawn as the box's faces.
    struct Fill {
        Aabb<D> box;
        Color color;
    };
    struct Label {
        Vec<D> at;
        std::string text;
        Color color;
    };

    std::vector<Line> lines;
    std::vector<Box> boxes;
    std::vector<Fill> fills;
    std::vector<Label> labels;
    // What the viewer can see; algorithms may skip what lies outside it.
    Aabb<D> view = {Vec<D>(-1e30f), Vec<D>(1e30f)};
    // Upper bound on primitives, so a million-body overlay stays drawable.
    std::size_t budget = 400000;

    // What the structure's level of detail needs, set by the viewer (pixel 0: no LOD, every
    // cell is drawn as asked, budget thinning only).
    float pixel = 0.0f;                              // world size of one screen pixel
    Aabb<D> clip = {Vec<D>(-1e30f), Vec<D>(1e30f)};  // the world box: structure stays in it
    std::optional<Aabb<D>> lens;                     // full detail inside, faded outside
    std::optional<Aabb<D>> slab;                     // 3D: structure only inside it
    std::optional<Vec<D>> eye;                       // 3D: fade with distance from it

    // What finish() did, for the legend.
    struct Lod {
        std::size_t offered = 0;  // structure primitives asked for, in view
        std::size_t kept = 0;     // drawn after even thinning
        std::size_t tinted = 0;   // cells merged into the density tint
        float tint_max = 0.0f;    // bodies (weight) in the fullest tint cell
    } lod;

    // A structure cell (node, region, grid cell) outlined in `outline`, filled in `fill`
    // (alpha 0: not filled); `weight` is what it holds (bodies) for the density tint, 0 to
    // drop it when too small to read.
    void cell(const Aabb<D>& box, Color outline, float weight = 1.0f, Color fill = 0);
    // A structure line (a curve's step, a cut).
    void segment(const Vec<D>& a, const Vec<D>& b, Color c);
    // Thins the structure evenly to the budget, fades it by density, adds the tint, and puts
    // it under the highlights already drawn. Called once, after the algorithm's draw().
    void finish();
    // "showing 1 in 4 cells", "312 cells under 4 px as a density tint"; empty if neither.
    std::string lod_note() const;

    // What has been drawn so far, so that a second structure drawn after it can be given a
    // colour of its own (a still split's still structure).
    struct Mark {
        std::size_t lines, boxes, fills, labels, pending;
    };
    Mark mark() const {
        return {lines.size(), boxes.size(), fills.size(), labels.size(), pending_.size()};
    }
    // Everything drawn since `m` in colour `rgb`, each keeping its own alpha.
    void recolor_since(const Mark& m, Color rgb);

    void line(const Vec<D>& a, const Vec<D>& b, Color c) {
        if (full()) return;
        lines.push_back({a, b, c});
    }
    void box(const Aabb<D>& b, Color c) {
        if (full()) return;
        boxes.push_back({b, c});
    }
    void fill(const Aabb<D>& b, Color c) {
        if (full()) return;
        fills.push_back({b, c});
    }
    void label(const Vec<D>& at, std::string text, Color c) {
        labels.push_back({at, std::move(text), c});
    }
    bool full() const {
        return lines.size() + (boxes.size() + fills.size()) * (D == 2 ? 4 : 12) >= budget;
    }
    void clear() {
        lines.clear();
        boxes.clear();
        fills.clear();
        labels.clear();
        pending_.clear();
        tint_.clear();
        lod = {};
    }

private:
    struct Pending {
        Aabb<D> box;  // a segment: lo = a, hi = b
        Color outline, fill;  // lens, slab and depth fading applied
        float size_fade;      // from the size on screen; finish() takes it or the density's
        bool segment;
    };
    // Alpha factor from lens, slab and depth (and, for cells, the size `px` on screen).
    float context_alpha(const Aabb<D>& box) const;
    void add_tint(const Vec<D>& at, float weight);
    // The view within the clip box: where the tint and the thinning bins lie.
    Aabb<D> frame() const;
    std::vector<Pending> pending_;
    std::vector<float> tint_;  // weight per tint cell over frame(), tint_res_ per axis
    glm::vec<D, int> tint_res_{0};
};

extern template struct DebugDraw<2>;
extern template struct DebugDraw<3>;

}  // namespace collide
