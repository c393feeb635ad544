// The centred interval tree as the viewer sees it: each node's centre line (a plane outline
// in 3D) across its cell, coloured by depth, with its held intervals as bars crossing it; the
// selected body's node, its interval and the path of centres above it; the query's trace.
#include "broadphase/centred_interval_tree.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace collide {

namespace {

// The node's cell flattened onto its centre: in 2D its lo and hi are the centre line's ends.
template <int D>
Aabb<D> centre_plane(const Aabb<D>& cell, int axis, float centre) {
    Aabb<D> p = cell;
    p.lo[axis] = p.hi[axis] = centre;
    return p;
}

// A body's interval on `axis`, drawn through its centre on the other axes.
template <int D>
void interval_bar(DebugDraw<D>& draw, const Aabb<D>& box, int axis, Color color) {
    Vec<D> a = box.center(), b = a;
    a[axis] = box.lo[axis];
    b[axis] = box.hi[axis];
    draw.line(a, b, color);
}

template <int D>
void centre_line(DebugDraw<D>& draw, const Aabb<D>& plane, Color color) {
    if constexpr (D == 2) {
        draw.line(plane.lo, plane.hi, color);
    } else {
        draw.box(plane, color);
    }
}

constexpr char kAxes[] = "xyz";

}  // namespace

template <int D>
std::string CentredIntervalTree<D>::path_of(std::uint32_t at) const {
    std::vector<std::string> steps;
    for (std::uint32_t c = at; nodes_[c].parent != kNone; c = nodes_[c].parent) {
        const Node& p = nodes_[nodes_[c].parent];
        std::ostringstream s;
        s << std::setprecision(4) << kAxes[p.axis] << (p.left == c ? "<" : ">") << p.centre;
        steps.push_back(s.str());
    }
    std::string text;
    for (std::size_t i = steps.size(); i-- > 0;) {
        text += steps[i];
        if (i > 0) text += (steps.size() - i) % 5 == 0 ? "\n  " : " ";
    }
    return text.empty() ? "(root)" : text;
}

template <int D>
std::string CentredIntervalTree<D>::describe(BodyId id) const {
    if (id >= node_of_.size() || nodes_.empty()) return {};
    const std::uint32_t at = node_of_[id];
    const Node& n = nodes_[at];
    const Aabb<D>* box = nullptr;
    for (std::uint32_t i = n.begin; i < n.end; ++i) {
        if (by_lo_[i].id == id) box = &by_lo_[i].box;
    }
    if (box == nullptr) return {};
    std::size_t tested = 0;
    std::vector<std::uint32_t> stack;
    descend(at, true, *box, false, stack, nullptr, [&](const Entry&) { ++tested; });
    std::ostringstream s;
    s << std::setprecision(4) << "CIT node " << at << ", depth " << n.depth << "\ncentre "
      << kAxes[n.axis] << " = " << n.centre << "; it holds " << n.end - n.begin
      << " intervals (sorted by both ends)\nheld ones swept along " << kAxes[n.sweep_axis]
      << "\npath: " << path_of(at) << "\nits descent below tests " << tested << " bodies";
    return s.str();
}

template <int D>
void CentredIntervalTree<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    if (nodes_.empty()) return;
    const bool selecting = which.selected < node_of_.size();
    const Color path = rgba(1.0f, 0.6f, 0.1f, 1.0f), white = rgba(1, 1, 1);
    // Highlights first, so the budget never cuts them.
    if (selecting) {
        const std::uint32_t home = node_of_[which.selected];
        for (std::uint32_t up = nodes_[home].parent; up != kNone; up = nodes_[up].parent) {
            const Node& a = nodes_[up];
            centre_line(draw, centre_plane(a.cell, a.axis, a.centre), path);
        }
        const Node& n = nodes_[home];
        draw.box(n.cell, white);
        centre_line(draw, centre_plane(n.cell, n.axis, n.centre), white);
        for (std::uint32_t i = n.begin; i < n.end; ++i) {
            interval_bar(draw, by_lo_[i].box, n.axis,
                         by_lo_[i].id == which.selected ? white : rgba(1.0f, 0.85f, 0.5f, 1.0f));
        }
        draw.label(centre_plane(n.cell, n.axis, n.centre).hi, "depth " + std::to_string(n.depth),
                   white);
    }
    if (which.query) {
        // Cells entered in cyan, pruned ones (subtree bounds missed the region) in grey.
        for (const auto& r : which.query->regions) {
            draw.box(r.box, r.kind == TraceKind::kDescended ? rgba(0.2f, 0.9f, 1.0f, 0.8f)
                                                            : rgba(0.6f, 0.6f, 0.6f, 0.5f));
        }
    }
    if (!which.flags.structure) return;
    const bool lines = !(which.flags.hidden_layers & 1u), bars = !(which.flags.hidden_layers & 2u);
    // Shallow nodes first: when the budget runs out, the coarse picture is what remains.
    std::vector<std::uint32_t> order(nodes_.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return nodes_[a].depth < nodes_[b].depth;
    });
    const float depths = static_cast<float>(std::max(deepest_, 1));
    for (const std::uint32_t i : order) {
        const Node& n = nodes_[i];
        if (!n.cell.overlaps(draw.view)) continue;
        if (draw.full()) break;
        const float t = static_cast<float>(n.depth) / depths;
        if (lines) centre_line(draw, centre_plane(n.cell, n.axis, n.centre),
                               ramp_color(t, selecting ? 0.35f : 0.8f));
        if (!bars) continue;
        for (std::uint32_t e = n.begin; e < n.end; ++e)
            interval_bar(draw, by_lo_[e].box, n.axis, ramp_color(t, selecting ? 0.3f : 0.9f));
    }
}

// The members defined here; the class itself is instantiated in centred_interval_tree.cpp.
template std::string CentredIntervalTree<2>::describe(BodyId) const;
template void CentredIntervalTree<2>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string CentredIntervalTree<3>::describe(BodyId) const;
template void CentredIntervalTree<3>::draw(DebugDraw<3>&, const Overlays<3>&) const;

}  // namespace collide
