// A linear BVH built on the GPU every frame (Karras 2012): bodies sorted by the Morton code
// of their centre, all internal nodes built at once from the sorted codes, boxes fitted
// bottom up, then one traversal per body that looks only at the leaves after its own. No
// state is kept between frames but the buffers; the tree is read back to the host only
// when a query, the overlay or the panel asks for it.
#pragma once

#include <glm/glm.hpp>

#include "gpu_broadphase.hpp"

namespace collide::gpu {

template <int D>
class GpuLbvh final : public GpuBroadPhase<D> {
public:
    void search(const Aabb<D>& region, std::vector<BodyId>& out,
                QueryTrace<D>* trace = nullptr) const override;

    void draw(DebugDraw<D>& draw, const Overlays<D>& which) const override;
    std::string describe(BodyId id) const override;
    std::vector<LegendEntry> legend() const override;
    // Reads the tree back: ids a permutation, codes sorted, each node's children splitting
    // its leaf range and naming it as parent, leaves holding their bodies' boxes and every
    // node box the union of its children's (where the boxes are finite).
    void validate() const override;

private:
    void build(const SceneBounds<D>& bounds) override;
    void bind_pair_inputs() override;
    GLuint pair_program() override;
    BroadPhaseStats structure_stats() const override;

    // The tree as the GPU built it, on the host.
    struct HostTree {
        std::vector<glm::uvec4> nodes;  // left, right, first leaf, last leaf
        std::vector<Aabb<D>> boxes;     // every node, internal then leaves
        std::vector<std::uint32_t> ids, codes, parents;
        std::vector<std::uint8_t> depth;  // of every node
        int max_depth = 0;
    };
    const HostTree& host_tree() const;
    std::uint32_t leaf_of(BodyId id) const;  // the leaf position holding `id`

    StorageBuffer codes_, ids_, codes_scratch_, ids_scratch_;
    StorageBuffer nodes_, parents_, node_boxes_, visits_;
    mutable HostTree host_;
    mutable bool host_fresh_ = false;
};

extern template class GpuLbvh<2>;
extern template class GpuLbvh<3>;

}  // namespace collide::gpu
