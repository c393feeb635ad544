#include "collide/narrowphase.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

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
std::optional<float> time_of_impact(const Vec<D>& a0, const Vec<D>& a1, float ra,
                                    const Vec<D>& b0, const Vec<D>& b1, float rb) {
    // |d0 + t dd| = R, with d the centre offset: a quadratic in t whose smaller root is the
    // first touch. Work relative to b's motion so one body is still.
    const Vec<D> d0 = b0 - a0;
    const Vec<D> dd = (b1 - a1) - d0;
    const float b = glm::dot(d0, dd);
    if (b >= 0.0f) return std::nullopt;  // not approaching
    float reach = ra + rb;
    const float start2 = glm::dot(d0, d0);
    if (start2 <= reach * reach) {
        reach = std::sqrt(start2) - kImpactSlop * std::min(ra, rb);
        if (reach <= 0.0f) return 0.0f;
    }
    const float c = start2 - reach * reach;
    const float a = glm::dot(dd, dd);
    const float disc = b * b - a * c;
    if (disc < 0.0f) return std::nullopt;  // the paths pass wide of each other
    // Written as c / (-b + sqrt(disc)) it keeps its precision when the root is small.
    const float t = c / (-b + std::sqrt(disc));
    if (t > 1.0f) return std::nullopt;
    return std::max(t, 0.0f);
}

template <int D>
float closest_approach(const Vec<D>& a0, const Vec<D>& a1, const Vec<D>& b0, const Vec<D>& b1) {
    const Vec<D> d0 = b0 - a0;
    const Vec<D> dd = (b1 - a1) - d0;
    const float a = glm::dot(dd, dd);
    const float t = a > 0.0f ? std::clamp(-glm::dot(d0, dd) / a, 0.0f, 1.0f) : 0.0f;
    return glm::length(d0 + t * dd);
}

template <int D>
void find_contacts(std::span<const Vec<D>> pos, std::span<const float> radius,
                   std::span<const Pair> pairs, std::vector<Contact<D>>& out) {
    // Fixed chunks of pairs tested in parallel, each into its own list, joined in chunk
    // order; the sort by (a, b), whose keys are unique, then gives one order whatever the
    // thread count.
    constexpr std::size_t kPairsPerChunk = kContactPairsPerTask;
    const std::size_t chunks = (pairs.size() + kPairsPerChunk - 1) / kPairsPerChunk;
    std::vector<std::vector<Contact<D>>> found(chunks);
    tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t k) {
        const std::size_t end = std::min(pairs.size(), (k + 1) * kPairsPerChunk);
        Contact<D> c;
        for (std::size_t i = k * kPairsPerChunk; i < end; ++i) {
            const Pair& p = pairs[i];
            if (sphere_contact<D>(pos[p.a], radius[p.a], pos[p.b], radius[p.b], c)) {
                c.a = p.a;
                c.b = p.b;
                found[k].push_back(c);
            }
        }
    });
    out.clear();
    std::size_t total = 0;
    for (const auto& f : found) total += f.size();
    out.reserve(total);
    for (const auto& f : found) out.insert(out.end(), f.begin(), f.end());
    tbb::parallel_sort(out.begin(), out.end(), [](const Contact<D>& x, const Contact<D>& y) {
        return x.a != y.a ? x.a < y.a : x.b < y.b;
    });
}

template bool sphere_contact<2>(const Vec<2>&, float, const Vec<2>&, float, Contact<2>&);
template bool sphere_contact<3>(const Vec<3>&, float, const Vec<3>&, float, Contact<3>&);
template std::optional<float> time_of_impact<2>(const Vec<2>&, const Vec<2>&, float,
                                                const Vec<2>&, const Vec<2>&, float);
template std::optional<float> time_of_impact<3>(const Vec<3>&, const Vec<3>&, float,
                                                const Vec<3>&, const Vec<3>&, float);
template float closest_approach<2>(const Vec<2>&, const Vec<2>&, const Vec<2>&, const Vec<2>&);
template float closest_approach<3>(const Vec<3>&, const Vec<3>&, const Vec<3>&, const Vec<3>&);
template void find_contacts<2>(std::span<const Vec<2>>, std::span<const float>,
                               std::span<const Pair>, std::vector<Contact<2>>&);
template void find_contacts<3>(std::span<const Vec<3>>, std::span<const float>,
                               std::span<const Pair>, std::vector<Contact<3>>&);

}  // namespace collide
