#include "sim/watch_mode.hpp"

#include <algorithm>

namespace collidoscope {

void WatchMode::set_open(bool on) {
    open_ = on;
    if (!on) {
        player_.load(nullptr);
        tape_ = {};
        key_.reset();
    }
}

void WatchMode::sync(SimWorld& world, const std::string& algorithm, collide::BodyId selected,
                     std::uint64_t world_id, const std::optional<Box3>& query) {
    if (!open_) return;
    Key key;
    key.algorithm = algorithm;
    key.steps = world.steps();
    key.world = world_id;
    key.bodies = world.body_count();
    key.gpu = world.on_gpu();
    // The selection matters only where the recording keeps one body's events (large n).
    if (world.body_count() > collide::kWatchKeepAllUpTo) key.focus = selected;
    for (const collide::Param& p : world.broad_phase_params()) key.params.push_back(p.value);
    if (query)
        key.query = {query->lo.x, query->lo.y, query->lo.z, query->hi.x, query->hi.y, query->hi.z};
    if (key_ == key) return;
    key_ = std::move(key);
    tape_ = world.record_watch(algorithm, selected, query);
    player_.load(&tape_);
    player_.seek(static_cast<std::size_t>(std::min<std::uint64_t>(start_.event, player_.size())));
    if (start_.at_selection) player_.seek_next_of(tape_.recorded_index(selected));
    if (start_.at_step) player_.seek_next_step(*start_.at_step);
    start_ = {};  // a later recording starts from the beginning
}

}  // namespace collidoscope
