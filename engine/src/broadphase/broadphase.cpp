// The whole-array path of update_changes, for every algorithm without a still structure of
// its own: the changes kept in a StillSet, then update() on every slot (still bodies as
// static) or, when some slots are absent, on the present bodies compacted.
#include "collide/broadphase.hpp"

namespace collide {

template <int D>
void BroadPhase<D>::update_changes(const BodyChanges<D>& changes, PairList& out) {
    ChangesAsWholeArray<D>& w = whole_;
    w.still.apply(changes);
    w.compacted = w.still.present() != changes.boxes.size();
    if (!w.compacted) {
        update_whole(changes.boxes, w.still.still_flags(), out);
        return;
    }
    w.boxes.clear();
    w.is_still.clear();
    w.ids.clear();
    for (BodyId id = 0; id < changes.boxes.size(); ++id) {
        const StillSet::State s = w.still.state(id);
        if (s == StillSet::State::kAbsent) continue;
        w.ids.push_back(id);
        w.boxes.push_back(changes.boxes[id]);
        w.is_still.push_back(s == StillSet::State::kStill);
    }
    update_whole(w.boxes, w.is_still, w.pairs);
    // Compact order is slot order, so a < b maps to ids[a] < ids[b].
    out.resize(w.pairs.size());
    for (std::size_t i = 0; i < w.pairs.size(); ++i)
        out[i] = {w.ids[w.pairs[i].a], w.ids[w.pairs[i].b]};
}

template void BroadPhase<2>::update_changes(const BodyChanges<2>&, PairList&);
template void BroadPhase<3>::update_changes(const BodyChanges<3>&, PairList&);

}  // namespace collide
