// How an ODE program drives a space, and what this peer keeps of it:
// - every body is a geom in one space, made with dCreateBox: with the identity rotation
//   ODE computes a box's AABB as position -/+ half its lengths, which for our float boxes
//   is exact in ODE's doubles, so ODE's own AABB test sees exactly our boxes. 2D bodies
//   are boxes standing on the z = 0 plane (see lengths());
// - static bodies are geoms whose collide bits leave out the static category: ODE's own
//   filter (collideAABBs checks category against collide bits) then drops every
//   static-static pair before the callback, as an ODE program keeps its level geometry
//   from colliding with itself;
// - each frame dGeomSetPosition for every geom whose box moved (what the world step does
//   to a body's geoms: the geom is marked dirty), then dSpaceCollide with a near callback:
//   the space recomputes the dirty AABBs, finds its candidates, tests their AABBs and bits
//   and calls back; the callback applies our closed-interval test to the float boxes and
//   records the pair with a < b (where an ODE program would call dCollide).
// Settings, all fixed when the space is built (first frame, or when the bodies change):
// - hash: levels from the smallest to the largest box (dHashSpaceSetLevels), so no box
//   is clamped to a coarser level and none lands in ODE's all-pairs "big boxes" list.
//   ODE's hash space clears and fills an n x n bit matrix of tested pairs in every
//   collide (0.16.2 still does), so the peer refuses bodies past 2^31 bytes of it;
// - quadtree: the root block spans the bounds of the first frame's boxes; depth (the
//   "depth" parameter; 0, the default, chooses) as deep as leaves hold about one body each
//   and stay at least four median box sides wide;
// - sweep and prune: dSAP_AXES_XYZ (sort on x, prune on y and z).
// Geoms get their AABB before dSpaceAdd, so the quadtree files each in its block at once
// (added dirty, all would start in the root block, whose list is scanned per removal).
// Fed changes (update_changes), it does what an ODE program does as objects come and go:
// dGeomDestroy for a body that leaves (the space drops it), a new box geom with the bits of
// its state for one that arrives, and dGeomSetPosition for the moving bodies alone.
#include "ode_space.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <ode/ode.h>

#include "peer_changes.hpp"
#include "peer_scale.hpp"
#include "tooling/input_error.hpp"

