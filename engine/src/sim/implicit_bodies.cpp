#include "collide/implicit_bodies.hpp"

#include <algorithm>
#include <cassert>
#include <numbers>

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

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

namespace {

// The key of a circle/sphere's model: a point still needs a surface to sample.
float sphere_key(float radius) {
    return std::max(radius, 1e-3f);
}

template <typename Entry>
bool radius_below(const Entry& entry, float key) {
    return entry.first < key;
}

// Bounding spheres apart: no contact (the radius is conservative, see bounding_radius).
// Rotated boxes overlap far more often than the shapes, so this skips most tests.
template <int D>
bool bounding_spheres_touch(const Bodies<D>& bodies, const Pair& p) {
    const Vec<D> d = bodies.pos[p.b] - bodies.pos[p.a];
    const float reach = bodies.radius[p.a] + bodies.radius[p.b];
    return glm::dot(d, d) <= reach * reach;
}

void add(ImplicitCounters& to, const ImplicitCounters& from) {
    to.density_evals += from.density_evals;
    to.gradient_evals += from.gradient_evals;
    to.refine_evals += from.refine_evals;
    to.points_tested += from.points_tested;
    to.points_skipped += from.points_skipped;
    to.inside_points += from.inside_points;
}

}  // namespace

template <int D>
std::shared_ptr<const ImplicitModel<D>> ImplicitBodies<D>::cached_sphere_model(float radius) const {
    const float r = sphere_key(radius);
    const auto it = std::lower_bound(sphere_models_.begin(), sphere_models_.end(), r,
                                     radius_below<SphereModel>);
    return it != sphere_models_.end() && it->first == r ? it->second : nullptr;
}

template <int D>
std::shared_ptr<const ImplicitModel<D>> ImplicitBodies<D>::sphere_model(float radius) {
    if (auto model = cached_sphere_model(radius)) return model;
    const float r = sphere_key(radius);
    auto model = make_sphere_model<D>(r);
    sphere_models_.insert(std::lower_bound(sphere_models_.begin(), sphere_models_.end(), r,
                                           radius_below<SphereModel>),
                          {r, model});
    return model;
}

// Implicit bodies against implicit bodies or circles/spheres (a circle/sphere is the exact
// one-metaball model of its radius, built once per distinct radius).
template <int D>
void ImplicitBodies<D>::implicit_pair(const Bodies<D>& bodies, const Pair& p, bool use_signature,
                                      Found& found) const {
    const auto body = [this, &bodies](BodyId id) {
        ImplicitBody<D> out;
        out.model = bodies.is_implicit(id) ? bodies.models[bodies.shape[id]]
                                           : cached_sphere_model(bodies.radius[id]);
        assert(out.model && "find_contacts builds the sphere models before the tests");
        out.pose = bodies.pose(id);
        return out;
    };
    if (!bounding_spheres_touch(bodies, p)) return;
    ++found.tests;
    const auto hit =
        implicit_contact<D>(body(p.a), body(p.b), ContactOptions{use_signature}, found.counters);
    if (!hit) return;
    found.contacts.push_back({p.a, p.b, hit->normal, hit->depth});
    found.info.push_back(
        {p.a, p.b, hit->point, hit->normal, hit->depth, bodies.pos[p.b] - bodies.pos[p.a]});
}

template <int D>
void ImplicitBodies<D>::find_contacts(const Bodies<D>& bodies, std::span<const Pair> pairs,
                                      bool use_signature, std::vector<Contact<D>>& out) {
    sorted_pairs_.assign(pairs.begin(), pairs.end());
    tbb::parallel_sort(sorted_pairs_.begin(), sorted_pairs_.end());  // unique: one order
    // One serial pass builds the sphere models the tests need (the parallel tests only read
    // the cache) and cuts the pairs into chunks of about equal work: an implicit test costs
    // about as much as a thousand sphere tests, and the implicit bodies' pairs bunch up in
    // (a, b) order. The cuts depend on the pairs alone, not on the thread count.
    constexpr std::size_t kImplicitCost = 1000, kChunkCost = 4096;
    chunk_starts_.assign(1, 0);
    std::size_t cost = 0;
    for (std::size_t i = 0; i < sorted_pairs_.size(); ++i) {
        const Pair& p = sorted_pairs_[i];
        const bool a = bodies.is_implicit(p.a), b = bodies.is_implicit(p.b);
        const bool test = (a || b) && bounding_spheres_touch(bodies, p);
        if (test && a != b) sphere_model(bodies.radius[a ? p.b : p.a]);
        cost += test ? kImplicitCost : 1;
        if (cost >= kChunkCost) {
            chunk_starts_.push_back(i + 1);
            cost = 0;
        }
    }
    if (chunk_starts_.back() != sorted_pairs_.size()) chunk_starts_.push_back(sorted_pairs_.size());
    // Each chunk into its own lists, joined in chunk order: the same contacts, info and
    // counters as one pass in (a, b) order.
    const std::size_t chunks = chunk_starts_.size() - 1;
    found_.resize(chunks);
    tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t k) {
        // Filled on the task's own stack, not in place: the counters go up once a surface
        // point, and neighbouring chunks' counters share cache lines.
        Found f = std::move(found_[k]);
        f.contacts.clear();
        f.info.clear();
        f.counters = {};
        f.tests = 0;
        Contact<D> c;
        for (std::size_t i = chunk_starts_[k]; i < chunk_starts_[k + 1]; ++i) {
            const Pair& p = sorted_pairs_[i];
            if (bodies.is_implicit(p.a) || bodies.is_implicit(p.b)) {
                implicit_pair(bodies, p, use_signature, f);
            } else if (sphere_contact<D>(bodies.pos[p.a], bodies.radius[p.a], bodies.pos[p.b],
                                         bodies.radius[p.b], c)) {
                c.a = p.a;
                c.b = p.b;
                f.contacts.push_back(c);
            }
        }
        found_[k] = std::move(f);
    });
    out.clear();
    info_.clear();
    for (const Found& f : found_) {
        out.insert(out.end(), f.contacts.begin(), f.contacts.end());
        info_.insert(info_.end(), f.info.begin(), f.info.end());
        add(counters_, f.counters);
        tests_ += f.tests;
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
