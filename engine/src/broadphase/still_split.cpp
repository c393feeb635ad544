// Still split: the changes applied, the still structure rebuilt when due, the moving
// structure updated, and the moving bodies' queries of the still structure.
#include "broadphase/still_split.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace collide {

namespace {

// Whether `params` hold `values`, one for one (a structure's parameters against those it
// was last updated or built with).
bool holds(std::span<const Param> params, const std::vector<float>& values) {
    return std::equal(params.begin(), params.end(), values.begin(), values.end(),
                      [](const Param& p, float v) { return p.value == v; });
}

}  // namespace

template <int D>
StillSplit<D>::StillSplit(Factory make_still, Factory make_moving)
    : still_(make_still()), moving_(make_moving()) {}

template <int D>
void StillSplit<D>::update_whole(std::span<const Aabb<D>> boxes,
                                 std::span<const std::uint8_t> is_static, PairList& out) {
    split_ = false;
    moving_skipped_ = false;
    entries_changed_ = true;
    moving_->update(boxes, is_static, out);
}

// Only to the moving structure: the still one runs only in update_changes, which Watch mode
// does not record (there both structures number entries, not bodies).
template <int D>
bool StillSplit<D>::set_watch(WatchRecorder<D>* recorder) {
    auto* view = dynamic_cast<BroadPhaseView<D>*>(moving_.get());
    return view != nullptr && view->set_watch(recorder);
}

template <int D>
void StillSplit<D>::add_entry(BodyId id, bool still) {
    entered_[id] = 1;
    index_[id] = static_cast<std::uint32_t>(entries_.size());
    entries_.push_back(id);
    entry_still_.push_back(still ? 1 : 0);
    side_ += still;
}

template <int D>
void StillSplit<D>::remove_entry(BodyId id) {
    const std::uint32_t i = index_[id];
    side_ -= entry_still_[i];
    const BodyId last = entries_.back();
    entries_[i] = last;
    entry_still_[i] = entry_still_.back();
    index_[last] = i;
    entries_.pop_back();
    entry_still_.pop_back();
    entered_[id] = 0;
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
        entered_.assign(slots, 0);
        index_.assign(slots, 0);
        entries_.clear();
        entry_still_.clear();
        side_ = 0;
        still_ids_.clear();
        tombstones_ = 0;
        stale_ = true;
    }
    settled_.resize(slots, 0);
    entered_.resize(slots, 0);
    index_.resize(slots, 0);
    // The StillSet checked the stream; here each change only moves its body between parts.
    for (const BodyId id : c.left) {
        if (settled_[id]) {
            settled_[id] = 0;
            ++tombstones_;
        } else {
            remove_entry(id);  // on the side
        }
    }
    for (const BodyId id : c.stilled) {
        if (entered_[id]) {  // it was moving: it stays where it is, now flagged still
            entry_still_[index_[id]] = 1;
            ++side_;
        } else {
            add_entry(id, true);
        }
    }
    if (!same_moving) {
        // Moving bodies removed lose their entries; new ones (added, woken, made dynamic)
        // take new ones.
        for (std::size_t i = entries_.size(); i-- > 0;) {
            const BodyId id = entries_[i];
            if (!entry_still_[i] && bodies_.state(id) != StillSet::State::kMoving) remove_entry(id);
        }
        for (const BodyId id : c.moving)
            if (!entered_[id]) add_entry(id, false);
        moving_ids_.assign(c.moving.begin(), c.moving.end());
    }
    entries_changed_ = entries_changed_ || c.reset || !same_moving || !c.left.empty() ||
                       !c.stilled.empty();
    split_ = true;
}

template <int D>
bool StillSplit<D>::moving_idle() const {
    return !entries_changed_ && side_ == entries_.size() &&
           holds(moving_->params(), moving_params_);
}

template <int D>
bool StillSplit<D>::params_drifted() const {
    const std::span<Param> p = moving_->params();
    // Different algorithms (auto) have different parameters: none to drift.
    return p.size() == still_params_.size() && !holds(p, still_params_);
}

template <int D>
bool StillSplit<D>::rebuild_due() const {
    if (stale_) return true;
    const std::size_t drift = side_ + tombstones_;
    const auto live = static_cast<double>(still_ids_.size() - tombstones_);
    return (drift > kRebuildAtLeast && static_cast<double>(drift) > kRebuildShare * live) ||
           params_drifted();
}

