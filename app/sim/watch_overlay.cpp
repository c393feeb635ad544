#include "sim/watch_overlay.hpp"

#include <algorithm>
#include <cstdio>

#include "sim/overlay_shapes.hpp"

namespace collidoscope {
namespace {

using collide::rgba;
using collide::WatchStep;

constexpr collide::Color kVisitColor = rgba(0.2f, 0.9f, 1.0f, 1.0f);
constexpr collide::Color kEnterColor = rgba(0.3f, 1.0f, 0.4f, 1.0f);
constexpr collide::Color kPruneColor = rgba(0.55f, 0.55f, 0.6f, 0.9f);
constexpr collide::Color kPlaceColor = rgba(1.0f, 0.85f, 0.2f, 1.0f);
constexpr collide::Color kBodyColor = rgba(1.0f, 0.3f, 1.0f, 1.0f);
constexpr collide::Color kCursorColor = rgba(1.0f, 1.0f, 1.0f, 0.9f);
constexpr collide::Color kActiveColor = rgba(1.0f, 0.6f, 0.1f, 0.9f);
constexpr collide::Color kHitColor = rgba(0.3f, 1.0f, 0.3f, 1.0f);
constexpr collide::Color kMissColor = rgba(1.0f, 0.3f, 0.3f, 1.0f);
constexpr collide::Color kEmitColor = rgba(1.0f, 1.0f, 1.0f, 1.0f);
constexpr collide::Color kAskColor = rgba(1.0f, 0.95f, 0.3f, 1.0f);
constexpr std::size_t kTrail = 256;        // earlier regions of the phase drawn faded
constexpr std::size_t kPairsShown = 4000;  // pairs reported so far, the latest first
constexpr std::size_t kCursorSearch = 20000;  // how far back the current cursor is looked for

collide::Color faded(collide::Color c, float alpha) {
    return (collide::Color(alpha * 255.0f) << 24) | (c & 0x00FFFFFFu);
}

struct Painter {
    int dim;
    OverlayGeometry& out;

