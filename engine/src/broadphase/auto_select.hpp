// Auto: picks a registry algorithm from what the boxes look like, and hands every call to
// it. Brute force for a handful of bodies (the Mean-Max workload: nothing beats 55 tests in
// a tight loop), otherwise the algorithm the bench found fastest for that size spread. The
// choice changes only after the other one has been preferred for kPatience updates in a
// row, and the body-count rule has a dead band, so a count or a spread near a threshold
// does not make it flip every frame (each switch starts the new structure cold).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collide/broadphase.hpp"

namespace collide {

template <int D>
class AutoSelect final : public BroadPhase<D> {
public:
    static constexpr std::size_t kTinyBelow = 48;  // brute force below this many bodies...
    static constexpr std::size_t kTinyAbove = 96;  // ...and keeps it up to this many
    static constexpr int kPatience = 30;

    void update(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                PairList& out) override;
    void query(const Aabb<D>& region, std::vector<BodyId>& out) const override;
    void draw(DebugDraw<D>& draw, const Overlays<D>& which) const override;
    std::string describe(BodyId id) const override;
    std::vector<std::string> layers() const override;
    BroadPhaseStats stats() const override;
    std::span<Param> params() override;
    std::string status() const override;

    // The algorithm for n bodies whose largest box extent is `spread` times the median.
    static std::string_view choose(std::size_t n, float spread, std::string_view current);
    std::string_view current() const { return current_; }

private:
    float size_spread(std::span<const Aabb<D>> boxes);

    std::unique_ptr<BroadPhase<D>> algorithm_;
    std::string_view current_;
    std::string_view wanted_;  // what choose() said last, and for how many updates in a row
    int wanted_for_ = 0;
    float spread_ = 1.0f;
    std::size_t n_ = 0;
    int switches_ = 0;
    std::vector<float> sample_;
};

}  // namespace collide