template <int D>
void StillSplit<D>::rebuild_still(std::span<const Aabb<D>> boxes) {
    // The live entries keep their order, then the side joins; the moving entries close up.
    std::size_t kept = 0;
    for (std::uint32_t i = 0; i < still_ids_.size(); ++i) {
        const BodyId id = still_ids_[i];
        if (settled_[id] && index_[id] == i) still_ids_[kept++] = id;
    }
    still_ids_.resize(kept);
    std::size_t moving = 0;
    for (std::uint32_t i = 0; i < entries_.size(); ++i) {
        const BodyId id = entries_[i];
        if (entry_still_[i]) {
            entered_[id] = 0;
            still_ids_.push_back(id);
        } else {
            index_[id] = static_cast<std::uint32_t>(moving);
            entries_[moving++] = id;
        }
    }
    entries_.resize(moving);
    entry_still_.assign(moving, 0);
    side_ = 0;
    tombstones_ = 0;
    entries_changed_ = true;
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
void StillSplit<D>::pair_moving(std::span<const Aabb<D>> boxes, PairList& out) {
    moving_skipped_ = moving_idle();
    if (moving_skipped_) {
        out.clear();
        return;
    }
    entries_changed_ = false;
    moving_params_.clear();
    for (const Param& p : moving_->params()) moving_params_.push_back(p.value);
    move_boxes_.resize(entries_.size());
    for (std::size_t i = 0; i < entries_.size(); ++i) move_boxes_[i] = boxes[entries_[i]];
    moving_->update(move_boxes_, entry_still_, scratch_);
    out.resize(scratch_.size());
    for (std::size_t i = 0; i < scratch_.size(); ++i)
        out[i] = make_pair(entries_[scratch_[i].a], entries_[scratch_[i].b]);
}

template <int D>
void StillSplit<D>::pair_with_still(std::span<const Aabb<D>> boxes, PairList& out) {
    if (still_ids_.size() == tombstones_) {  // nothing still to meet
        neighbours_.clear();
        return;
    }
    neighbours_.start(moving_ids_, bodies_.same_moving());
    for (std::uint32_t i = 0; i < moving_ids_.size(); ++i) {
        const BodyId body = moving_ids_[i];
        neighbours_.visit(i, boxes[body], *still_, still_boxes_, still_ids_,
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
    pair_with_still(changes.boxes, out);
}

template <int D>
void StillSplit<D>::search(const Aabb<D>& region, std::vector<BodyId>& out,
                           QueryTrace<D>* trace) const {
    moving_->query(region, out, trace);
    if (!split_) return;
    for (BodyId& entry : out) entry = entries_[entry];
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
    if (moving_skipped_) s.candidate_tests = s.reinserted = 0;  // it did no work this frame
    const BroadPhaseStats still = still_->stats();
    s.candidate_tests += neighbours_.boxes_tested();
    s.structure_bytes += still.structure_bytes + neighbours_.bytes() +
                         (settled_.capacity() + entered_.capacity() + entry_still_.capacity() +
                          all_still_.capacity()) +
                         (index_.capacity() + moving_ids_.capacity() + entries_.capacity() +
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
    const InvariantFail fail("still split");
    std::size_t dead = 0;
    for (std::uint32_t i = 0; i < still_ids_.size(); ++i) {
        const BodyId id = still_ids_[i];
        if (!(settled_[id] && index_[id] == i)) ++dead;
    }
    if (dead != tombstones_)
        fail(std::to_string(dead) + " tombstones where " + std::to_string(tombstones_) +
             " were counted");
    std::size_t side = 0;
    for (std::uint32_t i = 0; i < entries_.size(); ++i) {
        const BodyId id = entries_[i];
        const StillSet::State want =
            entry_still_[i] ? StillSet::State::kStill : StillSet::State::kMoving;
        if (index_[id] != i || !entered_[id] || settled_[id] || bodies_.state(id) != want)
            fail("entry " + std::to_string(i) + " of the moving structure, body " +
                 std::to_string(id) + ", is not where the still set and the index say");
        side += entry_still_[i];
    }
    if (side != side_)
        fail(std::to_string(side) + " entries on the side where " + std::to_string(side_) +
             " were counted");
    if (entries_.size() - side_ != moving_ids_.size())
        fail(std::to_string(entries_.size() - side_) + " moving entries for " +
             std::to_string(moving_ids_.size()) + " moving bodies");
    if (side_ + still_ids_.size() - tombstones_ != bodies_.still())
        fail("the parts hold " + std::to_string(side_ + still_ids_.size() - tombstones_) +
             " still bodies where the still set has " + std::to_string(bodies_.still()));
    for (BodyId id = 0; id < settled_.size(); ++id)
        if ((settled_[id] && bodies_.state(id) != StillSet::State::kStill) ||
            (settled_[id] && entered_[id]))
            fail("body " + std::to_string(id) + " is settled but not still, or in both parts");
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
