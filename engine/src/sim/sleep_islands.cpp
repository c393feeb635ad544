#include "collide/sleep_islands.hpp"

#include <cassert>
#include <limits>

namespace collide {

void SleepIslands::grow(std::size_t bodies) {
    s_.rest_time.resize(bodies, 0.0f);
    s_.island.resize(bodies, kNoBody);
    s_.next.resize(bodies, kNoBody);
}

void SleepIslands::restore(const State& s, [[maybe_unused]] std::size_t bodies) {
    sleeping_ = 0;
    if (s.island.empty()) {
        s_ = State{};
        return;
    }
    assert(s.island.size() == bodies && s.next.size() == bodies && s.rest_time.size() == bodies);
    s_ = s;
    for (const BodyId island : s_.island) sleeping_ += island != kNoBody;
}

void SleepIslands::wake_all(std::vector<BodyId>& woken) {
    for (BodyId id = 0; id < s_.island.size() && sleeping_ > 0; ++id) {
        if (s_.island[id] == id) wake(id, woken);
    }
    for (float& t : s_.rest_time) t = 0.0f;
}

void SleepIslands::wake(BodyId id, std::vector<BodyId>& woken) {
    if (!asleep(id)) return;
    for (BodyId m = s_.island[id]; m != kNoBody;) {
        const BodyId next = s_.next[m];
        s_.island[m] = s_.next[m] = kNoBody;
        s_.rest_time[m] = 0.0f;
        woken.push_back(m);
        --sleeping_;
        m = next;
    }
}

BodyId SleepIslands::root(BodyId id) {
    while (parent_[id] != id) {
        parent_[id] = parent_[parent_[id]];
        id = parent_[id];
    }
    return id;
}

template <int D>
void SleepIslands::update(const Input<D>& in, std::vector<BodyId>& woken,
                          std::vector<BodyId>& slept) {
    const std::size_t n = in.is_static.size();
    assert(in.settings.sleep_time > 0.0f && "a zero sleep time would sleep the just woken");
    if (s_.island.size() < n) grow(n);
    const auto dynamic = [&](BodyId id) { return in.is_static[id] == 0; };

    // A touch from an awake dynamic body wakes the island it touches.
    const std::size_t woken_before = woken.size();
    for (const Contact<D>& c : in.contacts) {
        const bool a_asleep = asleep(c.a);
        if (a_asleep == asleep(c.b)) continue;
        const BodyId sleeper = a_asleep ? c.a : c.b;
        if (dynamic(a_asleep ? c.b : c.a)) wake(sleeper, woken);
    }

    // Rest timers. A spinning body (an implicit one's spin is kinematic) never rests.
    const float dt = in.settings.dt;
    const float slow = in.settings.sleep_speed * in.settings.sleep_speed;
    bool any_rested = false;
    for (const BodyId id : in.awake) {
        const Vec<D>& v = in.vel[id];
        const bool resting = glm::dot(v, v) <= slow && in.spin[id] == Spin<D>{};
        float& t = s_.rest_time[id];
        t = resting ? t + dt : 0.0f;
        any_rested = any_rested || t >= in.settings.sleep_time;
    }
    if (!any_rested) return;

    // Islands of the awake bodies, the ones just woken included (their rest time is 0, so
    // an island that touches one stays awake).
    parent_.resize(n);
    island_rest_.resize(n);
    tail_.resize(n);
    const std::span<const BodyId> just_woken(woken.data() + woken_before, woken.size() - woken_before);
    for (const auto& list : {in.awake, just_woken}) {
        for (const BodyId id : list) {
            parent_[id] = id;
            island_rest_[id] = std::numeric_limits<float>::infinity();
            tail_[id] = kNoBody;
        }
    }
    for (const Contact<D>& c : in.contacts) {
        if (!dynamic(c.a) || !dynamic(c.b) || asleep(c.a) || asleep(c.b)) continue;
        const BodyId ra = root(c.a), rb = root(c.b);
        if (ra != rb) parent_[std::max(ra, rb)] = std::min(ra, rb);
    }
    for (const auto& list : {in.awake, just_woken}) {
        for (const BodyId id : list) {
            float& least = island_rest_[root(id)];
            least = std::min(least, s_.rest_time[id]);
        }
    }

    // Each island that rested long enough sleeps, linked in body order from its smallest
    // member (tail_ holds, per root, the member linked last).
    for (const BodyId id : in.awake) {
        const BodyId r = root(id);
        if (!(island_rest_[r] >= in.settings.sleep_time)) continue;
        BodyId& last = tail_[r];
        s_.island[id] = last == kNoBody ? id : s_.island[last];
        if (last != kNoBody) s_.next[last] = id;
        last = id;
        s_.rest_time[id] = 0.0f;
        slept.push_back(id);
        ++sleeping_;
    }
}

template void SleepIslands::update<2>(const Input<2>&, std::vector<BodyId>&, std::vector<BodyId>&);
template void SleepIslands::update<3>(const Input<3>&, std::vector<BodyId>&, std::vector<BodyId>&);

}  // namespace collide