namespace collide::bench {

namespace {

constexpr unsigned long kMovingCategory = 1;
constexpr unsigned long kStaticCategory = 2;
constexpr int kMaxQuadTreeDepth = 10;  // 4^10 leaf blocks
constexpr double kMaxTestedBytes = 2147483648.0;

// dInitODE2 and dCloseODE are counted by ODE, so each peer holds one reference.
struct OdeLibrary {
    OdeLibrary() { dInitODE2(0); }
    ~OdeLibrary() { dCloseODE(); }
    OdeLibrary(const OdeLibrary&) = delete;
    OdeLibrary& operator=(const OdeLibrary&) = delete;
};

struct SpaceDeleter {
    void operator()(dxSpace* s) const { dSpaceDestroy(s); }  // and its geoms (cleanup on)
};

constexpr const char* kName[] = {"peer:ode-hash", "peer:ode-quadtree", "peer:ode-sap"};

// ODE skips geoms with a zero length (GEOM_ZERO_SIZED): such sides get the smallest
// normal double instead, which leaves their AABB our box, to rounding, or a hair larger.
double length(float side) {
    return side > 0 ? double(side) : std::numeric_limits<double>::min();
}

// A 2D body is a box on the z = 0 plane, z in [0, its width]: every box's z interval holds
// 0, so the 3D test is the 2D one, and the box spans one hash cell in z.
template <int D>
std::array<double, 3> lengths(const Aabb<D>& b) {
    const Vec<D> s = b.size();
    const float z = D == 3 ? s[D - 1] : std::max(s[0], s[1]);
    return {length(s[0]), length(s[1]), length(z)};
}

template <int D>
void place(dGeomID g, const Aabb<D>& b, double z_length) {
    const double z = D == 3 ? 0.5 * (double(b.lo[D - 1]) + double(b.hi[D - 1])) : 0.5 * z_length;
    dGeomSetPosition(g, 0.5 * (double(b.lo[0]) + double(b.hi[0])),
                     0.5 * (double(b.lo[1]) + double(b.hi[1])), z);
}

template <int D>
dGeomID make_box(const Aabb<D>& b) {
    const auto l = lengths<D>(b);
    dGeomID g = dCreateBox(nullptr, l[0], l[1], l[2]);
    place<D>(g, b, l[2]);
    return g;
}

BodyId id_of(dGeomID g) {
    return static_cast<BodyId>(reinterpret_cast<std::uintptr_t>(dGeomGetData(g)));
}

template <OdeSpace S, int D>
class OdePeer final : public BroadPhase<D> {
public:
    void update_whole(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                      PairList& out) override;
    void update_changes(const BodyChanges<D>& changes, PairList& out) override;
    void search(const Aabb<D>& region, std::vector<BodyId>& out,
                QueryTrace<D>* trace = nullptr) const override;
    BroadPhaseStats stats() const override { return stats_; }
    std::span<Param> params() override {
        if constexpr (S == OdeSpace::kQuadTree) return params_;
        return {};
    }

private:
    int depth_param() const { return params_[Setting::kDepth].as_whole(); }
    static void near_callback(void* data, dGeomID g1, dGeomID g2);
    dSpaceID make_space(std::span<const Aabb<D>> boxes);
    // Every body anew; fed changes, only the present ones (`changes`).
    void rebuild(std::span<const Aabb<D>> boxes, std::span<const std::uint8_t> is_static,
                 const PeerChanges* changes = nullptr);
    void add_geom(BodyId id, const Aabb<D>& box);
    // Moves body id's geom to `box`; true if it moved.
    bool move_geom(BodyId id, const Aabb<D>& box);
    // dSpaceCollide, the pairs into `out`.
    void collide(PairList& out);

