// Auto: hands every call to one of a few candidate algorithms, chosen by measuring them on
// the live boxes rather than by fixed rules, since no algorithm wins on every scene and
// motion (the tree on crowded lines, the sorted grid on uniform gases and clusters, radix
// chunks when everything moves fast, the z-order sweep on sizes spread over decades). Measuring
// must not make frames stutter, so after the first race no frame runs two algorithms:
// - The race: at the first update (and when the body count changes by more than a
//   quarter, to a count not raced at lately: see raced_) every candidate is built and updated on the same frames, a cold build and
//   then kRaceTimed timed frames (kRaceTimedFew below kRaceFewBelow bodies, where one
//   frame is too short to time), and the fastest is kept (of those within 1/kSwitchBelow
//   of it, the one with the cheapest cold build). These are the only frames that
//   cost the sum of all candidates; the bench's warm-up frames (2 or more) hold them, so
//   every subject's cold build is in the warm-up, auto's race included.
// - A turn: a challenger *replaces* the current algorithm for kTurnFrames frames (a cold
//   build, then timed frames) and its pairs are the frames' output; the current one is kept
//   aside, not updated, and resumes afterwards (it takes the boxes as they are then, as
//   every structure must; a tree just sees larger moves once). The challenger is kept when
//   its time is below kSwitchBelow times the current's time before the turn (its recent
//   time, or its last two updates for a turn called for by those, see below); the
//   turn ends early once its timed frames so far average more than that.
// - Turns come every kProbeEvery updates, and kFirstTurn after a race (one challenger at a
//   time, skipping those measured kHopeless times slower, whose settled time could not win,
//   or whose cold build costs over kColdHopeless times the current's time); at once when a
//   measured challenger is clearly faster than the current's last two updates and these
//   have grown kRose times past the time the current was chosen with (it was chosen on
//   cheap fresh frames; only until it settles, kSettleAfter updates on, since a later rise
//   is the work's and every candidate shares it; and not in the kRecent updates after a
//   turn it kept, which catch up on the frames it missed); and for every challenger, one
//   after the other, when the current's time drifts kDrift times above what it was settled
//   (the work changed).
// A structure's first updates after its build can be far cheaper than its settled ones (a
// tree's fat boxes are all new and nothing leaves them for a while), so a race or a turn
// can favour it; the last-two-updates check undoes such a choice within two frames of its
// cost showing, and a challenger counts at no less than its recent time when it last ran
// (settled_of_), so the same mistake is not made twice. The current's recent time is the
// mean of its last kRecent updates without the largest (one preempted update should not
// start a turn). Probes are rare so that their spikes (a challenger's cold build, a
// resumed tree's larger first update) stay near 1% of frames. For a handful of bodies brute
// force is used without measuring. Every candidate is exact and the output is always that
// of the algorithm that ran the frame, so auto is exact. It builds its candidates with the
// factory it is given (the registry passes its own).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collide/broadphase.hpp"
#include "collide/broadphase_view.hpp"

namespace collide {

template <int D>
class AutoSelect final : public BroadPhase<D>, public BroadPhaseView<D> {
public:
    static constexpr std::size_t kTinyBelow = 48;  // brute force below this many bodies...
    static constexpr std::size_t kTinyAbove = 96;  // ...and keeps it up to this many
    static constexpr int kRaceTimed = 1;           // timed race frames after the cold build
    static constexpr int kRaceTimedFew = 3;        // ...below this many bodies
    static constexpr std::size_t kRaceFewBelow = 10000;
    static constexpr int kTurnFrames = 3;    // a challenger's turn: a cold build, two timed
    static constexpr int kProbeEvery = 100;  // updates between two periodic turns
    // ...and after a race, whose one timed frame may have been preempted (a busy machine).
    static constexpr int kFirstTurn = 30;
    static constexpr double kSwitchBelow = 0.9;  // a challenger's share of the current's time
    // A challenger this much slower gets no turn: a turn's timed frame costs about what the
    // challenger was measured at, and it is the frame auto's p99 sees (the cold build is the
    // max). At 2, on 2D powerlaw 100k at 0.05, z-order's turn (4.0 ms against the tree's
    // 2.4) made auto's p99 1.95 times its mean; at 1.5 it gets no turn, and p99 is 1.65.
    static constexpr double kHopeless = 1.5;
    // Nor does one whose cold build alone costs more than winning could save before the
    // next periodic turn (kProbeEvery updates at 1 - kSwitchBelow of the current's time): on
    // the 3D rain trace at 100k the tree's cold build took 79 ms against the grid's 5.5.
    static constexpr double kColdHopeless = kProbeEvery * (1.0 - kSwitchBelow);
    static constexpr std::size_t kRecent = 8;    // updates in the current's recent time
    // A challenger measured clearly faster gets a turn at once only when the current's
    // recent time has grown kRose times what it was chosen with (chosen on fresh frames),
    // within kSettleAfter updates of that choice.
    static constexpr double kRose = 1.5;
    // Every challenger gets a turn when the current's recent time grows past kDrift times
    // what it was kSettleAfter updates after it took over (the work changed), not below
    // kDriftAboveMs, where a turn costs more than it could save.
    static constexpr double kDrift = 2.5;
    static constexpr int kSettleAfter = 30;
    static constexpr double kDriftAboveMs = 0.25;

