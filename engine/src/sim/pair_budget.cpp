#include "collide/pair_budget.hpp"

#include <algorithm>
#include <cassert>
#include <numeric>
#include <vector>

namespace collide {

template <int D>
std::size_t count_pairs_up_to(std::span<const Aabb<D>> boxes,
                              std::span<const std::uint8_t> is_static, std::size_t limit) {
    assert(boxes.size() == is_static.size());
    std::vector<std::uint32_t> order(boxes.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return boxes[a].lo.x < boxes[b].lo.x; });
    std::size_t count = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const Aabb<D>& a = boxes[order[i]];
        for (std::size_t j = i + 1; j < order.size() && boxes[order[j]].lo.x <= a.hi.x; ++j) {
            if (is_static[order[i]] && is_static[order[j]]) continue;
            if (!a.overlaps(boxes[order[j]])) continue;
            if (++count > limit) return count;
        }
    }
    return count;
}

template std::size_t count_pairs_up_to<2>(std::span<const Aabb<2>>, std::span<const std::uint8_t>,
                                          std::size_t);
template std::size_t count_pairs_up_to<3>(std::span<const Aabb<3>>, std::span<const std::uint8_t>,
                                          std::size_t);

}  // namespace collide