    OdeLibrary library_;  // first member: outlives the space
    std::unique_ptr<dxSpace, SpaceDeleter> space_;
    std::vector<dGeomID> geoms_;  // per body; owned by the space
    std::vector<Aabb<D>> boxes_;  // as of the last update
    std::vector<std::uint8_t> static_;
    std::vector<float> scratch_;
    PairList* out_ = nullptr;
    std::uint64_t candidates_ = 0;
    int built_depth_ = -1;
    PeerChanges changes_;     // fed changes: who is present, moving or still
    std::size_t absent_ = 0;  // bodies with no geom: fed changes only
    BroadPhaseStats stats_;
    // The places of the parameters in params_, in its order; kCount is how many.
    enum Setting : std::uint8_t { kDepth, kCount };
    std::array<Param, Setting::kCount> params_ = {{
        Param::whole("depth", 0, 0, kMaxQuadTreeDepth),
    }};  // 0: automatic
};

template <OdeSpace S, int D>
dSpaceID OdePeer<S, D>::make_space(std::span<const Aabb<D>> boxes) {
    if constexpr (S == OdeSpace::kSap) {
        return dSweepAndPruneSpaceCreate(nullptr, dSAP_AXES_XYZ);
    } else if constexpr (S == OdeSpace::kHash) {
        const double n = double(boxes.size());
        if (n * n / 8 > kMaxTestedBytes) {
            throw InputError(std::string(kName[int(S)]) + ": " + std::to_string(boxes.size()) +
                             " bodies: ODE's hash space allocates n*n bits per collide; at "
                             "most 131072 bodies");
        }
        int lo = INT_MAX, hi = INT_MIN;
        for (const Aabb<D>& b : boxes) {
            const float q = b.largest_side();
            if (!(q > 0)) continue;  // ODE clamps these to the lowest level
            int level = 0;
            std::frexp(double(q), &level);  // 2^(level-1) <= q < 2^level, as ODE's findLevel
            lo = std::min(lo, level);
            hi = std::max(hi, level);
        }
        if (lo > hi) lo = hi = 0;
        dSpaceID space = dHashSpaceCreate(nullptr);
        dHashSpaceSetLevels(space, lo, hi);
        stats_.depth = hi - lo + 1;
        return space;
    } else {
        Aabb<D> bounds = Aabb<D>::empty();
        for (const Aabb<D>& b : boxes) bounds.grow(b);
        if (boxes.empty()) bounds = {Vec<D>(0.0f), Vec<D>(1.0f)};
        const Vec<D> c = bounds.center();
        const Vec<D> e = bounds.size() * 0.5f;
        const dVector3 centre = {c[0], c[1], D == 3 ? c[D - 1] : 0.0f, 0};
        const dVector3 extents = {e[0], e[1], D == 3 ? e[D - 1] : 0.0f, 0};
        const float side = std::max(bounds.size()[0], bounds.size()[1]);
        const float half = median_half_extent<D>(boxes, scratch_);
        built_depth_ = depth_param();
        int depth = depth_param();
        while (built_depth_ == 0 && depth < kMaxQuadTreeDepth &&
               std::ldexp(1.0, 2 * (depth + 1)) <= double(boxes.size()) &&
               std::ldexp(double(side), -(depth + 1)) >= 8.0 * double(half)) {
            ++depth;
        }
        depth = std::max(depth, 1);
        stats_.depth = depth;
        return dQuadTreeSpaceCreate(nullptr, centre, extents, depth);
    }
}

template <OdeSpace S, int D>
void OdePeer<S, D>::rebuild(std::span<const Aabb<D>> boxes,
                            std::span<const std::uint8_t> is_static, const PeerChanges* changes) {
    space_.reset();
    space_.reset(make_space(boxes));
    boxes_.assign(boxes.begin(), boxes.end());
    static_.assign(is_static.begin(), is_static.end());
    geoms_.assign(boxes.size(), nullptr);
    absent_ = add_present(boxes.size(), changes, [&](BodyId i) { add_geom(i, boxes[i]); });
    stats_.reinserted = boxes.size() - absent_;
}

template <OdeSpace S, int D>
void OdePeer<S, D>::add_geom(BodyId id, const Aabb<D>& box) {
    dGeomID g = make_box<D>(box);
    dGeomSetData(g, reinterpret_cast<void*>(std::uintptr_t{id}));
    dGeomSetCategoryBits(g, static_[id] ? kStaticCategory : kMovingCategory);
    dGeomSetCollideBits(g, static_[id] ? kMovingCategory : ~0ul);
    dReal aabb[6];
    dGeomGetAABB(g, aabb);  // computed now, so the quadtree files it in its block
    dSpaceAdd(space_.get(), g);
    geoms_[id] = g;
    boxes_[id] = box;
}

template <OdeSpace S, int D>
bool OdePeer<S, D>::move_geom(BodyId id, const Aabb<D>& b) {
    if (b.lo == boxes_[id].lo && b.hi == boxes_[id].hi) return false;
    const auto l = lengths<D>(b);
    if (b.size() != boxes_[id].size()) dGeomBoxSetLengths(geoms_[id], l[0], l[1], l[2]);
    place<D>(geoms_[id], b, l[2]);
    boxes_[id] = b;
    return true;
}

template <OdeSpace S, int D>
void OdePeer<S, D>::near_callback(void* data, dGeomID g1, dGeomID g2) {
    auto& self = *static_cast<OdePeer*>(data);
    const BodyId a = id_of(g1);
    const BodyId b = id_of(g2);
    ++self.candidates_;
    if (self.boxes_[a].overlaps(self.boxes_[b])) self.out_->push_back(make_pair(a, b));
}

template <OdeSpace S, int D>
void OdePeer<S, D>::update_whole(std::span<const Aabb<D>> boxes,
                                 std::span<const std::uint8_t> is_static, PairList& out) {
    out.clear();
    const bool retuned = S == OdeSpace::kQuadTree && depth_param() != built_depth_;
    if (!space_ || !same_bodies(is_static, static_) || retuned || absent_ > 0) {
        rebuild(boxes, is_static);
    } else {
        std::uint64_t moved = 0;
        for (BodyId i = 0; i < boxes.size(); ++i) moved += move_geom(i, boxes[i]);
        stats_.reinserted = moved;
    }
    collide(out);
}

template <OdeSpace S, int D>
void OdePeer<S, D>::update_changes(const BodyChanges<D>& c, PairList& out) {
    changes_.read_for(c, static_cast<bool>(space_), kName[int(S)]);
    out.clear();
    const std::size_t n = c.boxes.size();
    const bool retuned = S == OdeSpace::kQuadTree && depth_param() != built_depth_;
    if (c.reset || n != geoms_.size() || retuned) {
        rebuild(c.boxes, changes_.still_flags(c.boxes.size()), &changes_);
    } else {
        for (const BodyId id : changes_.departed()) {
            dGeomDestroy(geoms_[id]);  // removes it from its space
            geoms_[id] = nullptr;
            ++absent_;
        }
        for (const BodyId id : changes_.arrived()) {
            static_[id] = changes_.still(id);
            add_geom(id, c.boxes[id]);
            --absent_;
        }
        std::uint64_t moved = changes_.arrived().size();
        for (const BodyId id : c.moving) moved += move_geom(id, c.boxes[id]);
        stats_.reinserted = moved;
    }
    collide(out);
}

template <OdeSpace S, int D>
void OdePeer<S, D>::collide(PairList& out) {
    out_ = &out;
    candidates_ = 0;
    dSpaceCollide(space_.get(), this, &near_callback);
    out_ = nullptr;
    stats_.candidate_tests = candidates_;
    stats_.nodes = geoms_.size() - absent_;
    // ODE's geoms and space internals are private: only what the peer holds is counted.
    stats_.structure_bytes = geoms_.capacity() * sizeof(dGeomID) +
                             boxes_.capacity() * sizeof(Aabb<D>) + static_.capacity();
}

template <OdeSpace S, int D>
void OdePeer<S, D>::search(const Aabb<D>& region, std::vector<BodyId>& out, QueryTrace<D>*) const {
    out.clear();
    if (!space_) return;
    // ODE's own query: a probe geom collided against the space (dSpaceCollide2).
    struct Probe {
        const OdePeer& peer;
        const Aabb<D>& region;
        dGeomID geom;
        std::vector<BodyId>& out;
        static void found(void* data, dGeomID g1, dGeomID g2) {
            auto& p = *static_cast<Probe*>(data);
            const BodyId id = id_of(g1 == p.geom ? g2 : g1);
            if (p.peer.boxes_[id].overlaps(p.region)) p.out.push_back(id);
        }
    } probe{*this, region, make_box<D>(region), out};
    dSpaceCollide2(probe.geom, reinterpret_cast<dGeomID>(space_.get()), &probe, &Probe::found);
    dGeomDestroy(probe.geom);
}

}  // namespace

template <OdeSpace S, int D>
std::unique_ptr<BroadPhase<D>> make_ode_peer() {
    return std::make_unique<OdePeer<S, D>>();
}

template std::unique_ptr<BroadPhase<2>> make_ode_peer<OdeSpace::kHash, 2>();
template std::unique_ptr<BroadPhase<3>> make_ode_peer<OdeSpace::kHash, 3>();
template std::unique_ptr<BroadPhase<2>> make_ode_peer<OdeSpace::kQuadTree, 2>();
template std::unique_ptr<BroadPhase<3>> make_ode_peer<OdeSpace::kQuadTree, 3>();
template std::unique_ptr<BroadPhase<2>> make_ode_peer<OdeSpace::kSap, 2>();
template std::unique_ptr<BroadPhase<3>> make_ode_peer<OdeSpace::kSap, 3>();

}  // namespace collide::bench