    // Builds the algorithm called `name`, as the registry's make_broadphase<D> does.
    using Factory = std::unique_ptr<BroadPhase<D>> (*)(std::string_view name);
    // The candidates raced by default.
    static constexpr std::string_view kCandidates[] = {"dynamic-aabb-tree", "sorted-grid",
                                                       "radix-chunks", "zorder-sweep"};
    // Milliseconds since a fixed point; a steady clock unless a test scripts the times.
    using Clock = double (*)();
    static double steady_ms();
    explicit AutoSelect(Factory make,
                        std::vector<std::string_view> candidates = {std::begin(kCandidates),
                                                                    std::end(kCandidates)},
                        Clock clock = &steady_ms);

    void update_whole(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                      PairList& out) override;
    void search(const Aabb<D>& region, std::vector<BodyId>& out,
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
    // The structure is the chosen algorithm's (each racer checks its own in debug builds).
    void validate() const override;
    // Watch mode records the one algorithm whose pairs an update returns (the first racer
    // in a race, the challenger in its turn); the script is that one's, as of the last
    // recorded update, so the panel shows the code that ran.
    bool set_watch(WatchRecorder<D>* recorder) override;
    WatchScript watch_script() const override;
    std::string why_not_recorded() const override;

    // The algorithm whose output the last update was (a challenger during its turn).
    std::string_view current() const { return name_; }
    // Races and turns finished so far.
    int probes() const { return probes_; }

private:
    static constexpr std::size_t kNone = ~std::size_t{0};
    // A candidate in the race: its structure and its summed timed updates.
    struct Racer {
        std::size_t candidate = 0;
        std::unique_ptr<BroadPhase<D>> algorithm;
        double ms = 0;       // summed over the timed frames
        double cold_ms = 0;  // its cold build
    };

    void start_race();
    void finish_race();
    // `current_ms`: the current's time the challenger is to beat.
    void start_turn(std::size_t challenger, double current_ms);
    void finish_turn();
    std::unique_ptr<BroadPhase<D>> build(std::string_view name) const;  // tracking as set
    void take(std::size_t candidate, std::unique_ptr<BroadPhase<D>> algorithm, double ms);
    void between_probes();
    double recent_ms() const;
    // a.update() for the pairs this update returns, recorded when Watch mode is on.
    void update_output(BroadPhase<D>& a, std::span<const Aabb<D>> boxes,
                       std::span<const std::uint8_t> is_static, PairList& out);

    Factory make_;
    Clock clock_;
    std::vector<std::string_view> candidates_;
    std::unique_ptr<BroadPhase<D>> algorithm_;  // the one that runs (the challenger in a turn)
    std::string_view name_;
    std::size_t current_ = kNone;           // the chosen candidate (not the challenger in a turn)
    std::vector<Racer> racers_;             // while the race runs
    PairList scratch_;                      // the other racers' pairs (the output is the first's)
    int race_timed_ = 0;                    // timed frames of the running race
    // The current one during a turn, and after a lost turn until the next update (the
    // challenger ran the last update, so until then its structure answers queries).
    std::unique_ptr<BroadPhase<D>> aside_;
    std::size_t challenger_ = kNone;        // whose turn it is
    double turn_ms_ = 0;                    // the challenger's timed updates, summed
    double before_turn_ms_ = 0;             // the current's time the challenger is to beat
    int frame_ = 0;                         // frames of the running race or turn done
    std::vector<std::size_t> waiting_;      // challengers due a turn (on drift), last first
    int since_probe_ = 0;                   // updates since the last race or turn ended
    // Updates the current runs before its last two can call a turn: 2 for a new choice,
    // kRecent for one resumed after a turn.
    int judge_after_ = 2;
    int until_probe_ = kProbeEvery;         // updates to the next periodic turn
    std::size_t next_challenger_ = 0;
    std::size_t raced_n_ = 0;  // the body count at the last race (or the last one taken up)
    // The last races' counts and winners. A count near one of them takes that winner, built
    // afresh, without a race: in a still split with churn, the moving side swings between
    // the moving bodies alone and those with the still ones waiting for the next rebuild
    // (2D uniform 1M, 1% moving, 1% churn: 10k to 58k every 12 frames), and a race at
    // every swing cost 3 to 7 times the sorted grid it chose each time.
    struct Raced {
        std::size_t n;
        std::size_t candidate;
        double ms;
    };
    static constexpr std::size_t kRemembered = 16;
    std::vector<Raced> raced_;
    int probes_ = 0;
    int turns_ = 0;  // of which turns
    // Each candidate's last measured time (ms per update; 0: not measured since the work
    // last changed) and its recent time when it last ran as the current (0: not since).
    std::vector<double> measured_ms_, settled_of_;
    std::vector<double> cold_ms_;  // each candidate's last cold build (race or turn), in ms
    std::array<double, kRecent> recent_{};  // the current's last update times
    std::size_t recent_at_ = 0;
    double chosen_ms_ = 0;   // the current's time when it was chosen
    double settled_ms_ = 0;  // the current's recent time kSettleAfter updates in (0: before)
    bool track_costs_ = false;
    WatchRecorder<D>* watch_ = nullptr;  // Watch mode's recorder, or null
    WatchScript watched_script_;         // the recorded algorithm's script
    bool watched_ = false;               // an update was recorded since set_watch
    std::size_t n_ = 0;
    bool few_ = false;  // brute force for a handful of bodies, unmeasured
};

}  // namespace collide
