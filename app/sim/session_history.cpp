#include "sim/session_history.hpp"

namespace collidoscope {

void SessionHistory::record(const SimWorld& world) {
    const std::uint64_t step = world.steps();
    if (!empty() && step > 0) drop_after(step - 1);
    if (!empty() && (step == 0 || last_step() + 1 != step)) clear();  // keep the steps consecutive
    const std::size_t incoming = world.snapshot_bytes();
    if (incoming > max_bytes_) return;
    // The oldest snapshots the new one pushes out go first, the last of them lending its
    // buffers to the new one.
    std::unique_ptr<WorldSnapshot> spare;
    while (!snapshots_.empty() &&
           (bytes_ + incoming > max_bytes_ || snapshots_.size() + 1 > max_steps_)) {
        bytes_ -= snapshots_.front()->bytes();
        spare = std::move(snapshots_.front());
        snapshots_.pop_front();
    }
    snapshots_.push_back(world.snapshot(std::move(spare)));
    bytes_ += snapshots_.back()->bytes();
    while (snapshots_.size() > 1 && (bytes_ > max_bytes_ || snapshots_.size() > max_steps_)) {
        bytes_ -= snapshots_.front()->bytes();
        snapshots_.pop_front();
    }
}

void SessionHistory::drop_after(std::uint64_t step) {
    while (!empty() && last_step() > step) {
        bytes_ -= snapshots_.back()->bytes();
        snapshots_.pop_back();
    }
}

void SessionHistory::clear() {
    snapshots_.clear();
    bytes_ = 0;
}

const WorldSnapshot* SessionHistory::find(std::uint64_t step) const {
    if (empty() || step < first_step() || step > last_step()) return nullptr;
    return snapshots_[static_cast<std::size_t>(step - first_step())].get();
}

}  // namespace collidoscope
