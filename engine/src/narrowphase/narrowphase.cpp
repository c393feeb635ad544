#include "collide/narrowphase.hpp"

#include <algorithm>
#include <cmath>

namespace collide {

template <int D>
bool sphere_contact(const Vec<D>& pa, float ra, const Vec<D>& pb, float rb, Contact<D>& c) {
    const Vec<D> d = pb - pa;
    const float dist2 = glm::dot(d, d);
    const float reach = ra + rb;
    if (dist2 > reach * reach) return false;
    const float dist = std::sqrt(dist2);
    // Coincident centres have no direction; any fixed axis keeps the result deterministic.
    Vec<D> n(0.0f);
    if (dist > 1e-12f) {
        n = d / dist;
    } else {
        n[0] = 1.0f;
    }
    c.normal = n;
    c.depth = reach - dist;
    return true;
}

template <int D>
void find_contacts(std::span<const Vec<D>> pos, std::span<const float> radius,
                   std::span<const Pair> pairs, std::vector<Contact<D>>& out) {
    out.clear();
    Contact<D> c;
    for (const Pair& p : pairs) {
        if (sphere_contact<D>(pos[p.a], radius[p.a], pos[p.b], radius[p.b], c)) {
            c.a = p.a;
            c.b = p.b;
            out.push_back(c);
        }
    }
    std::sort(out.begin(), out.end(), [](const Contact<D>& x, const Contact<D>& y) {
        return x.a != y.a ? x.a < y.a : x.b < y.b;
    });
}

template bool sphere_contact<2>(const Vec<2>&, float, const Vec<2>&, float, Contact<2>&);
template bool sphere_contact<3>(const Vec<3>&, float, const Vec<3>&, float, Contact<3>&);
template void find_contacts<2>(std::span<const Vec<2>>, std::span<const float>,
                               std::span<const Pair>, std::vector<Contact<2>>&);
template void find_contacts<3>(std::span<const Vec<3>>, std::span<const float>,
                               std::span<const Pair>, std::vector<Contact<3>>&);

}  // namespace collide
