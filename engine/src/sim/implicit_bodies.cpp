#include "collide/implicit_bodies.hpp"

#include <algorithm>
#include <cassert>
#include <numbers>

namespace collide {

template <int D>
ImplicitBodies<D>::ImplicitBodies(Bodies<D>& bodies) {
    const std::size_t n = bodies.size();
    if (bodies.shape.size() != n) bodies.shape.assign(n, -1);
    if (bodies.rotation.size() != n) bodies.rotation.assign(n, Rotation<D>{});
    if (bodies.spin.size() != n) bodies.spin.assign(n, Spin<D>{});
    for (std::size_t i = 0; i < n; ++i) {
        if (bodies.shape[i] < 0) continue;
        assert(static_cast<std::size_t>(bodies.shape[i]) < bodies.models.size());
        any_ = true;
        bodies.radius[i] = bounding_radius<D>(*bodies.model_of(i));
    }
}

template <int D>
void ImplicitBodies<D>::begin_step(const Bodies<D>& bodies, bool swept) {
    if (!any_) return;
    if (swept) start_rot_ = bodies.rotation;
    counters_ = {};
    tests_ = 0;
}

template <int D>
void ImplicitBodies<D>::rotate(Bodies<D>& bodies, float dt) const {
    if (!any_) return;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        if (bodies.is_static[i] || !bodies.is_implicit(i)) continue;
        if constexpr (D == 2) {
            constexpr float kPi = std::numbers::pi_v<float>;
            float& a = bodies.rotation[i];
            a += bodies.spin[i] * dt;
            if (a > kPi) a -= 2.0f * kPi;  // keep the angle small, so it keeps its precision
            if (a < -kPi) a += 2.0f * kPi;
        } else {
            const Vec<3> w = bodies.spin[i];
            const float rate = glm::length(w);
            if (!(rate > 0.0f)) continue;
            glm::quat& q = bodies.rotation[i];
            q = glm::normalize(glm::angleAxis(rate * dt, w / rate) * q);
        }
    }
}

template <int D>
Aabb<D> ImplicitBodies<D>::box(const Bodies<D>& bodies, BodyId id) {
    return bodies.is_implicit(id)
               ? world_box<D>(bodies.model_of(id)->shape.local_box(), bodies.pose(id))
               : Aabb<D>::around(bodies.pos[id], bodies.radius[id]);
}

template <int D>
void ImplicitBodies<D>::set_boxes(const Bodies<D>& bodies, std::span<const Vec<D>> start_pos,
                                  std::span<Aabb<D>> boxes) const {
    if (!any_) return;
    const bool have_rot = start_rot_.size() == bodies.size();
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        if (!bodies.is_implicit(i)) continue;
        const Aabb<D>& local = bodies.model_of(i)->shape.local_box();
        boxes[i] = world_box<D>(local, bodies.pose(i));
        if (start_pos.empty()) continue;
        // The union of the boxes at the start and end poses.
        boxes[i].grow(have_rot ? world_box<D>(local, make_pose<D>(start_pos[i], start_rot_[i]))
                               : Aabb<D>::around(start_pos[i], bodies.radius[i]));
    }
}

template <int D>
std::shared_ptr<const ImplicitModel<D>> ImplicitBodies<D>::sphere_model(float radius) {
    const float r = std::max(radius, 1e-3f);  // a point still needs a surface to sample
    const auto it =
        std::lower_bound(sphere_models_.begin(), sphere_models_.end(), r,
                         [](const auto& entry, float key) { return entry.first < key; });
    if (it != sphere_models_.end() && it->first == r) return it->second;
    auto model = make_sphere_model<D>(r);
    sphere_models_.insert(it, {r, model});
    return model;
}

// Implicit bodies against implicit bodies or circles/spheres (a circle/sphere is the exact
// one-metaball model of its radius, built once per distinct radius).
template <int D>
bool ImplicitBodies<D>::implicit_pair(const Bodies<D>& bodies, const Pair& p, bool use_signature,
                                      Contact<D>& c) {
    const auto body = [this, &bodies](BodyId id) {
        ImplicitBody<D> out;
        out.model = bodies.is_implicit(id) ? bodies.models[bodies.shape[id]]
                                           : sphere_model(bodies.radius[id]);
        out.pose = bodies.pose(id);
        return out;
    };
    // Bounding spheres apart: no contact (the radius is conservative, see bounding_radius).
    // Rotated boxes overlap far more often than the shapes, so this skips most tests.
    const Vec<D> d = bodies.pos[p.b] - bodies.pos[p.a];
    const float reach = bodies.radius[p.a] + bodies.radius[p.b];
    if (glm::dot(d, d) > reach * reach) return false;
    ++tests_;
    const auto hit =
        implicit_contact<D>(body(p.a), body(p.b), ContactOptions{use_signature}, counters_);
    if (!hit) return false;
    c = {p.a, p.b, hit->normal, hit->depth};
    info_.push_back({p.a, p.b, hit->point, hit->normal, hit->depth, d});
    return true;
}

template <int D>
void ImplicitBodies<D>::find_contacts(const Bodies<D>& bodies, std::span<const Pair> pairs,
                                      bool use_signature, std::vector<Contact<D>>& out) {
    sorted_pairs_.assign(pairs.begin(), pairs.end());
    std::sort(sorted_pairs_.begin(), sorted_pairs_.end());
    out.clear();
    info_.clear();
    Contact<D> c;
    for (const Pair& p : sorted_pairs_) {
        if (bodies.is_implicit(p.a) || bodies.is_implicit(p.b)) {
            if (implicit_pair(bodies, p, use_signature, c)) out.push_back(c);
        } else if (sphere_contact<D>(bodies.pos[p.a], bodies.radius[p.a], bodies.pos[p.b],
                                     bodies.radius[p.b], c)) {
            c.a = p.a;
            c.b = p.b;
            out.push_back(c);
        }
    }
}

// Impact contacts of sphere pairs have no offset.
template <int D>
std::span<const ContactOffset<D>> ImplicitBodies<D>::match_offsets(
    const std::vector<Contact<D>>& contacts) {
    if (!any_) return {};
    offsets_.assign(contacts.size(), {Vec<D>(0.0f), false});
    std::size_t next = 0;
    for (std::size_t c = 0; c < contacts.size(); ++c) {
        const Pair p{contacts[c].a, contacts[c].b};
        while (next < info_.size() && Pair{info_[next].a, info_[next].b} < p) ++next;
        if (next < info_.size() && info_[next].a == p.a && info_[next].b == p.b) {
            offsets_[c] = {info_[next].offset, true};
        }
    }
    return offsets_;
}

template class ImplicitBodies<2>;
template class ImplicitBodies<3>;

}  // namespace collide
