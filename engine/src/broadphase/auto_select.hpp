// Auto: hands every call to one of a few candidate algorithms, chosen by measuring them on
// the live boxes rather than by fixed rules, since no algorithm wins on every scene and
// motion (the tree on crowded lines, the sorted grid on uniform gases, radix chunks when
// everything moves fast). It races the candidates on the same frames: at the first update
// (and when the body count changes by more than a quarter) every candidate is built and
// updated for kProbeFrames frames and the fastest by mean is kept, and again when the
// current's settled time grows 2.5 times (the bodies began to move, piled up); every
// kProbeEvery updates one challenger in turn is built again and runs beside the current
// algorithm for kProbeFrames frames, and replaces it when its mean over the timed frames
// (the first is its cold build, not counted) is below kSwitchBelow times the current's on
// the same frames. Probing is auto's own work and counted in its time; a probe runs one
// challenger at a time, so no frame costs more than two algorithms' updates (the first
// probe, where all of them run, excepted). A probe sees a new tree's first updates, when
// its fat boxes are all fresh and cheap, so it can favour the tree; the drift check catches
// a choice whose settled cost is far above what the probe saw. For a handful of bodies brute force
// is used without measuring (nothing beats 55 tests in a tight loop). The output is always the
// current algorithm's, so it is exact. It builds its candidates with the factory it is
// given (the registry's row passes its own), so it does not depend on the registry.
#pragma once

#include <array>
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
    static constexpr int kProbeFrames = 3;         // a cold build, then two timed updates
    static constexpr int kProbeEvery = 200;        // updates between two challengers' probes
    static constexpr int kFirstChallenge = 60;     // ...and after racing them all
    static constexpr double kHopeless = 3.0;       // a challenger this much slower is skipped
    static constexpr double kSwitchBelow = 0.9;    // a challenger's share of the current's time
    // All are raced again when the median of the current's last kRecent times grows past
    // kDrift times what it was kDriftAfter updates after the last probe (settled): the work
    // has changed. Not below kDriftAboveMs, where a probe costs more than it could save (and
    // one preempted update weighs too much).
    static constexpr double kDrift = 2.5;
    static constexpr int kDriftAfter = 50;
    static constexpr double kDriftAboveMs = 0.25;
    static constexpr std::size_t kRecent = 15;

    // Builds the algorithm called `name`, as the registry's make_broadphase<D> does.
    using Factory = std::unique_ptr<BroadPhase<D>> (*)(std::string_view name);
    // The candidates raced by default.
    static constexpr std::string_view kCandidates[] = {"dynamic-aabb-tree", "sorted-grid",
                                                       "radix-chunks"};
    explicit AutoSelect(Factory make, std::vector<std::string_view> candidates = {
                                          std::begin(kCandidates), std::end(kCandidates)});

    void update(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                PairList& out) override;
    void query(const Aabb<D>& region, std::vector<BodyId>& out,
               QueryTrace<D>* trace = nullptr) const override;
    void draw(DebugDraw<D>& draw, const Overlays<D>& which) const override;
    std::string describe(BodyId id) const override;
    std::vector<LegendEntry> legend() const override;
    std::vector<std::string> layers() const override;
    BroadPhaseStats stats() const override;
    std::span<Param> params() override;
    std::string status() const override;
    // The heat map is the chosen algorithm's, which keeps tracking across a switch.
    void set_cost_tracking(bool on) override;
    bool body_costs(std::span<std::uint32_t> out) const override;

    std::string_view current() const { return current_; }
    // Probes run so far (the first, all candidates at once, counts as one).
    int probes() const { return probes_; }

private:
    // One candidate racing the current algorithm: its structure and its timed updates.
    struct Racer {
        std::size_t candidate = 0;
        std::unique_ptr<BroadPhase<D>> algorithm;
        double ms = 0;        // summed over the timed frames
        double rival_ms = 0;  // the current algorithm's time on the same frames
    };

    void start_probe(bool all);
    void finish_probe();
    double recent_median() const;
    std::size_t current_index() const;

    Factory make_;
    std::vector<std::string_view> candidates_;
    std::unique_ptr<BroadPhase<D>> algorithm_;
    std::string_view current_;
    std::vector<Racer> racers_;  // while a probe runs
    PairList scratch_;           // the racers' pairs (the output is the current's)
    int probe_frame_ = 0;        // frames of the running probe done
    bool probe_all_ = false;     // the running probe races every candidate
    int since_probe_ = 0;        // updates since the last probe ended
    std::size_t next_challenger_ = 0;
    std::size_t probed_n_ = 0;  // the body count at the last probe
    int probes_ = 0;
    // What the last probes measured: each candidate's mean ms per timed frame, and the
    // current algorithm's on the same frames (0 where not measured yet).
    std::vector<double> measured_ms_, against_ms_;
    std::array<double, kRecent> recent_ms_{};  // the current's last update times
    std::size_t recent_at_ = 0;
    // The current's median kDriftAfter updates after the last probe, when a fresh structure
    // has settled (a tree's fat boxes are all new at its build, so its first updates are
    // cheap); 0 before.
    double settled_ms_ = 0;
    std::vector<double> settled_of_;  // each candidate's settled time when it last ran (0: not)
    double before_probe_ms_ = 0;      // the current's recent median when the probe began
    int until_challenge_ = kFirstChallenge;  // updates to the next single challenger
    bool track_costs_ = false;
    std::size_t n_ = 0;
    bool few_ = false;  // brute force for a handful of bodies, unmeasured
};

}  // namespace collide
