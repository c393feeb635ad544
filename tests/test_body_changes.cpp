// The broad phase fed what changed (BodyChanges): every registry row, in both dimensions,
// against a double loop over the present bodies, through a script of the changes a game's
// world makes: bodies going still and back, falling asleep and waking, removed and added
// (ids recycled), moved by hand, the world emptied and refilled. Absent slots hold NaN
// boxes, so a row that reads one it should not fails. The StillSet's checks of the stream
// are tested at the end.
#include <algorithm>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "broadphase/still_split.hpp"
#include "collide/body_changes.hpp"
#include "collide/world.hpp"
#include "test_support.hpp"
#include "tooling/ballistic.hpp"
#include "tooling/random.hpp"
#include "tooling/scenes.hpp"

namespace collide {
namespace {

using State = StillSet::State;

// A world of `slots` bodies (a scene moving ballistically) whose bodies the script makes
// absent, moving or still, and the BodyChanges of each frame.
template <int D>
class ChangeScript {
public:
    ChangeScript(const std::string& scene, std::size_t slots, std::uint64_t seed)
        : motion_(make_scene<D>(scene, slots, seed), 0.5f, seed),
          state_(slots, State::kMoving),
          frozen_(motion_.boxes()),
          boxes_(slots),
          touched_(slots, 0),
          rng_(seed) {}

    std::size_t slots() const { return state_.size(); }
    State state(BodyId id) const { return state_[id]; }

    // Body `id` to `s` this frame (the lists record what the broad phase must hear). A body
    // changes at most once a frame here.
    void to(BodyId id, State s) {
        touched_[id] = 1;
        const State was = state_[id];
        if (was == State::kStill) left_.push_back(id);
        if (s == State::kStill) {
            stilled_.push_back(id);
            frozen_[id] = motion_.boxes()[id];  // a still body's box stays where it stopped
        }
        state_[id] = s;
    }
    // Each body with chance `p` from `from` to `to`.
    void shift(double p, State from, State to_state) {
        for (BodyId id = 0; id < slots(); ++id)
            if (state_[id] == from && !touched_[id] && rng_.uniform(0.0f, 1.0f) < p)
                to(id, to_state);
    }
    // A still body moved by hand, or a moving one removed and added again elsewhere: one
    // frame's leave and return.
    void bounce(BodyId id) {
        if (state_[id] == State::kStill && !touched_[id]) {
            touched_[id] = 1;
            left_.push_back(id);
            stilled_.push_back(id);
            frozen_[id] = shifted(frozen_[id]);
        }
    }
    Rng& rng() { return rng_; }

    // The frame's changes; `reset` names every still body as stilled.
    BodyChanges<D> changes(bool reset) {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        moving_.clear();
        if (reset) {
            left_.clear();
            stilled_.clear();
        }
        for (BodyId id = 0; id < slots(); ++id) {
            switch (state_[id]) {
                case State::kAbsent: boxes_[id] = {Vec<D>(nan), Vec<D>(nan)}; break;
                case State::kMoving:
                    boxes_[id] = motion_.boxes()[id];
                    moving_.push_back(id);
                    break;
                case State::kStill:
                    boxes_[id] = frozen_[id];
                    if (reset) stilled_.push_back(id);
                    break;
            }
        }
        // Moving bodies in a shuffled order (the contract takes any), kept while the set
        // stays the same: a still split takes a short way for last frame's list.
        if (moving_ == last_moving_set_) {
            moving_ = last_moving_;
        } else {
            last_moving_set_ = moving_;
            for (std::size_t i = moving_.size(); i > 1; --i)
                std::swap(moving_[i - 1], moving_[rng_.next() % i]);
            last_moving_ = moving_;
        }
        return {boxes_, moving_, stilled_, left_, reset};
    }
    // After the update: the next frame's motion, and empty lists.
    void advance() {
        stilled_.clear();
        left_.clear();
        std::fill(touched_.begin(), touched_.end(), 0);
        motion_.advance();
    }

