// The base of the engine's own broad phases: the start and end of every update and the cost
// heat map's two hooks written once, and validate() required of each (the peers in bench/
// derive from BroadPhase directly).
#pragma once

#include <cassert>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>

#include "broadphase/common/body_costs.hpp"
#include "broadphase/common/same_value.hpp"
#include "collide/broadphase.hpp"
#include "collide/broadphase_view.hpp"
#include "collide/watch.hpp"

namespace collide {

template <int D>
class EngineBroadPhase : public BroadPhase<D>, public BroadPhaseView<D> {
public:
    void set_cost_tracking(bool on) override { costs_.track(on); }
    bool body_costs(std::span<std::uint32_t> out) const override { return costs_.copy_to(out); }
    bool set_watch(WatchRecorder<D>* recorder) override {
        watch_ = recorder;
        return true;
    }
    std::string why_not_recorded() const override { return {}; }
    // Each of the engine's algorithms checks its own structure (see BroadPhase::validate).
    void validate() const override = 0;

protected:
    // Every update starts alike, so no algorithm can forget a part: `out` emptied and the
    // per-body costs zeroed before its build and search run; and debug builds check the
    // structure after each one, as Box2D's and Jolt's trees do (release builds leave that
    // to the tests).
    void update_whole(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                      PairList& out) final {
        out.clear();
        assert(is_static.size() == boxes.size());
        costs_.reset(boxes.size());
        build_and_search(boxes, is_static, out);
#ifndef NDEBUG
        this->validate();
#endif
    }
    // What each algorithm implements: its structure built or brought up to date from the
    // boxes, then every overlapping pair appended to `out` (empty on entry).
    virtual void build_and_search(std::span<const Aabb<D>> boxes,
                                  std::span<const std::uint8_t> is_static, PairList& out) = 0;

    BodyCosts costs_;
    // Watch mode's recorder while one update is recorded, else null: read once per phase
    // into a local, as costs_.if_on() is, so the timed path pays one register test.
    WatchRecorder<D>* watch_ = nullptr;
};

// validate()'s first check of a structure that keeps a record per body (its signature, the
// cells its box gave): one box, one static flag and one record for every body.
inline void check_per_body(const InvariantFail& fail, std::size_t boxes, std::size_t flags,
                           std::size_t records, const char* what) {
    if (flags != boxes || records != boxes)
        fail(str(boxes) + " boxes but " + str(flags) + " static flags and " + str(records) + " " +
             what);
}

// A key or code as validate()'s messages print it: "0x3a".
inline std::string hex(std::uint64_t v) {
    char s[24];
    std::snprintf(s, sizeof s, "0x%llx", static_cast<unsigned long long>(v));
    return s;
}

}  // namespace collide
