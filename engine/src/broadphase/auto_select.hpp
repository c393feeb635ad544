// Auto: picks a registry algorithm from what the boxes look like, and hands every call to
// it. Brute force for a handful of bodies (the Mean-Max workload: nothing beats 55 tests in
// a tight loop); otherwise what the bench found fastest (docs/bench/hashing_*.csv): the
// dynamic AABB tree, whose fat boxes make slow frames nearly free on every scene and every
// spread of sizes, unless the bodies move fast against their size (then most leave their
// fat boxes every frame and radix-chunks, rebuilt from scratch, wins). It measures the size
// spread (largest / median extent) and the motion (mean displacement of a sample of box
// centres per update / median extent). The choice changes only after another one has been
// preferred for kPatience updates in a row, and both rules have dead bands, so a value near
// a threshold does not make it flip every frame (each switch starts the new structure cold).
// It builds its candidates with the factory it is given (the registry's row passes its own),
// so it does not depend on the registry.
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
    // Motion (displacement per update / median extent) above which radix-chunks is chosen,
    // and below which the tree comes back.
    static constexpr float kFastAbove = 0.2f;
    static constexpr float kSlowBelow = 0.1f;

    // Builds the algorithm called `name`, as the registry's make_broadphase<D> does.
    using Factory = std::unique_ptr<BroadPhase<D>> (*)(std::string_view name);
    explicit AutoSelect(Factory make) : make_(make) {}

    void update(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                PairList& out) override;
    void query(const Aabb<D>& region, std::vector<BodyId>& out,
               QueryTrace<D>* trace = nullptr) const override;
    void draw(DebugDraw<D>& draw, const Overlays<D>& which) const override;
    std::string describe(BodyId id) const override;
    std::vector<std::string> layers() const override;
    BroadPhaseStats stats() const override;
    std::span<Param> params() override;
    std::string status() const override;
    // The heat map is the chosen algorithm's, which keeps tracking across a switch.
    void set_cost_tracking(bool on) override;
    bool body_costs(std::span<std::uint32_t> out) const override;

    // The algorithm for n bodies moving `motion` median extents per update.
    static std::string_view choose(std::size_t n, float motion, std::string_view current);
    std::string_view current() const { return current_; }

private:
    // Spread and motion from a sample of the boxes.
    void measure(std::span<const Aabb<D>> boxes);

    Factory make_;
    std::unique_ptr<BroadPhase<D>> algorithm_;
    std::string_view current_;
    bool track_costs_ = false;
    std::string_view wanted_;  // what choose() said last, and for how many updates in a row
    int wanted_for_ = 0;
    float spread_ = 1.0f;
    float motion_ = 0.0f;
    std::size_t n_ = 0;
    std::vector<float> extents_;
    std::vector<Vec<D>> centres_;  // of the sampled boxes, last update
};

}  // namespace collide
