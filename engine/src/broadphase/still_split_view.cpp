// The viewer's hooks of the still split: both structures drawn (the still one first, under
// the moving one), a body described by the structure that holds it, one line on the split.
#include <sstream>

#include "broadphase/still_split.hpp"

namespace collide {

template <int D>
void StillSplit<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    if (!split_) {
        view_of(*moving_).draw(draw, which);
        return;
    }
    const BodyId selected = which.selected;
    Overlays<D> still = which;
    still.query = nullptr;
    still.selected = settled(selected) ? index_[selected] : kNoBody;
    const typename DebugDraw<D>::Mark before_still = draw.mark();
    view_of(*still_).draw(draw, still);
    draw.recolor_since(before_still, kStillColor);
    Overlays<D> moving = which;
    const StillSet::State s = bodies_.state(selected);
    moving.selected = kNoBody;
    if (s != StillSet::State::kAbsent && !settled(selected)) moving.selected = index_[selected];
    view_of(*moving_).draw(draw, moving);
}

template <int D>
std::string StillSplit<D>::describe(BodyId id) const {
    if (!split_) return view_of(*moving_).describe(id);
    std::ostringstream s;
    switch (bodies_.state(id)) {
        case StillSet::State::kAbsent: return "absent: removed, or never added";
        case StillSet::State::kMoving:
            s << "moving: entry " << index_[id] << " of the moving structure\n"
              << view_of(*moving_).describe(index_[id]);
            break;
        case StillSet::State::kStill:
            if (settled(id)) {
                s << "still: entry " << index_[id] << " of the still structure\n"
                  << view_of(*still_).describe(index_[id]);
            } else {
                s << "still, held by the moving structure (entry " << index_[id]
                  << ") until the still one is rebuilt\n"
                  << view_of(*moving_).describe(index_[id]);
            }
            break;
    }
    return s.str();
}

template <int D>
std::vector<LegendEntry> StillSplit<D>::legend() const {
    std::vector<LegendEntry> out;
    if (split_)
        out.push_back({kStillColor,
                       "still structure: the static and sleeping bodies, drawn in this colour "
                       "(the rest is the moving one)"});
    for (LegendEntry& e : view_of(*moving_).legend()) out.push_back(std::move(e));
    return out;
}

template <int D>
std::string StillSplit<D>::status() const {
    if (!split_) return view_of(*moving_).status();
    std::ostringstream s;
    s << "still split: " << still_ids_.size() - tombstones_ << " still bodies in a structure built "
      << rebuilds_ << (rebuilds_ == 1 ? " time" : " times") << " (" << tombstones_
      << " left since), " << side_ << " still on the moving side, " << moving_ids_.size()
      << " moving, " << neighbours_.queries() << " of them out of their fat boxes (queried)";
    const std::string inner = view_of(*moving_).status();
    if (!inner.empty()) s << "; " << inner;
    return s.str();
}

// The members defined here; the class itself is instantiated in still_split.cpp.
template void StillSplit<2>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string StillSplit<2>::describe(BodyId) const;
template std::string StillSplit<2>::status() const;
template std::vector<LegendEntry> StillSplit<2>::legend() const;
template void StillSplit<3>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template std::string StillSplit<3>::describe(BodyId) const;
template std::string StillSplit<3>::status() const;
template std::vector<LegendEntry> StillSplit<3>::legend() const;

}  // namespace collide
