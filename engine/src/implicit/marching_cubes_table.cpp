// The marching cubes table, evaluated at compile time (see the header for the construction).
#include "implicit/marching_cubes_table.hpp"

namespace collide::mc {
namespace {

constexpr Table kTable = make_table();

// Spot checks of the construction against the cases everyone knows.
static_assert(kTable[0].triangle_count == 0 && kTable[255].triangle_count == 0);
static_assert(kTable[1].triangle_count == 1 && kTable[254].triangle_count == 1);
static_assert(kTable[0x0F].triangle_count == 2);  // a face's four corners: one quad
static_assert(kTable[0x03].triangle_count == 2);  // one edge's two corners: one quad
static_assert(kTable[0x69].triangle_count == 4);  // the checkerboard: four corner triangles

}  // namespace

const Table& table() {
    return kTable;
}

}  // namespace collide::mc
