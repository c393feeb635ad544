// DebugDraw: the plain data an algorithm fills to show what it built (cells, nodes,
// intervals). The engine never draws; the app uploads these lists as one batched draw.
#pragma once

#include <cstdint>
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
    }
};

}  // namespace collide
