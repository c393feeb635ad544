// The viewer's hooks of auto: forwarded to the algorithm it chose, with one line saying
// which and what the probes measured.
#include "broadphase/auto_select.hpp"

#include <iomanip>
#include <sstream>
#include <utility>

namespace collide {

template <int D>
void AutoSelect<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    if (algorithm_) view_of(*algorithm_).draw(draw, which);
}

template <int D>
std::string AutoSelect<D>::describe(BodyId id) const {
    return algorithm_ ? view_of(*algorithm_).describe(id) : std::string();
}

template <int D>
std::vector<std::string> AutoSelect<D>::layers() const {
    return algorithm_ ? view_of(*algorithm_).layers() : std::vector<std::string>{};
}

template <int D>
std::vector<LegendEntry> AutoSelect<D>::legend() const {
    return algorithm_ ? view_of(*algorithm_).legend() : std::vector<LegendEntry>{};
}

template <int D>
std::string AutoSelect<D>::status() const {
    if (!algorithm_) return "auto: nothing chosen before the first update";
    std::ostringstream s;
    s << std::setprecision(3);
    if (few_) {
        s << "auto chose " << name_ << " (n = " << n_;
        return s.str() + ", a handful of bodies: brute force, not measured)";
    }
    if (!racers_.empty()) {
        s << "auto is racing its " << racers_.size() << " candidates (n = " << n_ << ")";
        return s.str();
    }
    s << "auto chose " << candidates_[current_] << " (n = " << n_ << ", " << recent_ms()
      << " ms per update lately); measured";
    const char* sep = " ";
    for (std::size_t c = 0; c < candidates_.size(); ++c)
        if (measured_ms_[c] > 0)
            s << std::exchange(sep, ", ") << candidates_[c] << " " << measured_ms_[c] << " ms";
    const int races = probes_ - turns_;
    s << "; " << races << (races == 1 ? " race, " : " races, ") << turns_
      << (turns_ == 1 ? " turn" : " turns");
    if (challenger_ != kNone)
        s << ", " << name_ << "'s turn";
    else if (candidates_.size() > 1)
        s << ", next turn in at most " << until_probe_ << " updates";
    return s.str();
}

// The members defined here; the class itself is instantiated in auto_select.cpp.
template void AutoSelect<2>::draw(DebugDraw<2>&, const Overlays<2>&) const;
template std::string AutoSelect<2>::describe(BodyId) const;
template std::vector<std::string> AutoSelect<2>::layers() const;
template std::string AutoSelect<2>::status() const;
template std::vector<LegendEntry> AutoSelect<2>::legend() const;
template void AutoSelect<3>::draw(DebugDraw<3>&, const Overlays<3>&) const;
template std::string AutoSelect<3>::describe(BodyId) const;
template std::vector<std::string> AutoSelect<3>::layers() const;
template std::string AutoSelect<3>::status() const;
template std::vector<LegendEntry> AutoSelect<3>::legend() const;

}  // namespace collide
