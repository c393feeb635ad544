// Still split: the changes applied, the still structure rebuilt when due, the moving
// structure updated, and the moving bodies' queries of the still structure.
#include "broadphase/still_split.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace collide {

template <int D>
StillSplit<D>::StillSplit(Factory make_still, Factory make_moving)
    : still_(make_still()), moving_(make_moving()) {}

template <int D>
void StillSplit<D>::update_whole(std::span<const Aabb<D>> boxes,
                                 std::span<const std::uint8_t> is_static, PairList& out) {
    split_ = false;
    moving_->update(boxes, is_static, out);
}

template <int D>
void StillSplit<D>::apply(const BodyChanges<D>& c) {
    if (!split_ && !c.reset)
        throw std::invalid_argument(
            "body changes: the first update from changes (or the first after a whole-array "
            "update) needs a reset");
    split_ = false;  // until the changes are known to be sound
    bodies_.apply(c);
    // The same moving bodies as last frame (an awake set that did not change) keep their
    // entries: no per-body state is touched for them.
    const bool same_moving = bodies_.same_moving();
    const std::size_t slots = c.boxes.size();
    if (c.reset) {
        settled_.assign(slots, 0);
        index_.assign(slots, 0);
        side_.clear();
        still_ids_.clear();
        tombstones_ = 0;
        stale_ = true;
    }
    settled_.resize(slots, 0);
    index_.resize(slots, 0);
    // The StillSet checked the stream; here each change only moves its body between parts.
    for (const BodyId id : c.left) {
        if (settled_[id]) {
            settled_[id] = 0;
            ++tombstones_;
        } else {  // on the side: swap the last one into its place
            const BodyId last = side_.back();
            side_[index_[id]] = last;
            index_[last] = index_[id];
            side_.pop_back();
        }
    }
    for (const BodyId id : c.stilled) {
        index_[id] = static_cast<std::uint32_t>(side_.size());
        side_.push_back(id);
    }
    if (!same_moving) {
        moving_ids_.assign(c.moving.begin(), c.moving.end());
        for (std::uint32_t i = 0; i < moving_ids_.size(); ++i) index_[moving_ids_[i]] = i;
    }
    split_ = true;
}

template <int D>
bool StillSplit<D>::params_drifted() const {
    const std::span<Param> p = moving_->params();
    if (p.size() != still_params_.size()) return false;  // different algorithms (auto)
    for (std::size_t i = 0; i < p.size(); ++i)
        if (p[i].value != still_params_[i]) return true;
    return false;
}

template <int D>
bool StillSplit<D>::rebuild_due() const {
    if (stale_) return true;
    const std::size_t drift = side_.size() + tombstones_;
    const auto live = static_cast<double>(still_ids_.size() - tombstones_);
    return (drift > kRebuildAtLeast && static_cast<double>(drift) > kRebuildShare * live) ||
           params_drifted();
}

template <int D>
void StillSplit<D>::rebuild_still(std::span<const Aabb<D>> boxes) {
    // The live entries keep their order, then the side joins.
    std::size_t kept = 0;
    for (std::uint32_t i = 0; i < still_ids_.size(); ++i) {
        const BodyId id = still_ids_[i];
        if (settled_[id] && index_[id] == i) still_ids_[kept++] = id;
    }
    still_ids_.resize(kept);
    still_ids_.insert(still_ids_.end(), side_.begin(), side_.end());
    side_.clear();
    tombstones_ = 0;
    still_boxes_.resize(still_ids_.size());
    for (std::uint32_t i = 0; i < still_ids_.size(); ++i) {
        const BodyId id = still_ids_[i];
        settled_[id] = 1;
        index_[id] = i;
        still_boxes_[i] = boxes[id];
    }
    // Both structures take the same parameters, where they are the same algorithm.
    const std::span<Param> from = moving_->params(), to = still_->params();
    if (from.size() == to.size()) {
        still_params_.clear();
        for (std::size_t i = 0; i < from.size(); ++i) {
            if (std::strcmp(from[i].name, to[i].name) != 0) break;
            to[i].value = from[i].value;
            still_params_.push_back(from[i].value);
        }
    }
    neighbours_.clear();  // its entries name the old structure's
    all_still_.assign(still_ids_.size(), 1);
    still_->update(still_boxes_, all_still_, scratch_);
    if (!scratch_.empty())
        invariant_broken("still split", "the still structure reported a pair of two still bodies");
    ++rebuilds_;
    rebuilt_ = true;
    stale_ = false;
}

template <int D>
BodyId StillSplit<D>::moving_entry(std::uint32_t i) const {
    return i < moving_ids_.size() ? moving_ids_[i] : side_[i - moving_ids_.size()];
}

template <int D>
void StillSplit<D>::pair_moving(std::span<const Aabb<D>> boxes, PairList& out) {
    const std::size_t m = moving_ids_.size();
    move_boxes_.resize(m + side_.size());
    move_still_.assign(m + side_.size(), 1);
    std::fill_n(move_still_.begin(), m, std::uint8_t{0});
    for (std::size_t i = 0; i < m; ++i) move_boxes_[i] = boxes[moving_ids_[i]];
    for (std::size_t i = 0; i < side_.size(); ++i) move_boxes_[m + i] = boxes[side_[i]];
    moving_->update(move_boxes_, move_still_, scratch_);
    out.resize(scratch_.size());
    for (std::size_t i = 0; i < scratch_.size(); ++i)
        out[i] = make_pair(moving_entry(scratch_[i].a), moving_entry(scratch_[i].b));
}

