#include "sim/world_snapshot.hpp"

#include <vector>

#include "tooling/fnv1a.hpp"

namespace collidoscope {

template <int D>
std::unique_ptr<SnapshotOf<D>> reuse_snapshot(std::unique_ptr<WorldSnapshot> spare) {
    std::unique_ptr<SnapshotOf<D>> s(dynamic_cast<SnapshotOf<D>*>(spare.get()));
    if (!s) return std::make_unique<SnapshotOf<D>>();
    spare.release();
    return s;
}

template <int D>
std::size_t snapshot_bytes(const collide::World<D>& world) {
    const std::size_t per_body = 2 * sizeof(collide::Vec<D>) + sizeof(collide::Rotation<D>) +
                                 sizeof(collide::Spin<D>) + sizeof(collide::Aabb<D>);
    return sizeof(SnapshotOf<D>) + world.bodies().size() * per_body +
           world.contacts().size() * sizeof(collide::Contact<D>);
}

template <int D>
std::uint64_t state_hash(const typename collide::World<D>::Snapshot& s, std::uint64_t tunnelled) {
    collide::Fnv1a h;
    h.add(s.pos);
    h.add(s.vel);
    h.add(s.rotation);
    h.add(s.spin);
    h.add(&s.steps, sizeof s.steps);
    h.add(s.warm_start.walls);
    h.add(s.warm_start.keys);
    h.add(s.warm_start.impulses);
    h.add(s.sleep.rest_time);  // who sleeps, and with whom, decides the steps to come
    h.add(s.sleep.island);
    h.add(s.sleep.next);
    h.add(&tunnelled, sizeof tunnelled);
    return h.value();
}

template std::unique_ptr<SnapshotOf<2>> reuse_snapshot<2>(std::unique_ptr<WorldSnapshot>);
template std::unique_ptr<SnapshotOf<3>> reuse_snapshot<3>(std::unique_ptr<WorldSnapshot>);
template std::size_t snapshot_bytes<2>(const collide::World<2>&);
template std::size_t snapshot_bytes<3>(const collide::World<3>&);
template std::uint64_t state_hash<2>(const collide::World<2>::Snapshot&, std::uint64_t);
template std::uint64_t state_hash<3>(const collide::World<3>::Snapshot&, std::uint64_t);

}  // namespace collidoscope