    void box(const Box3& b, collide::Color c) const {
        if (dim == 2) {
            add_box<2>(out.lines, from3<2>(b), c);
        } else {
            add_box<3>(out.lines, b, c);
        }
    }
    void fill(const Box3& b, collide::Color c) const {
        if (dim == 2) {
            add_fill<2>(out.triangles, from3<2>(b), c);
        } else {
            add_fill<3>(out.triangles, b, c);
        }
    }
    void line(const glm::vec3& a, const glm::vec3& b, collide::Color c) const {
        add_line(out.lines, a, b, c);
    }
    // A box drawn twice, the second just outside the first: a bolder outline.
    void bold(const Box3& b, collide::Color c) const {
        box(b, c);
        const glm::vec3 pad = 0.01f * (b.hi - b.lo) + glm::vec3(1e-4f);
        box({b.lo - pad, b.hi + (dim == 2 ? glm::vec3(pad.x, pad.y, 0) : pad)}, c);
    }
    void label(const glm::vec3& at, std::string text, collide::Color c) const {
        out.labels.push_back({at, std::move(text), c});
    }
};

// The sweep's cursor as a line (2D) or plane outline (3D) across the world at `at`.
void cursor_line(const Painter& p, const Box3& world, int axis, float at, float alpha = 0.9f) {
    Box3 slice = world;
    slice.lo[axis] = slice.hi[axis] = at;
    if (p.dim == 2) {
        p.line(slice.lo, slice.hi, faded(kCursorColor, alpha));
    } else {
        p.box(slice, faded(kCursorColor, alpha));
    }
}

// The cursor the current event happens under (a sweep's row, an outer loop's body): the
// last cursor event of the phase, so a test shows whose row it belongs to.
void draw_cursor_context(const Painter& p, const WatchTape& tape, std::size_t current) {
    const std::uint8_t phase = tape.events[current].phase;
    const std::size_t stop = current > kCursorSearch ? current - kCursorSearch : 0;
    for (std::size_t i = current; i-- > stop;) {
        const WatchTapeEvent& e = tape.events[i];
        if (e.phase != phase) return;
        if (e.step != WatchStep::kCursor) continue;
        if (tape.script.cursor_is_line) cursor_line(p, tape.extent, e.axis, e.at, 0.45f);
        p.box(tape.boxes[e.a], faded(kCursorColor, 0.7f));
        return;
    }
}

// The regions visited before the current event in its phase, faded; those since the last
// placement (the current body's own descent, in a build) bright, drawn last so that the
// same nodes met by earlier bodies do not cover them.
void draw_trail(const Painter& p, const WatchTape& tape, std::size_t current) {
    const std::uint8_t phase = tape.events[current].phase;
    std::size_t first = current;  // the oldest event of the trail
    std::size_t own_from = 0;     // events from here on are the current body's own
    bool own_found = false;
    for (std::size_t drawn = 0; first > 0 && drawn < kTrail; ++drawn) {
        const WatchTapeEvent& e = tape.events[first - 1];
        if (e.phase != phase) break;
        --first;
        if (e.step == WatchStep::kPlace && !own_found) {
            own_from = first + 1;
            own_found = true;
        }
    }
    if (!own_found) own_from = first;
    const collide::Color older = faded(kPruneColor, 0.35f);
    for (std::size_t i = first; i < current; ++i) {
        const WatchTapeEvent& e = tape.events[i];
        const bool own = i >= own_from;
        switch (e.step) {
            case WatchStep::kVisit: p.box(e.region, own ? faded(kVisitColor, 0.8f) : older); break;
            case WatchStep::kEnter: p.box(e.region, own ? faded(kEnterColor, 0.9f) : older); break;
            case WatchStep::kPrune: p.fill(e.region, faded(kPruneColor, 0.12f)); break;
            case WatchStep::kPlace: p.box(e.region, older); break;
            default: break;
        }
    }
}

void draw_pairs_so_far(const Painter& p, const WatchTape& tape, std::size_t shown) {
    std::size_t drawn = 0;
    for (std::size_t i = shown; i-- > 0 && drawn < kPairsShown;) {
        const WatchTapeEvent& e = tape.events[i];
        if (e.step != WatchStep::kEmit) continue;
        p.line(tape.boxes[e.a].center(), tape.boxes[e.b].center(), faded(kEmitColor, 0.45f));
        ++drawn;
    }
}

}  // namespace

void add_watch_overlay(const WatchPlayer& player, OverlayGeometry& out) {
    const WatchTape* tape = player.tape();
    if (tape == nullptr || tape->events.empty()) return;
    const Painter p{tape->dim, out};
    const std::size_t shown = player.position();
    draw_pairs_so_far(p, *tape, shown);
    for (const collide::BodyId a : player.active()) p.box(tape->boxes[a], kActiveColor);

    if (player.question_pending()) {  // the next test, its answer not shown yet
        const WatchTapeEvent& next = tape->events[shown];
        p.bold(tape->boxes[next.a], kAskColor);
        p.bold(tape->boxes[next.b], kAskColor);
        p.label(tape->boxes[next.b].hi, "hit or miss?", kAskColor);
    }
    const WatchTapeEvent* e = player.current();
    if (e == nullptr) return;
    draw_trail(p, *tape, shown - 1);
    if (e->step != WatchStep::kCursor) draw_cursor_context(p, *tape, shown - 1);
    const auto body = [&](collide::BodyId id) -> const Box3& { return tape->boxes[id]; };
    switch (e->step) {
        case WatchStep::kPhase: break;
        case WatchStep::kVisit:
            p.bold(e->region, kVisitColor);
            p.fill(e->region, faded(kVisitColor, 0.12f));
            break;
        case WatchStep::kEnter:
            p.bold(e->region, kEnterColor);
            p.fill(e->region, faded(kEnterColor, 0.12f));
            break;
        case WatchStep::kPrune:
            p.bold(e->region, kPruneColor);
            p.fill(e->region, faded(kPruneColor, 0.3f));
            break;
        case WatchStep::kPlace:
            p.bold(e->region, kPlaceColor);
            p.fill(e->region, faded(kPlaceColor, 0.12f));
            p.bold(body(e->a), kBodyColor);
            break;
        case WatchStep::kCursor:
            if (tape->script.cursor_is_line) cursor_line(p, tape->extent, e->axis, e->at);
            p.bold(body(e->a), kCursorColor);
            break;
        case WatchStep::kActiveAdd:
            p.bold(body(e->a), kActiveColor);
            cursor_line(p, tape->extent, e->axis, e->at);
            break;
        case WatchStep::kActiveDrop:
            p.bold(body(e->a), kPruneColor);
            cursor_line(p, tape->extent, e->axis, e->at);
            break;
        case WatchStep::kJump: {
            // The scan's body, and where the jump lands (none: the jump ended the scan).
            p.bold(body(e->a), kCursorColor);
            char text[48];
            std::snprintf(text, sizeof text, "BIGMIN: %u skipped", e->count);
            if (e->b != collide::kNoBody) {
                p.bold(body(e->b), kEnterColor);
                p.line(body(e->a).center(), body(e->b).center(), kEnterColor);
                p.label(body(e->b).center(), text, kEnterColor);
            } else {
                p.label(body(e->a).hi, std::string(text) + ", scan ends", kEnterColor);
            }
            break;
        }
        case WatchStep::kTest: {
            const collide::Color c = e->hit ? kHitColor : kMissColor;
            p.bold(body(e->a), c);
            p.bold(body(e->b), c);
            p.line(body(e->a).center(), body(e->b).center(), c);
            break;
        }
        case WatchStep::kFound:
            p.bold(e->region, kVisitColor);
            p.bold(body(e->a), kHitColor);
            break;
        case WatchStep::kEmit:
            p.bold(body(e->a), kEmitColor);
            p.bold(body(e->b), kEmitColor);
            p.line(body(e->a).center(), body(e->b).center(), kEmitColor);
            break;
        default: break;
    }
}

}  // namespace collidoscope