template <int D>
void StillSplit<D>::pair_with_still(PairList& out) {
    if (still_ids_.size() == tombstones_) {  // nothing still to meet
        neighbours_.clear();
        return;
    }
    neighbours_.start(moving_ids_, bodies_.same_moving());
    for (std::uint32_t i = 0; i < moving_ids_.size(); ++i) {
        const BodyId body = moving_ids_[i];
        // move_boxes_ holds the moving bodies' boxes in order (pair_moving gathered them).
        neighbours_.visit(i, move_boxes_[i], *still_, still_boxes_, still_ids_,
                          [&](BodyId entry, BodyId id) {
                              if (tombstones_ == 0 || (settled_[id] && index_[id] == entry))
                                  out.push_back(make_pair(body, id));
                          });
    }
    neighbours_.finish();
}

template <int D>
void StillSplit<D>::update_changes(const BodyChanges<D>& changes, PairList& out) {
    apply(changes);
    rebuilt_ = false;
    if (rebuild_due()) rebuild_still(changes.boxes);
    pair_moving(changes.boxes, out);
    pair_with_still(out);
}

template <int D>
void StillSplit<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                           QueryTrace<D>* trace) const {
    moving_->query(region, out, trace);
    if (!split_) return;
    for (BodyId& entry : out) entry = moving_entry(entry);
    still_->query(region, hits_, trace);
    for (const BodyId entry : hits_) {
        const BodyId id = still_ids_[entry];
        if (settled_[id] && index_[id] == entry) out.push_back(id);
    }
}

template <int D>
BroadPhaseStats StillSplit<D>::stats() const {
    BroadPhaseStats s = moving_->stats();
    if (!split_) return s;
    const BroadPhaseStats still = still_->stats();
    s.candidate_tests += neighbours_.boxes_tested();
    s.structure_bytes += still.structure_bytes + neighbours_.bytes() +
                         (settled_.capacity() + move_still_.capacity() + all_still_.capacity()) +
                         (index_.capacity() + moving_ids_.capacity() + side_.capacity() +
                          still_ids_.capacity() + hits_.capacity()) *
                             4 +
                         (still_boxes_.capacity() + move_boxes_.capacity()) * sizeof(Aabb<D>) +
                         scratch_.capacity() * sizeof(Pair);
    s.nodes += still.nodes;
    s.depth = std::max(s.depth, still.depth);
    if (rebuilt_) s.reinserted += still_ids_.size();
    return s;
}

template <int D>
bool StillSplit<D>::body_costs(std::span<std::uint32_t> out) const {
    return !split_ && moving_->body_costs(out);
}

// Each settled body is the entry its index names; the side's entries name their bodies; the
// tombstones are counted; the parts agree with the still set's states.
template <int D>
void StillSplit<D>::validate() const {
    moving_->validate();
    if (!split_) return;  // the still part is unused (and may never have been built)
    still_->validate();
    neighbours_.validate();
    const auto fail = [](const std::string& what) { invariant_broken("still split", what); };
    std::size_t dead = 0;
    for (std::uint32_t i = 0; i < still_ids_.size(); ++i) {
        const BodyId id = still_ids_[i];
        if (!(settled_[id] && index_[id] == i)) ++dead;
    }
    if (dead != tombstones_)
        fail(std::to_string(dead) + " tombstones where " + std::to_string(tombstones_) +
             " were counted");
    for (std::uint32_t i = 0; i < side_.size(); ++i) {
        const BodyId id = side_[i];
        if (index_[id] != i || settled_[id] || bodies_.state(id) != StillSet::State::kStill)
            fail("body " + std::to_string(id) + " on the side is not still there");
    }
    if (side_.size() + still_ids_.size() - tombstones_ != bodies_.still())
        fail("the parts hold " + std::to_string(side_.size() + still_ids_.size() - tombstones_) +
             " still bodies where the still set has " + std::to_string(bodies_.still()));
    for (BodyId id = 0; id < settled_.size(); ++id)
        if (settled_[id] && bodies_.state(id) != StillSet::State::kStill)
            fail("body " + std::to_string(id) + " is settled but not still");
}

template class StillSplit<2>;
template class StillSplit<3>;

template <int D>
std::unique_ptr<BroadPhase<D>> make_still_split(std::unique_ptr<BroadPhase<D>> (*make_still)(),
                                                std::unique_ptr<BroadPhase<D>> (*make_moving)()) {
    return std::make_unique<StillSplit<D>>(make_still, make_moving);
}

template std::unique_ptr<BroadPhase<2>> make_still_split<2>(std::unique_ptr<BroadPhase<2>> (*)(),
                                                            std::unique_ptr<BroadPhase<2>> (*)());
template std::unique_ptr<BroadPhase<3>> make_still_split<3>(std::unique_ptr<BroadPhase<3>> (*)(),
                                                            std::unique_ptr<BroadPhase<3>> (*)());

}  // namespace collide