    // Every overlapping pair of present bodies with at least one moving.
    PairList expected() const {
        PairList out;
        for (BodyId a = 0; a < slots(); ++a) {
            if (state_[a] == State::kAbsent) continue;
            for (BodyId b = a + 1; b < slots(); ++b) {
                if (state_[b] == State::kAbsent) continue;
                if (state_[a] == State::kStill && state_[b] == State::kStill) continue;
                if (boxes_[a].overlaps(boxes_[b])) out.push_back({a, b});
            }
        }
        return out;
    }
    std::vector<BodyId> in_region(const Aabb<D>& region) const {
        std::vector<BodyId> out;
        for (BodyId id = 0; id < slots(); ++id)
            if (state_[id] != State::kAbsent && boxes_[id].overlaps(region)) out.push_back(id);
        return out;
    }

private:
    Aabb<D> shifted(const Aabb<D>& b) {
        Vec<D> d;
        for (int k = 0; k < D; ++k) d[k] = rng_.uniform(-1.0f, 1.0f) * b.largest_side();
        return {b.lo + d, b.hi + d};
    }

    BallisticMotion<D> motion_;
    std::vector<State> state_;
    std::vector<Aabb<D>> frozen_;
    std::vector<Aabb<D>> boxes_;
    std::vector<BodyId> moving_, stilled_, left_;
    std::vector<BodyId> last_moving_set_, last_moving_;  // in id order, and as given
    std::vector<std::uint8_t> touched_;                  // changed this frame
    Rng rng_;
};

using testing::Param;
using testing::row_name;
using testing::rows_by_dim;

template <int D>
void expect_frame(BroadPhase<D>& bp, ChangeScript<D>& script, bool reset, const std::string& what,
                  bool whole_array = false) {
    PairList got;
    const BodyChanges<D> c = script.changes(reset);
    if (whole_array)
        bp.BroadPhase<D>::update_changes(c, got);
    else
        bp.update_changes(c, got);
    try {
        bp.validate();
    } catch (const InvariantError& e) {
        ADD_FAILURE() << what << ": " << e.what();
    }
    const auto diff = pair_set_difference(got, script.expected());
    ASSERT_FALSE(diff) << what << ": " << *diff;
    // A region query sees the present bodies, still and moving.
    Aabb<D> region = Aabb<D>::empty();
    for (const BodyId id : c.moving.first(std::min<std::size_t>(3, c.moving.size())))
        region.grow(c.boxes[id]);
    if (!c.moving.empty()) {
        std::vector<BodyId> found;
        bp.query(region, found);
        std::sort(found.begin(), found.end());
        ASSERT_EQ(found, script.in_region(region)) << what << ": query";
    }
    script.advance();
}

// The script: each phase names what it changes.
template <int D>
void run_script(const std::string& algorithm, const std::string& scene, std::size_t slots,
                std::uint64_t seed, bool whole_array = false) {
    auto bp = make_any_broadphase<D>(algorithm);
    ASSERT_TRUE(bp);
    ChangeScript<D> s(scene, slots, seed);
    // Most bodies static, a few absent: the first update is a reset.
    s.shift(0.8, State::kMoving, State::kStill);
    s.shift(0.05, State::kMoving, State::kAbsent);
    expect_frame<D>(*bp, s, true, "mostly static", whole_array);
    // The same moving bodies for a while: each keeps what it met while inside its margin.
    for (int f = 0; f < 6; ++f) expect_frame<D>(*bp, s, false, "the moving ones move", whole_array);
    s.shift(0.3, State::kStill, State::kMoving);
    expect_frame<D>(*bp, s, false, "static made dynamic", whole_array);
    s.shift(0.5, State::kMoving, State::kStill);
    expect_frame<D>(*bp, s, false, "and back (asleep)", whole_array);
    for (int f = 0; f < 4; ++f) {
        s.shift(0.05, State::kMoving, State::kStill);   // falls asleep
        s.shift(0.05, State::kStill, State::kMoving);   // woken
        s.shift(0.05, State::kMoving, State::kAbsent);  // removed
        s.shift(0.03, State::kStill, State::kAbsent);
        s.shift(0.3, State::kAbsent, State::kMoving);  // added: ids recycled
        s.shift(0.1, State::kAbsent, State::kStill);
        for (int k = 0; k < 4; ++k) s.bounce(static_cast<BodyId>(s.rng().next() % s.slots()));
        expect_frame<D>(*bp, s, false, "churn, frame " + std::to_string(f), whole_array);
    }
    s.shift(1.0, State::kStill, State::kAbsent);
    s.shift(1.0, State::kMoving, State::kAbsent);
    expect_frame<D>(*bp, s, false, "emptied", whole_array);
    s.shift(0.7, State::kAbsent, State::kStill);
    s.shift(1.0, State::kAbsent, State::kMoving);
    expect_frame<D>(*bp, s, false, "refilled", whole_array);
    s.shift(0.9, State::kMoving, State::kStill);
    expect_frame<D>(*bp, s, false, "nearly all asleep", whole_array);
    expect_frame<D>(*bp, s, false, "settled", whole_array);
    // The whole-array path and back: update() forgets the changes, a reset starts again.
    PairList pairs;
    bp->update(std::vector<Aabb<D>>{}, std::vector<std::uint8_t>{}, pairs);
    expect_frame<D>(*bp, s, true, "reset after a whole-array update", whole_array);
}

// The script on both scenes and two seeds, through update_changes or (`whole_array`) the
// base's whole-array path.
void run_scripts(const Param& param, bool whole_array) {
    const auto& [algorithm, dim] = param;
    for (const char* scene : {"uniform", "clusters"}) {
        for (std::uint64_t seed : {1u, 2u}) {
            SCOPED_TRACE(std::string(scene) + " seed " + std::to_string(seed));
            if (dim == 2) {
                run_script<2>(algorithm, scene, 700, seed, whole_array);
            } else {
                run_script<3>(algorithm, scene, 700, seed, whole_array);
            }
        }
    }
}

class FedChanges : public ::testing::TestWithParam<Param> {};

TEST_P(FedChanges, MatchesReferenceThroughAGamesChanges) {
    SKIP_WITHOUT_GPU(std::get<0>(GetParam()));
    run_scripts(GetParam(), false);
}

INSTANTIATE_TEST_SUITE_P(Registry, FedChanges, ::testing::ValuesIn(rows_by_dim()), row_name);

// The same script through the base's whole-array path, as `auto` feeds its candidates
// (compacted when slots are absent, so a compact index names another body next frame),
// for the rows whose own update_changes would take another way.
class FedWholeArray : public ::testing::TestWithParam<Param> {};

TEST_P(FedWholeArray, MatchesReferenceThroughAGamesChanges) {
    SKIP_WITHOUT_GPU(std::get<0>(GetParam()));
    run_scripts(GetParam(), true);
}

INSTANTIATE_TEST_SUITE_P(Registry, FedWholeArray, ::testing::ValuesIn(rows_by_dim()), row_name);

// Enough bodies change at once that a still split rebuilds its still structure mid-run, and
// tombstones and the side are both in play when it does.
template <int D>
void run_rebuilds(const std::string& algorithm) {
    auto bp = make_broadphase<D>(algorithm);
    ChangeScript<D> s("uniform", 3000, 7);
    s.shift(0.9, State::kMoving, State::kStill);
    expect_frame<D>(*bp, s, true, "reset");
    for (int f = 0; f < 6; ++f) {
        s.shift(0.12, State::kStill, f % 2 ? State::kAbsent : State::kMoving);
        s.shift(0.5, State::kMoving, State::kStill);
        s.shift(0.5, State::kAbsent, State::kMoving);
        expect_frame<D>(*bp, s, false, "mass change " + std::to_string(f));
    }
    const auto* split = dynamic_cast<const StillSplit<D>*>(bp.get());
    ASSERT_NE(split, nullptr) << algorithm << " has no still split";
    EXPECT_GT(split->rebuilds(), 2) << "the still structure was never rebuilt";
}

class SplitRows : public ::testing::TestWithParam<Param> {};

TEST_P(SplitRows, RebuildTheStillStructureWhenItDrifts) {
    if (GetParam().second == 2) {
        run_rebuilds<2>(GetParam().first);
    } else {
        run_rebuilds<3>(GetParam().first);
    }
}

// Everything still, nothing changed since the last frame: the split leaves its moving
// structure as it was (no tests), its queries still find the bodies waiting there, and a
// body woken afterwards pairs exactly.
template <int D>
void run_all_still(const std::string& algorithm) {
    auto bp = make_broadphase<D>(algorithm);
    ChangeScript<D> s("uniform", 700, 3);
    s.shift(0.5, State::kMoving, State::kStill);
    expect_frame<D>(*bp, s, true, "reset");
    s.shift(1.0, State::kMoving, State::kStill);  // fewer than a rebuild takes: on the side
    expect_frame<D>(*bp, s, false, "all fall asleep");
    for (int f = 0; f < 3; ++f) {
        expect_frame<D>(*bp, s, false, "asleep, frame " + std::to_string(f));
        EXPECT_EQ(bp->stats().candidate_tests, 0u) << "frame " << f << " of a world at rest";
    }
    Aabb<D> region = Aabb<D>::empty();
    for (BodyId id = 0; id < 40; ++id) region.grow(s.changes(false).boxes[id]);
    std::vector<BodyId> found;
    bp->query(region, found);
    std::sort(found.begin(), found.end());
    EXPECT_EQ(found, s.in_region(region)) << "a query of the world at rest";
    s.shift(0.02, State::kStill, State::kMoving);
    expect_frame<D>(*bp, s, false, "a few woken");
    EXPECT_GT(bp->stats().candidate_tests, 0u);
}

TEST_P(SplitRows, AWorldAtRestCostsNoTests) {
    if (GetParam().second == 2) {
        run_all_still<2>(GetParam().first);
    } else {
        run_all_still<3>(GetParam().first);
    }
}

std::vector<Param> split_rows() {
    std::vector<Param> out;
    for (const BroadPhaseEntry& e : broadphases())
        if (e.splits_still())
            for (int dim : {2, 3}) out.emplace_back(e.name, dim);
    return out;
}

INSTANTIATE_TEST_SUITE_P(Registry, SplitRows, ::testing::ValuesIn(split_rows()), row_name);

TEST(SplitRows, TheOnesTheIssueNamesHaveOne) {
    for (const char* name : {"sorted-grid", "dynamic-aabb-tree", "zorder-sweep", "spatial-hash",
                             "hierarchical-hash", "auto"})
        EXPECT_TRUE(find_broadphase(name)->splits_still()) << name;
}

// ---------------------------------------------------------------------------------------
// The stream's own checks.

TEST(StillSet, NamesTheBodyOfAContradictoryChange) {
    const std::vector<BodyId> none, zero{0}, one{1}, twice{1, 1}, far{9};
    const auto rejects = [](auto&& apply, const std::string& words) {
        try {
            apply();
            ADD_FAILURE() << "accepted: " << words;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    };
    StillSet set;
    set.apply(4, one, zero, none, true);
    EXPECT_EQ(set.present(), 2u);
    EXPECT_EQ(set.still(), 1u);
    rejects([&] { set.apply(4, none, zero, none, false); }, "body 0 in `stilled` is already still");
    set.apply(4, one, zero, none, true);
    rejects([&] { set.apply(4, none, none, one, false); }, "body 1 in `left` was not still");
    rejects([&] { set.apply(4, none, none, none, false); }, "needs a reset");
    set.apply(4, one, zero, none, true);
    rejects([&] { set.apply(4, twice, none, none, false); }, "body 1 in `moving` is named twice");
    set.apply(4, one, zero, none, true);
    rejects([&] { set.apply(4, far, none, none, false); },
            "body 9 in `moving` is past the last slot");
    set.apply(4, one, zero, none, true);
    rejects([&] { set.apply(4, zero, none, none, false); }, "body 0 in `moving` is still");
    // The same moving list as the last update's takes the short way; still checked.
    set.apply(4, one, zero, none, true);
    rejects([&] { set.apply(4, one, one, none, false); }, "body 1 in `stilled` is in `moving` too");
    // Removed twice: gone after the first `left`, so the second is not still.
    set.apply(4, one, zero, none, true);
    set.apply(4, one, none, zero, false);
    EXPECT_EQ(set.present(), 1u);
    rejects([&] { set.apply(4, one, none, zero, false); }, "body 0 in `left` was not still");
}

TEST(StillSplit, TheFirstUpdateFromChangesNeedsAReset) {
    auto bp = make_broadphase<2>("sorted-grid");
    const std::vector<Aabb<2>> boxes(2, Aabb<2>{{0, 0}, {1, 1}});
    const std::vector<BodyId> moving{0, 1}, none;
    PairList out;
    EXPECT_THROW(bp->update_changes({boxes, moving, none, none, false}, out),
                 std::invalid_argument);
    bp->update_changes({boxes, moving, none, none, true}, out);
    EXPECT_EQ(out, (PairList{{0, 1}}));
}

}  // namespace
}  // namespace collide

// ---------------------------------------------------------------------------------------
// The World feeds its static bodies as still: once after a reset (a new world, a new broad
// phase, a restore), then only the ones moved by hand. Its pairs stay the reference's.

namespace collide {
namespace {

template <int D>
void expect_world_pairs(const World<D>& world, const std::string& what) {
    PairList got = world.pairs();
    std::sort(got.begin(), got.end());
    const PairList want = testing::reference_pairs<D>(world.boxes(), world.bodies().is_static);
    const auto diff = pair_set_difference(got, want);
    ASSERT_FALSE(diff) << what << ": " << *diff;
}

template <int D>
void run_world(const std::string& algorithm) {
    Scene<D> scene = make_scene<D>("rain", 600, 3);
    for (std::size_t i = 0; i < scene.bodies.size(); i += 2) {
        scene.bodies.is_static[i] = 1;  // half of them: a level's worth of static bodies
        scene.bodies.vel[i] = Vec<D>(0.0f);
    }
    World<D> world(scene.settings, std::move(scene.bodies), make_broadphase<D>(algorithm));
    for (int f = 0; f < 5; ++f) world.step();
    expect_world_pairs(world, "stepped");
    const auto saved = world.snapshot();
    // A static body dragged onto a moving one, twice in a frame, then stepped.
    world.move_body(0, world.bodies().pos[1], Vec<D>(0.0f));
    world.move_body(0, world.bodies().pos[3], Vec<D>(0.0f));
    world.refresh_pairs();
    expect_world_pairs(world, "a static body moved by hand");
    EXPECT_NE(std::find(world.pairs().begin(), world.pairs().end(), Pair{0, 3}),
              world.pairs().end());
    world.step();
    expect_world_pairs(world, "stepped after the move");
    world.set_broad_phase(make_broadphase<D>("sorted-grid"));
    world.step();
    expect_world_pairs(world, "a new broad phase");
    world.restore(saved);
    expect_world_pairs(world, "restored");
    world.step();
    expect_world_pairs(world, "stepped after the restore");
}

class WorldChanges : public ::testing::TestWithParam<Param> {};

TEST_P(WorldChanges, StaticBodiesAreFedAsStillAndThePairsStayExact) {
    if (GetParam().second == 2) {
        run_world<2>(GetParam().first);
    } else {
        run_world<3>(GetParam().first);
    }
}

INSTANTIATE_TEST_SUITE_P(Registry, WorldChanges,
                         ::testing::Values(Param{"dynamic-aabb-tree", 2}, Param{"auto", 3},
                                           Param{"sort-and-sweep", 2}),
                         row_name);

}  // namespace
}  // namespace collide
