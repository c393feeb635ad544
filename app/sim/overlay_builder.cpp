#include "sim/overlay_builder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numbers>
#include <optional>

#include "collide/broadphase_view.hpp"
#include "sim/dim_cast.hpp"
#include "sim/overlay_shapes.hpp"

namespace collidoscope {
namespace {

using collide::BodyId;

constexpr std::size_t kMaxLabels = 256;
constexpr int kQueryRingSegments = 16;  // thousands of them: keep each one cheap
constexpr float kQueryRingPx = 3.0f;    // smallest ring around a body the query found

// Over the cap, every k-th item in view is drawn, so a capped overlay thins out evenly
// instead of covering whichever bodies come first in id order.
std::size_t stride_for(std::size_t in_view, std::size_t cap) {
    return cap == 0 ? in_view + 1 : std::max<std::size_t>(1, (in_view + cap - 1) / cap);
}

template <int D>
void add_boxes(const collide::World<D>& world, const collide::Aabb<D>& view, std::size_t cap,
               std::vector<LineVertex>& lines, OverlayReport& report) {
    const auto boxes = world.boxes();
    report.boxes_total = boxes.size();
    report.boxes_in_view = static_cast<std::size_t>(std::count_if(
        boxes.begin(), boxes.end(), [&](const collide::Aabb<D>& b) { return b.overlaps(view); }));
    const std::size_t stride = stride_for(report.boxes_in_view, cap);
    std::size_t seen = 0;
    for (const auto& box : boxes) {
        if (!box.overlaps(view) || seen++ % stride != 0) continue;
        add_box<D>(lines, box, kBoxColor);
        ++report.boxes_drawn;
    }
}

template <int D>
void add_pairs(const collide::World<D>& world, const collide::Aabb<D>& view, std::size_t cap,
               std::vector<LineVertex>& lines, OverlayReport& report) {
    // Contacts as sorted keys, so each pair's "is it real" is a binary search.
    std::vector<std::uint64_t> touching;
    touching.reserve(world.contacts().size());
    for (const auto& c : world.contacts()) touching.push_back(collide::make_pair(c.a, c.b).key());
    if (!std::is_sorted(touching.begin(), touching.end())) {
        std::sort(touching.begin(), touching.end());
    }
    const auto& pos = world.bodies().pos;
    auto in_view = [&](const collide::Pair& p) {
        const collide::Aabb<D> extent{glm::min(pos[p.a], pos[p.b]), glm::max(pos[p.a], pos[p.b])};
        return extent.overlaps(view);
    };
    const auto& pairs = world.pairs();
    report.pairs_total = pairs.size();
    report.pairs_in_view =
        static_cast<std::size_t>(std::count_if(pairs.begin(), pairs.end(), in_view));
    const std::size_t stride = stride_for(report.pairs_in_view, cap);
    std::size_t seen = 0;
    for (const collide::Pair& p : pairs) {
        if (!in_view(p) || seen++ % stride != 0) continue;
        const bool real = std::binary_search(touching.begin(), touching.end(), p.key());
        add_line(lines, to3<D>(pos[p.a]), to3<D>(pos[p.b]), real ? kContactColor : kPairColor);
        ++report.pairs_drawn;
    }
}

// Rings around the bodies the query found (rings, so they cannot be mistaken for the cells
// an algorithm draws), thinned out like add_boxes() over the cap.
template <int D>
void add_query_hits(const collide::World<D>& world, const OverlayRequest& req,
                    const collide::Aabb<D>& view, std::vector<LineVertex>& lines,
                    OverlayReport& report) {
    const auto boxes = world.boxes();
    const auto& bodies = world.bodies();
    auto shown = [&](BodyId id) { return id < boxes.size() && boxes[id].overlaps(view); };
    report.query_hits_total = req.query_hits.size();
    report.query_hits_in_view = static_cast<std::size_t>(
        std::count_if(req.query_hits.begin(), req.query_hits.end(), shown));
    const std::size_t stride = stride_for(report.query_hits_in_view, req.max_query_hits);
    std::size_t seen = 0;
    for (const BodyId id : req.query_hits) {
        if (!shown(id) || seen++ % stride != 0) continue;
        const float r = std::max(bodies.radius[id] * 1.15f, kQueryRingPx * req.query_pixel);
        add_ring(lines, to3<D>(bodies.pos[id]), r, req.ring_right, req.ring_up, kQueryHitColor,
                 kQueryRingSegments);
        ++report.query_hits_drawn;
    }
}

template <int D>
void add_structure(const collide::BroadPhase<D>& algorithm, const OverlayRequest& req,
                   const collide::QueryTrace<D>& trace, const collide::Aabb<D>& view,
                   const collide::Aabb<D>& world_box, OverlayGeometry& out, OverlayReport& report) {
    std::vector<LineVertex>& lines = out.lines;
    collide::DebugDraw<D> dd;
    dd.view = view;
    dd.pixel = req.pixel;
    dd.clip = world_box;
    if (req.lens) dd.lens = from3<D>(*req.lens);
    if (req.slab && D == 3) dd.slab = from3<D>(*req.slab);
    if (req.eye && D == 3) dd.eye = from3<D>(*req.eye);
    const collide::Overlays<D> which{req.flags, req.selected, req.query ? &trace : nullptr};
    collide::view_of(algorithm).draw(dd, which);
    dd.finish();
    report.structure_primitives = dd.lines.size() + dd.boxes.size() + dd.fills.size();
    report.structure_capped = dd.full() || dd.lod.kept < dd.lod.offered;
    report.lod_note = dd.lod_note();
    report.tint_max = dd.lod.tint_max;
    lines.reserve(lines.size() + dd.lines.size() * 2 + dd.boxes.size() * (D == 2 ? 8 : 24));
    for (const auto& l : dd.lines) add_line(lines, to3<D>(l.a), to3<D>(l.b), l.color);
    for (const auto& b : dd.boxes) add_box<D>(lines, b.box, b.color);
    for (const auto& f : dd.fills) add_fill<D>(out.triangles, f.box, f.color);
    for (const auto& l : dd.labels) {
        if (out.labels.size() >= kMaxLabels) break;
        out.labels.push_back({to3<D>(l.at), l.text, l.color});
    }
}

// Where the selected body will first touch another if both keep going straight: its path
// to that point, both bodies' outlines there and a cross at the touching point.
template <int D>
void add_predicted_impact(const collide::World<D>& world, const OverlayRequest& req,
                          OverlayGeometry& out) {
    const std::optional<collide::PredictedImpact<D>> hit =
        world.predict_impact(req.selected, kImpactHorizonSeconds);
    if (!hit) return;
    const auto& bodies = world.bodies();
    const glm::vec3 from = to3<D>(bodies.pos[req.selected]);
    const glm::vec3 at = to3<D>(hit->at);
    const glm::vec3 point = to3<D>(hit->point);
    add_line(out.lines, from, at, kImpactColor);
    add_ring(out.lines, at, bodies.radius[req.selected], req.ring_right, req.ring_up, kImpactColor);
    add_ring(out.lines, to3<D>(hit->other_at), bodies.radius[hit->other], req.ring_right,
             req.ring_up, kImpactColor);
    const float arm = std::max(req.min_ring_radius, 0.3f * bodies.radius[req.selected]);
    add_line(out.lines, point - req.ring_right * arm, point + req.ring_right * arm, kSelectionColor);
    add_line(out.lines, point - req.ring_up * arm, point + req.ring_up * arm, kSelectionColor);
    char text[64];
    std::snprintf(text, sizeof text, "impact in %.3f s with #%u", hit->seconds, hit->other);
    out.labels.push_back({point, text, kImpactColor});
}

// Is world point p inside body `id` (an implicit body's density, or the circle/sphere)?
template <int D>
bool inside_body(const collide::Bodies<D>& b, BodyId id, const collide::Vec<D>& p) {
    if (b.is_implicit(id)) {
        return b.model_of(id)->shape.density(collide::to_local<D>(b.pose(id), p)) < 0.0f;
    }
    const collide::Vec<D> d = p - b.pos[id];
    return glm::dot(d, d) < b.radius[id] * b.radius[id];
}

// The signature's marked cells of body `id`, as boxes in its frame (drawn rotated).
template <int D>
void add_signature_cells(const collide::Bodies<D>& b, BodyId id, std::vector<LineVertex>& lines) {
    const collide::Signature<D>& sig = b.model_of(id)->signature;
    const int res = sig.resolution();
    if (res <= 0) return;
    const collide::Pose<D> pose = b.pose(id);
    const collide::Vec<D> size = sig.box().size() / static_cast<float>(res);
    const auto corner = [&](const glm::vec<D, int>& cell, int bits) {
        collide::Vec<D> local = sig.box().lo;
        for (int k = 0; k < D; ++k)
            local[k] += (static_cast<float>(cell[k]) + ((bits >> k) & 1 ? 1.0f : 0.0f)) * size[k];
        return to3<D>(collide::to_world<D>(pose, local));
    };
    glm::vec<D, int> cell(0);
    const int total = D == 2 ? res * res : res * res * res;
    for (int index = 0; index < total; ++index) {
        int rest = index;
        for (int k = 0; k < D; ++k) {
            cell[k] = rest % res;
            rest /= res;
        }
        if (!sig.bit(cell)) continue;
        // Corner c has axis k's far side from bit k; an edge flips one bit.
        for (int c = 0; c < (1 << D); ++c) {
            for (int bit = 1; bit < (1 << D); bit <<= 1) {
                if (!(c & bit)) add_line(lines, corner(cell, c), corner(cell, c | bit), kSignatureColor);
            }
        }
    }
}

// Body `id`'s surface points as small crosses, red inside `partner`, green outside (all
// green without a partner).
template <int D>
void add_sample_points(const collide::Bodies<D>& b, BodyId id, BodyId partner,
                       std::vector<LineVertex>& lines) {
    const collide::ImplicitModel<D>& model = *b.model_of(id);
    const collide::Pose<D> pose = b.pose(id);
    float arm = 0.3f * model.mesh.cell_size[0];
    for (int k = 1; k < D; ++k) arm = std::min(arm, 0.3f * model.mesh.cell_size[k]);
    for (const collide::Vec<D>& v : model.mesh.vertices) {
        const collide::Vec<D> w = collide::to_world<D>(pose, v);
        const bool in = partner != collide::kNoBody && inside_body<D>(b, partner, w);
        const glm::vec3 p = to3<D>(w);
        for (int k = 0; k < D; ++k) {
            glm::vec3 d(0.0f);
            d[k] = arm;
            add_line(lines, p - d, p + d, in ? kInsideColor : kOutsideColor);
        }
    }
}

// Every implicit contact (capped) and the selected implicit body: sample points against the
// partner, the contact normal at the deepest point, and the signature cells (of every body
// shown in 2D; of the selected one only in 3D, where a signature is thousands of boxes).
template <int D>
void add_implicit_overlays(const collide::World<D>& world, const OverlayRequest& req,
                           OverlayGeometry& out) {
    const auto& b = world.bodies();
    std::vector<std::pair<BodyId, BodyId>> shown;
    const auto& contacts = world.implicit_contacts();
    for (std::size_t i = 0; i < contacts.size() && i < kMaxImplicitContactsShown; ++i) {
        const auto& c = contacts[i];
        if (b.is_implicit(c.a)) shown.push_back({c.a, c.b});
        if (b.is_implicit(c.b)) shown.push_back({c.b, c.a});
        const float len = 0.6f * std::min(b.radius[c.a], b.radius[c.b]);
        const glm::vec3 p = to3<D>(c.point);
        add_line(out.lines, p, p + to3<D>(c.normal) * len, kNormalColor);
        add_line(out.lines, p - req.ring_right * (0.15f * len), p + req.ring_right * (0.15f * len),
                 kNormalColor);
        add_line(out.lines, p - req.ring_up * (0.15f * len), p + req.ring_up * (0.15f * len),
                 kNormalColor);
    }
    const BodyId sel = req.selected;
    if (sel < b.size() && b.is_implicit(sel)) {
        BodyId partner = collide::kNoBody;
        for (const auto& c : contacts) {
            if (c.a == sel || c.b == sel) {
                partner = c.a == sel ? c.b : c.a;
                break;
            }
        }
        if (std::find(shown.begin(), shown.end(), std::pair{sel, partner}) == shown.end())
            shown.push_back({sel, partner});
        add_signature_cells<D>(b, sel, out.lines);
    }
    for (const auto& [id, partner] : shown) {
        if (D == 2 && id != sel) add_signature_cells<D>(b, id, out.lines);
        add_sample_points<D>(b, id, partner, out.lines);
    }
}

}  // namespace

template <int D>
OverlayReport build_overlays(const collide::World<D>& world, const OverlayRequest& req,
                             const collide::QueryTrace<D>& trace, OverlayGeometry& out,
                             const collide::BroadPhase<D>* algorithm) {
    if (!algorithm) algorithm = world.broad_phase();
    OverlayReport report;
    std::vector<LineVertex>& lines = out.lines;
    const collide::Aabb<D> view = from3<D>(req.view);
    add_box<D>(lines, world.settings().bounds, kWorldOutlineColor);

    // A query region asks the algorithm for its query trace even with the structure off.
    if ((req.flags.structure || req.query) && algorithm) {
        add_structure<D>(*algorithm, req, trace, view, world.settings().bounds, out, report);
    }
    // In 3D the slab cuts the boxes and pairs as it cuts the structure: through the whole
    // depth they draw over each other into a tangle, a slice of them reads.
    collide::Aabb<D> bodies_view = view;
    if (req.slab && D == 3) {
        const collide::Aabb<D> slab = from3<D>(*req.slab);
        bodies_view = {glm::max(view.lo, slab.lo), glm::min(view.hi, slab.hi)};
    }
    if (req.flags.aabbs) add_boxes<D>(world, bodies_view, req.max_boxes, lines, report);
    if (req.flags.pairs) add_pairs<D>(world, bodies_view, req.max_pairs, lines, report);
    if (req.query) {
        add_query_hits<D>(world, req, view, lines, report);
        // Last, so no other line covers it, and two pixels wide (a second box one pixel
        // larger), so it stands out from the cells an algorithm draws along it.
        collide::Aabb<D> region = from3<D>(*req.query);
        add_box<D>(lines, region, kQueryRegionColor);
        region.lo -= collide::Vec<D>(req.query_pixel);
        region.hi += collide::Vec<D>(req.query_pixel);
        add_box<D>(lines, region, kQueryRegionColor);
    }

    if (req.flags.implicit && world.has_implicit()) add_implicit_overlays<D>(world, req, out);

    const auto& bodies = world.bodies();
    if (req.predicted_impact && req.selected < bodies.size()) {
        add_predicted_impact<D>(world, req, out);
    }
    if (req.selected < bodies.size()) {
        const glm::vec3 c = to3<D>(bodies.pos[req.selected]);
        const float r = std::max(bodies.radius[req.selected] * 1.2f, req.min_ring_radius);
        // A dark ring under the white one keeps the selection visible on any colour.
        add_ring(lines, c, r + req.min_ring_radius * 0.25f, req.ring_right, req.ring_up,
                 kSelectionShadowColor);
        add_ring(lines, c, r, req.ring_right, req.ring_up, kSelectionColor);
    }
    return report;
}

template OverlayReport build_overlays<2>(const collide::World<2>&, const OverlayRequest&,
                                         const collide::QueryTrace<2>&, OverlayGeometry&,
                                         const collide::BroadPhase<2>*);
template OverlayReport build_overlays<3>(const collide::World<3>&, const OverlayRequest&,
                                         const collide::QueryTrace<3>&, OverlayGeometry&,
                                         const collide::BroadPhase<3>*);

}  // namespace collidoscope
