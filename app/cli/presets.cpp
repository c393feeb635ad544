#include "cli/presets.hpp"

#include <algorithm>

namespace collidoscope {
namespace {

// Counts, seeds, selections and framings were chosen by looking at each picture at 1280x720:
// few enough bodies that the structure reads, enough that the idea shows.
constexpr Preset kPresets[] = {
    {"welcome", "A broad phase at work",
     "A broad phase finds the pairs of bodies whose boxes overlap, so that the exact test "
     "runs on a few pairs instead of all n(n-1)/2. Here a quadtree does it: the coloured "
     "squares are its nodes, each number the bodies a node holds, and white lines join the "
     "pairs it found. The ringed body is selected: its node is outlined, and the panel at "
     "the bottom right lists its partners whenever it has some. Click Next for the tour, pick "
     "another algorithm "
     "below, or click a body.",
     "--dim 2 --scene uniform --count 600 --seed 3 --broadphase quadtree "
     "--overlay structure,pairs --select 42"},
    {"quadtree-centerline", "The quadtree's centre-line failure",
     "A quadtree keeps each body in the smallest node that holds it whole, so a body on a "
     "split line stays in the node above. This scene puts most bodies on the centre lines: "
     "they all pile up in the root and its children, and every one of them is tested "
     "against all the others there. The label of a node is how many bodies it holds: see "
     "the centre (the view is zoomed on it; C shows the whole world), and Candidate tests "
     "in the Stats panel (scroll it). The world starts paused with every body on the lines: "
     "P runs it, and the gas drifts off them within seconds (R puts it back). The next stop "
     "runs the enneatree on the same scene.",
     "--dim 2 --scene centerline --count 1500 --seed 1 --broadphase quadtree "
     "--overlay structure --select 0 --camera 28,28,66,66 --paused"},
    {"enneatree-centerline", "The enneatree on the same scene",
     "The enneatree splits each axis into three overlapping halves (left, centre, right), "
     "so a node has 9 children in 2D. A small body on a centre line fits the middle child "
     "and goes down to a node of its own size instead of sticking at the root: the centre "
     "lines are covered by small regions, and no node collects hundreds of bodies. Compare "
     "Candidate tests in the Stats panel with the previous stop: under a thousand against "
     "700,000. Run it (P): the gas drifts off the lines, the quadtree's count falls to tens "
     "of thousands, and at 1,500 bodies it ends up the faster (a crowded root is quick to "
     "sweep); with 20,000 on the lines it takes 23-42 ms a frame to the enneatree's 4-6 "
     "(the bench, one thread).",
     "--dim 2 --scene centerline --count 1500 --seed 1 --broadphase enneatree "
     "--overlay structure --select 0 --camera 28,28,66,66 --paused"},
    {"watch-quadtree-centerline", "Watch the quadtree keep a centre-line body at the root",
     "Watch mode (W) on the quadtree's build, at the moment body #1 (ringed, on the "
     "horizontal centre line) is placed. The whole root is lit: the body touches the root's "
     "centre line, so no child holds it whole and it stays at the top with 85 others, where "
     "find pairs will test it against all of them. Step back (Left) to see the root entered "
     "just before; Right goes on, Space plays. Next event of #1 jumps to its tests. The next "
     "stop places the same body in the enneatree.",
     "--dim 2 --scene centerline --count 120 --seed 1 --broadphase quadtree "
     "--overlay structure --select 1 --watch --watch-event selected"},
    {"watch-enneatree-centerline", "Watch the enneatree place the same body",
     "The same scene and body in the enneatree. Placing #1 goes down from the root through "
     "the overlapping halves: on each axis the left, centre or right half that holds it, "
     "centre first, to the depth its size asks for. The green boxes are the nodes it entered "
     "on the way (grey: other bodies' descents before it); the lit one, a small node on "
     "the centre line, keeps it. Left steps back through its descent. Next event of #1 jumps to "
     "its few tests.",
     "--dim 2 --scene centerline --count 120 --seed 1 --broadphase enneatree "
     "--overlay aabbs --select 1 --watch --watch-event selected"},
    {"compare-centerline", "Quadtree and enneatree side by side, coloured by cost",
     "The compare view runs two algorithms on the same frame's boxes, one pane each, with one "
     "camera. Bodies are coloured by the work each algorithm spent on them: the candidate "
     "tests they took part in, on one scale for both panes. The quadtree's centre-line "
     "bodies glow at hundreds of tests each, because they all sit in the root and are tested "
     "against each other, while the enneatree's busiest body takes a handful. The stats line "
     "at the top of each pane gives the totals; its time includes counting the costs, which "
     "weighs on each algorithm differently, so compare the tests here, not the "
     "milliseconds. P runs it: watch the glow fade as the bodies leave the lines.",
     "--dim 2 --scene centerline --count 1500 --seed 1 --broadphase quadtree "
     "--compare quadtree,enneatree --color cost --overlay structure --camera 28,28,66,66 "
     "--paused"},
    {"morton-cells", "Morton cells and the Z-order curve",
     "Each body is covered by up to four power-of-two cells, and every cell is named by its "
     "Morton code: the bits of x and y interleaved. Sorting the codes puts the cells on the "
     "Z-order curve, the path drawn through their centres from blue through green and yellow to red: it finishes "
     "one quarter of the world before it enters the next, so cells near in the sort are near "
     "in space, and nested cells follow their parent. One sweep over the sorted cells then "
     "finds the pairs.",
     "--dim 2 --scene powerlaw --count 200 --seed 2 --broadphase morton-cells "
     "--overlay structure --select 7"},
    {"watch-zorder-bigmin", "Watch the Z-order sweep jump with BIGMIN",
     "Watch mode on the Z-order sweep. Boxes are sorted by the Morton code of their min "
     "corner; each scan walks forward from its box (white) until the codes pass its max "
     "corner's. The cyan box is where it looks: its own box stretched down by the largest "
     "box. When a run of codes falls outside it, the scan does not step through them: it "
     "computes BIGMIN, the next code inside, and jumps there (the green arrow, and the "
     "number of entries skipped). Right steps on to the tests after the jump, Left goes back.",
     "--dim 2 --scene clusters --count 80 --seed 3 --broadphase zorder-sweep "
     "--overlay structure --watch --watch-event jump"},
    {"loose-tree", "The loose tree",
     "A loose tree picks a body's depth from its size and its node from its centre alone; "
     "the node's loose box, twice its side, always holds the body. So no body sticks at a "
     "split line, and moving a body rarely changes its node. The price: loose boxes overlap "
     "their neighbours, so a search for pairs must look into the neighbouring nodes too.",
     "--dim 2 --scene powerlaw --count 500 --seed 4 --broadphase loose-tree "
     "--overlay structure --select 12"},
    {"hierarchical-hash-powerlaw", "Hierarchical hash levels on sizes that span 1000x",
     "On this scene the largest body is a thousand times the smallest: no single grid fits "
     "them all. The hierarchical hash keeps one hashed grid per size, each cell twice the "
     "side of the one below, and puts each body in the level that fits it. Each level has "
     "its colour: the small bodies fill the fine grids, the few big ones sit alone in "
     "coarse cells. Pairs are found within a level and against the coarser ones.",
     "--dim 2 --scene powerlaw --count 1500 --seed 1 --broadphase hierarchical-hash "
     "--overlay structure --select 5"},
    {"spatial-hash", "The spatial hash: occupied cells and fat boxes",
     "One uniform grid, hashed into a table, the cell side chosen from the bodies' sizes. "
     "Each occupied cell is tinted by how many bodies it holds: the clusters light up. "
     "Bodies are filed by a fat box (cyan) a little larger than their own, re-filed only when "
     "they leave it, so most frames touch few cells. Cells here are the table's: they cover "
     "only where there are bodies.",
     "--dim 2 --scene clusters --count 1500 --seed 1 --broadphase spatial-hash "
     "--overlay structure --select 10"},
    {"radix-chunks", "Radix chunks: cut by rank, not by space",
     "The bodies' bounds are radix-sorted and cut into chunks of about k bodies each by "
     "rank (quantiles), one axis per level: so each chunk holds the same number of bodies "
     "however dense or empty its part of the world is. The yellow lines bound the slabs, the "
     "blue ones are the cuts inside them, and the selected body's chunk is pink. A sweep inside "
     "each chunk finds the pairs; bodies "
     "that cross a cut are split into pieces.",
     "--dim 2 --scene clusters --count 2000 --seed 3 --broadphase radix-chunks "
     "--overlay structure --select 11"},
    {"sort-and-sweep", "Sort and sweep: intervals on one axis",
     "Project every box on the axis of greatest spread; the strip under the world shows "
     "the intervals, sorted by their start and coloured by rank. A sweep along the axis "
     "keeps the intervals that are still open: only those can overlap the next one. The "
     "magenta band is the selected body's interval: every interval that starts inside it is "
     "tested against it. The "
     "order changes little from frame to frame, so an insertion sort re-sorts it almost for "
     "free.",
     "--dim 2 --scene uniform --count 200 --seed 5 --broadphase sort-and-sweep "
     "--overlay structure,pairs --select 9"},
    {"watch-sweep", "Watch sort and sweep test one pair at a time",
     "Watch mode (W) plays one update of the algorithm event by event, its pseudocode on the "
     "right with the line being run lit. Here sort and sweep on 40 bodies: the white line is "
     "the cursor, at the start of the current box (outlined white). Each later box that "
     "starts before the current one ends is tested: green for a hit, red for a miss; a hit is "
     "reported as a pair (a white line). Right steps, Left steps back, Space plays at the "
     "slider's speed, the scrubber goes anywhere. Tick Ask me to guess each test first.",
     "--dim 2 --scene uniform --count 40 --seed 5 --broadphase sort-and-sweep "
     "--overlay structure --watch --watch-event 25"},
    {"dynamic-tree", "The dynamic AABB tree's fat boxes",
     "The tree Box2D and Bullet use: every leaf holds a body's box fattened by a margin, "
     "and inner nodes bound their children (coloured by depth, leaves orange). A body that moves "
     "inside its "
     "fat box costs nothing; only a body that leaves it is removed and re-inserted. The "
     "selected body's fat box is white and its ancestors up to the root magenta: a search "
     "for its partners passes through each of them.",
     "--dim 2 --scene uniform --count 300 --seed 6 --broadphase dynamic-aabb-tree "
     "--overlay structure --select 21"},
    {"swept-bullets", "Swept boxes stop bullets",
     "A few small fast bodies (bullets) fly among big slow ones. Without care a bullet can "
     "jump over a body between two steps. With swept boxes each body's box covers its whole "
     "move over the step, so the broad phase sees the crossing, and a time-of-impact test "
     "stops the bullet at its first touch; the ringed bullet's next impact is written beside "
     "it. Count tunnelling (left panel) stays at 0: untick Swept boxes and it climbs.",
     "--dim 2 --scene bullets --count 1000 --seed 1 --broadphase sort-and-sweep --swept "
     "--overlay aabbs,pairs --select 0"},
    {"implicit-blobs", "Implicit blobs in contact",
     "Some bodies here are metaball blobs: their surface is where a density field crosses a "
     "threshold, not a circle. The broad phase still sees only boxes, so its pairs (white "
     "lines) are the same as for circles. For each pair the narrow phase tests one surface "
     "against the other's field. A blob in contact shows its signature, the blue grid of "
     "cells that may hold a point of it: a sample point outside those cells is outside the "
     "blob without evaluating the field, so most tests are skipped.",
     "--dim 2 --scene blobs --count 120 --seed 2 --broadphase dynamic-aabb-tree "
     "--overlay implicit,pairs"},
    {"octree-3d", "3D: the octree's centre planes",
     "The quadtree's failure in 3D: bodies on the three centre planes cannot go below the "
     "node whose split plane they cross, so the root and its children hold most of them. "
     "Each number is how many bodies a node holds; the one at the centre is the root's. See "
     "Candidate tests in the Stats panel (scroll it): "
     "all the bodies of a crowded node are tested against each other. It starts paused, "
     "as the planes' gas drifts off them once run (P). Drag with the right button to turn "
     "the view.",
     "--dim 3 --scene centerline --count 800 --seed 1 --broadphase octree "
     "--overlay structure --select 0 --paused"},
    {"a-level", "A level: the cost follows what moves",
     "Games' worlds are mostly still. Nine bodies in ten here are static tiles, drawn grey: "
     "the ground, two walls and three platforms. The rest pour in from above and pile up. "
     "The broad phase keeps the still bodies in a structure of their own and spends each "
     "step on the moving ones. As a pile settles, its island falls asleep (drawn dimmed), and "
     "the Stats panel shows the step's time falling with the moving bodies, the contacts' "
     "resolve most of all. Drag a sleeping body to wake its island; untick Sleep (Scene "
     "section) to keep every body awake and see the time stay up.",
     "--dim 2 --scene level --count 8000 --seed 1 --broadphase auto --overlay structure"},
    {"a-million", "A million bodies, on the GPU where there is one",
     "A million circles. On a GPU they are stepped where they are drawn: the bodies live in "
     "its buffers, every step integrates them, builds the levelled grid, sorts the pairs, and "
     "tests and resolves the contacts in compute shaders, and the renderer draws from the "
     "same buffers, so only the panels' few figures come back. The Stats panel gives the "
     "GPU's own time for the step; untick GPU world (Scene section) to compare it with the "
     "CPU's. Without a GPU the CPU world runs the million on every core, and the GPU world "
     "box stays off and says why: OpenGL there renders in software, seconds a step.",
     "--dim 2 --scene uniform --count 1000000 --seed 1 --broadphase sorted-grid "
     "--overlay structure --world auto"},
};

}  // namespace

std::span<const Preset> presets() {
    return kPresets;
}

const Preset* find_preset(std::string_view name) {
    const auto it = std::find_if(std::begin(kPresets), std::end(kPresets),
                                 [&](const Preset& p) { return p.name == name; });
    return it == std::end(kPresets) ? nullptr : &*it;
}

}  // namespace collidoscope
