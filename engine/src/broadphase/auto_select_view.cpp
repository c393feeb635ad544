// The viewer's hooks of auto: forwarded to the algorithm it chose, with one line saying which.
#include "broadphase/auto_select.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace collide {

template <int D>
void AutoSelect<D>::draw(DebugDraw<D>& draw, const Overlays<D>& which) const {
    if (algorithm_) algorithm_->draw(draw, which);
}

template <int D>
std::string AutoSelect<D>::describe(BodyId id) const {
    return algorithm_ ? algorithm_->describe(id) : std::string();
}

template <int D>
std::vector<std::string> AutoSelect<D>::layers() const {
    return algorithm_ ? algorithm_->layers() : std::vector<std::string>{};
}

template <int D>
std::vector<LegendEntry> AutoSelect<D>::legend() const {
    return algorithm_ ? algorithm_->legend() : std::vector<LegendEntry>{};
}

template <int D>
std::string AutoSelect<D>::status() const {
    if (!algorithm_) return "auto: nothing chosen before the first update";
    char text[200];
    std::snprintf(text, sizeof text,
                  "auto chose %.*s (n = %zu, moving %.3g median sizes per update, largest/median "
                  "size %.3g)%s",
                  static_cast<int>(current_.size()), current_.data(), n_, motion_, spread_,
                  wanted_ != current_ ? ", about to switch" : "");
    return text;
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
