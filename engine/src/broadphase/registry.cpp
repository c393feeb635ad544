// The one table of broad phases. Add an algorithm here and the app, the bench and the
// equivalence tests all pick it up.
#include "collide/registry.hpp"

#include <array>

#include "broadphase/auto_select.hpp"
#include "broadphase/brute_force.hpp"
#include "broadphase/centred_interval_tree.hpp"
#include "broadphase/dynamic_aabb_tree.hpp"
#include "broadphase/enneatree.hpp"
#include "broadphase/hierarchical_hash.hpp"
#include "broadphase/loose_tree.hpp"
#include "broadphase/morton_cells.hpp"
#include "broadphase/quadtree.hpp"
#include "broadphase/radix_chunks.hpp"
#include "broadphase/sort_and_sweep.hpp"
#include "broadphase/sorted_grid.hpp"
#include "broadphase/spatial_hash.hpp"
#include "broadphase/zorder_sweep.hpp"

namespace collide {

namespace {

// auto builds its candidates with the registry's own factory (each without its still split:
// auto's split races them on the moving bodies alone).
template <int D>
std::unique_ptr<BroadPhase<D>> make_auto() {
    return std::make_unique<AutoSelect<D>>(&make_unsplit_broadphase<D>);
}

template <template <int> class Algorithm>
constexpr BroadPhaseEntry row(std::string_view name, std::string_view description) {
    return {
        name, description, true, true, &make_instance<Algorithm, 2>, &make_instance<Algorithm, 3>};
}

// A row with a still split: its still bodies in an instance of their own (still_split.hpp).
template <template <int> class Algorithm>
constexpr BroadPhaseEntry split_row(std::string_view name, std::string_view description) {
    BroadPhaseEntry e = row<Algorithm>(name, description);
    e.still_2d = e.make_2d;
    e.still_3d = e.make_3d;
    return e;
}

// An algorithm whose name belongs to one dimension (quadtree in 2D, octree in 3D), with the
// row that does its job in the other.
template <template <int> class Algorithm, int D>
constexpr BroadPhaseEntry row_in(std::string_view name, std::string_view in_other_dim,
                                 std::string_view description) {
    BroadPhaseEntry e = D == 2 ? BroadPhaseEntry{name, description, true, false,
                                                 &make_instance<Algorithm, 2>, nullptr}
                               : BroadPhaseEntry{name, description, false, true, nullptr,
                                                 &make_instance<Algorithm, 3>};
    e.in_other_dim = in_other_dim;
    return e;
}

constexpr std::array kBroadPhases = {
    row<BruteForce>("brute-force", "Brute force: every pair tested (the reference)"),
    row<SortAndSweep>("sort-and-sweep",
                      "Sort and sweep on the axis of greatest spread, insertion re-sort"),
    split_row<ZOrderSweep>(
        "zorder-sweep",
        "Boxes sorted by the Morton code of their min corner; each scan stops at "
        "the code of its max corner"),
    row<NormSweep>("norm-sweep", "Like zorder-sweep, keyed by the squared norm of the min corner"),
    row<MortonCells>("morton-cells",
                     "Each box as up to 2^D power-of-two cells sorted by Morton code; nested "
                     "cells found by a sweep"),
    row_in<RegionTree, 2>("quadtree", "octree",
                          "Quadtree: each body in the smallest node holding it whole; bodies "
                          "on a split line stay at the parent (fails on centre lines)"),
    row_in<RegionTree, 3>("octree", "quadtree",
                          "Octree: each body in the smallest node holding it whole; bodies "
                          "on a split plane stay at the parent (fails on centre planes)"),
    row<LooseTree>("loose-tree",
                   "Loose quadtree/octree: depth by body size, node by centre, loose boxes "
                   "twice the node side; pairs by a pruned descent"),
    row<FlatEnneatree>("enneatree",
                       "Tree of overlapping halves (3 per axis: 9 children in 2D, 27 in 3D); depth "
                       "from size, pairs by walking up and back down"),
    row<AlternatingEnneatree>("enneatree-alt",
                              "Enneatree as its author built it: 3-way nodes, each splitting "
                              "one axis into overlapping halves, axes alternating by depth"),
    row<CentredIntervalTree>("centred-interval-tree",
                             "Centred interval tree rebuilt each frame: a node holds the bodies "
                             "containing its centre (median midpoint on the axis of greatest "
                             "spread), sorted by both ends; the rest go left or right"),
    split_row<DynamicAabbTree>(
        "dynamic-aabb-tree",
        "Incremental SAH tree of fattened boxes (as in Box2D, Bullet); moved "
        "bodies re-inserted and re-queried, fat pairs kept between frames"),
    split_row<SpatialHash>("spatial-hash",
                           "Uniform grid hashed into a table sized from n; bodies bucketed by fat "
                           "boxes, re-bucketed when they leave them; cell size from the extents"),
    split_row<HierarchicalHash>(
        "hierarchical-hash",
        "Hashed grids of doubling cell size (a mipmap); each body in the level "
        "that fits its size, pairs within a level and against coarser levels"),
    row<RadixChunks>("radix-chunks",
                     "Radix-sorted bounds cut into chunks of about k entities by rank "
                     "quantiles, one axis per level; big boxes split; a sweep in each chunk"),
    split_row<SortedGrid>("sorted-grid",
                          "Dense grids per size level, bodies counting-sorted by the cell of their "
                          "lower corner (last frame's order in); forward neighbour runs"),
    BroadPhaseEntry{"auto",
                    "Times dynamic-aabb-tree, sorted-grid, radix-chunks and zorder-sweep on the "
                    "live boxes (a race, then one at a time in turns) and runs the fastest "
                    "(brute force for a handful)",
                    true, true, &make_auto<2>, &make_auto<3>,
                    // Its still bodies in the sorted grid: the fastest still structure
                    // measured under it (docs/algorithms/still-split.md).
                    &make_instance<SortedGrid, 2>, &make_instance<SortedGrid, 3>},
};

}  // namespace

std::span<const BroadPhaseEntry> broadphases() {
    return kBroadPhases;
}

const BroadPhaseEntry* find_entry(std::span<const BroadPhaseEntry> table, std::string_view name) {
    for (const BroadPhaseEntry& e : table) {
        if (e.name == name) return &e;
    }
    return nullptr;
}

const BroadPhaseEntry* find_broadphase(std::string_view name) {
    return find_entry(kBroadPhases, name);
}

template <int D>
std::unique_ptr<BroadPhase<D>> make_broadphase(std::string_view name) {
    return make_from<D>(find_broadphase(name));
}

template <int D>
std::unique_ptr<BroadPhase<D>> make_unsplit_broadphase(std::string_view name) {
    const BroadPhaseEntry* e = find_broadphase(name);
    return e != nullptr ? e->make_unsplit<D>() : nullptr;
}

template std::unique_ptr<BroadPhase<2>> make_broadphase<2>(std::string_view);
template std::unique_ptr<BroadPhase<3>> make_broadphase<3>(std::string_view);
template std::unique_ptr<BroadPhase<2>> make_unsplit_broadphase<2>(std::string_view);
template std::unique_ptr<BroadPhase<3>> make_unsplit_broadphase<3>(std::string_view);

}  // namespace collide
