// The sorted grid's level policy (sorted_grid_policy.cpp): which level each body takes, how
// coarse each level's grid is and which levels scan which. Its bounds on a grid's size are
// here because validate() checks them.
#pragma once

#include <cstddef>

namespace collide::sorted_grid {

// A level's grid has at most this many cells per body (and at least kMinCells): cells grow
// when the bodies spread far, so memory and the count pass stay linear in n.
inline constexpr double kCellsPerBody = 4.0;
inline constexpr double kMinCells = 64.0;

}  // namespace collide::sorted_grid
