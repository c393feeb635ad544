#include "collide/gpu/gpu_world.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <iterator>
#include <stdexcept>

#include "buffer_fill.hpp"
#include "gpu_grid.hpp"
#include "radix_sort.hpp"
#include "shaders/gpu/common.glsl.hpp"
#include "shaders/gpu/grid_keys.comp.hpp"
#include "shaders/gpu/grid_levels.glsl.hpp"
#include "shaders/gpu/grid_pairs.comp.hpp"
#include "shaders/gpu/pair_emit.glsl.hpp"
#include "shaders/gpu/world_common.glsl.hpp"
#include "shaders/gpu/world_step.comp.hpp"
#include "storage_buffer.hpp"

namespace collide::gpu {

using namespace collidoscope::shaders;

namespace {

constexpr std::size_t kGroup = 256;
constexpr std::size_t kMaxGroups = 65535;
// One dispatch of grid_keys and grid_pairs covers every body (they do not loop).
constexpr std::size_t kMaxBodies = kGroup * kMaxGroups;
// The radix sort takes at most 65,535 blocks of 1024 records.
constexpr std::size_t kMaxSlots = 1024 * kMaxGroups;
constexpr int kRing = 4;  // readbacks in flight
// The share of the position correction that goes into the velocity bias with gravity.
constexpr float kBiasShare = 0.25f;

// Binding points of world_step.comp; the grid's kernels keep their own (common.glsl).
enum Binding : GLuint {
    kPos = 0,
    kVel = 1,
    kRadius = 2,
    kMass = 3,
    kBoxes = 4,
    kPairA = 5,
    kPairB = 6,
    kNormal = 7,
    kState = 8,
    kOut = 9,
    kRunsA = 10,
    kRunsB = 11,
    kBSlot = 12,
    kKeys = 13,
    kWalls = 14,
    kCounters = 15,
};

enum Phase : int { kIntegrate, kBroad, kNarrow, kResolve };

// The kernels of world_step.comp: the program's key and the #define that picks it.
enum class Kernel {
    kIntegrate,
    kPad,
    kBEntries,
    kRuns,
    kNarrow,
    kCount,
    kWalls,
    kWarm,
    kImpulse,
    kChoose,
    kPairwise,
    kGatherVelocity,
    kPush,
    kGatherPosition,
    kSample,
};
struct KernelSource {
    const char* key;
    const char* define;
};
constexpr KernelSource kKernels[] = {
    {"world_integrate", "#define KERNEL_INTEGRATE\n"},
    {"world_pad", "#define KERNEL_PAD\n"},
    {"world_b_entries", "#define KERNEL_B_ENTRIES\n"},
    {"world_runs", "#define KERNEL_RUNS\n"},
    {"world_narrow", "#define KERNEL_NARROW\n"},
    {"world_count", "#define KERNEL_COUNT\n"},
    {"world_walls", "#define KERNEL_WALLS\n"},
    {"world_warm", "#define KERNEL_WARM\n"},
    {"world_impulse", "#define KERNEL_IMPULSE\n"},
    {"world_choose", "#define KERNEL_CHOOSE\n"},
    {"world_pairwise", "#define KERNEL_PAIRWISE\n"},
    {"world_gather_velocity", "#define KERNEL_GATHER_VELOCITY\n"},
    {"world_push", "#define KERNEL_PUSH\n"},
    {"world_gather_position", "#define KERNEL_GATHER_POSITION\n"},
    {"world_sample", "#define KERNEL_SAMPLE\n"},
};
static_assert(std::size(kKernels) == static_cast<std::size_t>(Kernel::kSample) + 1);

// Pair slots for `pairs` pairs, with room to grow by half before they fill.
std::uint32_t slots_for(std::size_t pairs) {
    return static_cast<std::uint32_t>(std::min(kMaxSlots, pairs + pairs / 2 + 1024));
}

template <int D>
void set_vec(GLuint program, const char* name, const Vec<D>& v) {
    if constexpr (D == 2) {
        glUniform2fv(glGetUniformLocation(program, name), 1, &v[0]);
    } else {
        glUniform3fv(glGetUniformLocation(program, name), 1, &v[0]);
    }
}

}  // namespace

template <int D>
struct GpuWorld<D>::Impl {
    ComputeContext& ctx;
    std::size_t n;
    GridLayout<D> layout;
    RadixSort sort;
    StorageBuffer pos, vel, radius, mass, boxes, statics;
    GridCells grid;
    StorageBuffer counters;  // pair_count, test_count, contact_count, unused
    StorageBuffer pair_a, pair_b, pair_a_scratch, pair_b_scratch;
    StorageBuffer keys, b_slot, keys_scratch, b_slot_scratch;
    StorageBuffer normal, state, out, runs_a, runs_b, walls;
    StorageBuffer choice;  // per body, its contact this iteration (without gravity)
    StorageBuffer speeds;  // the speed sample of the step
    // Last step's sorted pairs (b of each), a runs and contact states, for warm starting.
    StorageBuffer prev_pair_b, prev_runs_a, prev_state;
    std::uint32_t capacity = 0;
    std::vector<std::uint8_t> is_static;

    // One readback in flight: the copy, its fence, and the step's timestamps.
    struct Slot {
        StorageBuffer copy;
        GLsync fence = nullptr;
        std::uint64_t step = 0;
        BodyId watched = kNoBody;
        std::uint32_t capacity = 0;
        std::vector<GLuint> queries;
        std::vector<Phase> phases;  // the phase each stamp after the first ends
        std::size_t used = 0;
        std::size_t samples = 0;  // speeds copied
    };
    std::array<Slot, kRing> ring;
    std::size_t next_slot = 0;
    Slot* timing = nullptr;  // the slot this step stamps into, if one was free

    Impl(ComputeContext& c, std::size_t count) : ctx(c), n(count) {}
    ~Impl() {
        for (Slot& s : ring) {
            if (s.fence) glDeleteSync(s.fence);
            if (!s.queries.empty()) glDeleteQueries(GLsizei(s.queries.size()), s.queries.data());
        }
    }

    GLuint kernel(Kernel k) {
        const KernelSource& source = kKernels[static_cast<std::size_t>(k)];
        return ctx.program(source.key, D, {kWorldCommonGlsl, source.define, kWorldStepComp});
    }
    // Puts kernel `k` in use with the two counts every kernel reads (the bodies, the slots).
    GLuint use(Kernel k) {
        const GLuint p = kernel(k);
        glUseProgram(p);
        set_uint(p, "u_count", static_cast<std::uint32_t>(n));
        set_uint(p, "u_slots", capacity);
        return p;
    }
    // Builds every kernel now, so the first step is not a long frame.
    void build_kernels() {
        for (std::size_t k = 0; k < std::size(kKernels); ++k) kernel(static_cast<Kernel>(k));
    }
    void stamp(Phase ended) {
        if (!timing) return;
        Slot& s = *timing;
        if (s.used == s.queries.size()) {
            s.queries.push_back(0);
            glGenQueries(1, &s.queries.back());
        }
        glQueryCounter(s.queries[s.used], GL_TIMESTAMP);
        if (s.used > 0) s.phases.push_back(ended);
        ++s.used;
    }

    void reserve_slots(std::uint32_t slots) {
        capacity = slots;
        for (StorageBuffer* b : {&pair_a, &pair_b, &keys, &b_slot}) b->reserve(slots * 4);
        normal.reserve(std::size_t{slots} * D * 4);
        out.reserve(std::size_t{slots} * D * 4);
        state.reserve(std::size_t{slots} * 16);
        runs_a.reserve(n * 8);
    }
    // This step's pairs and states become last step's (kept for warm starting).
    void keep_last_step() {
        std::swap(pair_b, prev_pair_b);
        std::swap(runs_a, prev_runs_a);
        std::swap(state, prev_state);
    }

    void integrate(const WorldSettings<D>& s, float dt, bool move) {
        const GLuint p = use(Kernel::kIntegrate);
        set_vec<D>(p, "u_lo", s.bounds.lo);
        set_vec<D>(p, "u_hi", s.bounds.hi);
        set_vec<D>(p, "u_dv", move ? s.gravity * dt : Vec<D>(0.0f));
        set_float(p, "u_dt", move ? dt : 0.0f);
        set_uint(p, "u_move", move ? 1u : 0u);
        pos.bind(kPos);
        vel.bind(kVel);
        radius.bind(kRadius);
        mass.bind(kMass);
        boxes.bind(kBoxes);
        dispatch(stride_groups(n, kGroup));
    }

    // Slots [first, end) of each body's run of `sorted` keys into `runs`.
    void find_runs(StorageBuffer& sorted, StorageBuffer& runs) {
        fill_words(ctx, runs, 0);
        pos.bind(kPos);  // the fill used binding 0
        use(Kernel::kRuns);
        sorted.bind(kKeys);
        runs.bind(kRunsA);
        dispatch(stride_groups(capacity, kGroup));
    }

    // The grid, the pairs (sorted by (a, b), padded to the capacity) and each body's runs.
    void broad_phase() {
        counters.fill(0);
        grid.build(ctx, sort, layout, boxes, statics, n);

        const GLuint pairs_program = ctx.program(
            "grid_pairs", D, {kCommonGlsl, kPairEmitGlsl, kGridLevelsGlsl, kGridPairsComp});
        glUseProgram(pairs_program);
        set_uint(pairs_program, "u_count", static_cast<std::uint32_t>(n));
        set_uint(pairs_program, "u_pair_capacity", capacity);
        // One pass, never stopped: the step reads back nothing, and the world's bodies,
        // pushed apart by the solver, meet few neighbours each.
        set_uint(pairs_program, "u_jobs", static_cast<std::uint32_t>(n));
        set_uint(pairs_program, "u_resuming", 0);
        set_uint(pairs_program, "u_step_budget", 0xFFFFFFFFu);
        set_grid_uniforms(pairs_program, layout);
        boxes.bind(0);
        statics.bind(1);
        grid.bind();
        counters.bind(6);
        pair_a.bind(7);
        pair_b.bind(8);
        dispatch(groups_for(n, kGroup));

        use(Kernel::kPad);
        pair_a.bind(kPairA);
        pair_b.bind(kPairB);
        counters.bind(kCounters);
        dispatch(stride_groups(capacity, kGroup));
        // Padding holds n, which sorts after every body.
        const int bits = bits_below(n + 1);
        const std::array<RadixSort::Field, 2> pair_fields{{{1, bits}, {0, bits}}};
        const std::array<StorageBuffer*, 2> pairs{&pair_a, &pair_b};
        const std::array<StorageBuffer*, 2> pairs_scratch{&pair_a_scratch, &pair_b_scratch};
        sort.sort(ctx, pairs, pairs_scratch, capacity, pair_fields);
        find_runs(pair_a, runs_a);

        // Each body's slots as the pair's b: (b, slot) sorted stably by b.
        use(Kernel::kBEntries);
        pair_b.bind(kPairB);
        keys.bind(kKeys);
        b_slot.bind(kBSlot);
        dispatch(stride_groups(capacity, kGroup));
        const std::array<RadixSort::Field, 1> b_field{{{0, bits}}};
        const std::array<StorageBuffer*, 2> b_data{&keys, &b_slot};
        const std::array<StorageBuffer*, 2> b_scratch{&keys_scratch, &b_slot_scratch};
        sort.sort(ctx, b_data, b_scratch, capacity, b_field);
        find_runs(keys, runs_b);
    }

    void bind_contacts() {
        pair_a.bind(kPairA);
        pair_b.bind(kPairB);
        normal.bind(kNormal);
        state.bind(kState);
        out.bind(kOut);
        runs_a.bind(kRunsA);
        runs_b.bind(kRunsB);
        b_slot.bind(kBSlot);
        walls.bind(kWalls);
        counters.bind(kCounters);
        pos.bind(kPos);
        vel.bind(kVel);
        radius.bind(kRadius);
        mass.bind(kMass);
    }

    // Narrow phase and contact resolution over one (sub)step.
    void solve(const WorldSettings<D>& s, float dt, int substep) {
        const float threshold = 2.0f * glm::length(s.gravity) * dt;
        // Without gravity nothing rests, and a warm impulse would push separating bodies.
        const bool warm = threshold > 0.0f;
        // A kernel of the solve in use, with the walls and the bounce's settings.
        const auto use_solver = [&](Kernel k) {
            const GLuint p = use(k);
            set_vec<D>(p, "u_lo", s.bounds.lo);
            set_vec<D>(p, "u_hi", s.bounds.hi);
            set_float(p, "u_restitution", s.restitution);
            set_float(p, "u_threshold", threshold);
            return p;
        };
        bind_contacts();
        counters.fill_word(8, 0);  // contact_count
        const GLuint narrow = use_solver(Kernel::kNarrow);
        set_uint(narrow, "u_keep", warm && substep > 0 ? 1u : 0u);
        set_float(narrow, "u_bias", warm ? kBiasShare * s.position_correction / dt : 0.0f);
        dispatch(stride_groups(capacity, kGroup));
        use_solver(Kernel::kCount);
        dispatch(stride_groups(n, kGroup));
        use_solver(Kernel::kWalls);
        dispatch(stride_groups(n, kGroup));
        stamp(kNarrow);

        if (warm) {
            const GLuint warm_start = use_solver(Kernel::kWarm);
            set_uint(warm_start, "u_search", substep == 0 ? 1u : 0u);
            prev_runs_a.bind(kBoxes);  // the boxes' binding is free once the grid is built
            prev_pair_b.bind(kKeys);
            prev_state.bind(kWalls);
            dispatch(stride_groups(capacity, kGroup));
            walls.bind(kWalls);
            use_solver(Kernel::kGatherVelocity);
            dispatch(stride_groups(n, kGroup));
        }
        choice.reserve(n * 4);
        for (int it = 0; it < s.solver_iterations; ++it) {
            if (warm) {
                use_solver(Kernel::kImpulse);
                dispatch(stride_groups(capacity, kGroup));
            } else {
                choice.bind(kKeys);
                use_solver(Kernel::kChoose);
                dispatch(stride_groups(n, kGroup));
                use_solver(Kernel::kPairwise);
                dispatch(stride_groups(capacity, kGroup));
            }
            use_solver(Kernel::kGatherVelocity);
            dispatch(stride_groups(n, kGroup));
        }
        for (int it = 0; it < s.position_iterations; ++it) {
            const GLuint push = use_solver(Kernel::kPush);
            set_float(push, "u_beta", s.position_correction);
            dispatch(stride_groups(capacity, kGroup));
            use_solver(Kernel::kGatherPosition);
            dispatch(stride_groups(n, kGroup));
        }
        stamp(kResolve);
    }

    // The step's figures into `slot`, behind a fence: the counters, the watched body, a
    // sample of speeds (the timestamps are in already).
    void send_readback(Slot& slot, BodyId watched, std::uint64_t step) {
        constexpr std::size_t kBody = sizeof(Vec<D>);
        const std::size_t samples = std::min(kSpeedSamples, n);
        const GLuint sample = use(Kernel::kSample);
        set_uint(sample, "u_samples", static_cast<std::uint32_t>(samples));
        set_uint(sample, "u_stride", static_cast<std::uint32_t>(n / samples));
        vel.bind(kVel);
        mass.bind(kMass);
        speeds.reserve(samples * 4);
        speeds.bind(kBoxes);
        dispatch(stride_groups(samples, kGroup));
        slot.copy.reserve(16 + 2 * kBody + samples * 4);
        glBindBuffer(GL_COPY_WRITE_BUFFER, slot.copy.id());
        const auto copy = [](const StorageBuffer& from, std::size_t offset, std::size_t to,
                             std::size_t bytes) {
            glBindBuffer(GL_COPY_READ_BUFFER, from.id());
            glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, GLintptr(offset),
                                GLintptr(to), GLsizeiptr(bytes));
        };
        copy(counters, 0, 0, 16);
        if (watched != kNoBody) {
            copy(pos, watched * kBody, 16, kBody);
            copy(vel, watched * kBody, 16 + kBody, kBody);
        }
        copy(speeds, 0, 16 + 2 * kBody, samples * 4);
        slot.samples = samples;
        slot.fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        slot.step = step;
        slot.watched = watched;
        slot.capacity = capacity;
        next_slot = (next_slot + 1) % kRing;
    }

    std::array<std::uint32_t, 4> read_counters() const {
        std::array<std::uint32_t, 4> c{};
        counters.download(std::span<std::uint32_t>(c));
        return c;
    }
};

template <int D>
std::optional<std::string> GpuWorld<D>::unsupported(const WorldSettings<D>& settings,
                                                    const Bodies<D>& bodies) {
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        if (bodies.is_implicit(i)) {
            return "it has implicit bodies, which only the CPU world's narrow phase tests";
        }
    }
    if (settings.swept) return "swept steps (time of impact) run on the CPU world only";
    if (bodies.size() > kMaxBodies) {
        return "the GPU world takes at most " + std::to_string(kMaxBodies) + " bodies";
    }
    return std::nullopt;
}

template <int D>
GpuWorld<D>::GpuWorld(const WorldSettings<D>& settings, const Bodies<D>& bodies,
                      std::uint64_t steps)
    : context_(shared_context()), settings_(settings), count_(bodies.size()), steps_(steps) {
    if (const auto why = unsupported(settings, bodies)) throw std::invalid_argument(*why);
    impl_ = std::make_unique<Impl>(*context_, count_);
    Impl& m = *impl_;
    m.is_static = bodies.is_static;
    const std::size_t n = count_;
    m.pos.upload(std::span<const Vec<D>>(bodies.pos));
    m.vel.upload(std::span<const Vec<D>>(bodies.vel));
    m.radius.upload(std::span<const float>(bodies.radius));
    // Unit density, as the CPU world: the same masses, bit for bit.
    std::vector<float> mass(2 * n, 1.0f);
    float min_r = n ? bodies.radius[0] : 1.0f, max_r = min_r;
    for (std::size_t i = 0; i < n; ++i) {
        const float r = std::max(bodies.radius[i], 1e-3f);
        mass[2 * i] = bodies.is_static[i] ? 0.0f : 1.0f / std::pow(r, static_cast<float>(D));
        min_r = std::min(min_r, bodies.radius[i]);
        max_r = std::max(max_r, bodies.radius[i]);
    }
    m.mass.upload(std::span<const float>(mass));
    m.boxes.reserve(n * sizeof(Aabb<D>));
    m.statics.reserve((n + 3) / 4 * 4);
    m.statics.upload(std::span<const std::uint8_t>(bodies.is_static));
    m.counters.reserve(16);
    m.runs_a.reserve(n * 8);
    m.runs_b.reserve(n * 8);
    m.walls.reserve(n * 2 * D * 3 * 4);
    // Bodies stay inside the walls, so the walls and the radii lay the grid out once.
    SceneBounds<D> bounds;
    bounds.box = settings.bounds;
    bounds.min_side = 2.0f * min_r;
    bounds.max_side = 2.0f * max_r;
    m.layout = GridLayout<D>::from(bounds, n);

    // The boxes where the bodies stand, and the pairs they make: counted once here, so the
    // pair buffer starts at its size (it grows later from the readbacks, before it fills).
    m.integrate(settings_, 0.0f, false);
    m.reserve_slots(slots_for(n / 2));
    if (n == 0) return;
    m.broad_phase();
    m.reserve_slots(slots_for(m.read_counters()[0]));
    m.broad_phase();
    m.state.fill(0);  // no impulses to warm-start the first step from
    m.build_kernels();
}

template <int D>
GpuWorld<D>::~GpuWorld() {
    context_->make_current();  // the buffers die with the context current
}

template <int D>
void GpuWorld<D>::set_settings(const WorldSettings<D>& settings) {
    if (settings.bounds.lo != settings_.bounds.lo || settings.bounds.hi != settings_.bounds.hi) {
        throw std::invalid_argument("the GPU world's walls are fixed when it is made");
    }
    settings_ = settings;
}

template <int D>
void GpuWorld<D>::step(BodyId watched) {
    context_->make_current();
    Impl& m = *impl_;
    ++steps_;
    if (count_ == 0) return;
    readback();  // frees the ring slots whose copies have landed
    m.keep_last_step();
    // Every pass over the pairs runs over all the slots (their count never comes back to the
    // host in time), so the slots follow the pairs: grown before they fill, since the pairs
    // change little from one step to the next, and cut when most stand empty.
    const std::size_t seen = latest_.pairs;
    const std::size_t slots = m.capacity;
    const bool resize = latest_.step > 0 && (seen * 4 > slots * 3 || seen * 4 + 4096 < slots);
    // The buffers swapped in from last step may be smaller: reserved in either case.
    m.reserve_slots(resize ? slots_for(seen) : m.capacity);
    typename Impl::Slot& slot = m.ring[m.next_slot];
    m.timing = slot.fence ? nullptr : &slot;
    if (m.timing) {
        slot.used = 0;
        slot.phases.clear();
    }

    const int substeps = std::max(settings_.substeps, 1);
    const float dt = settings_.dt / static_cast<float>(substeps);
    m.stamp(kIntegrate);
    m.integrate(settings_, dt, true);
    m.stamp(kIntegrate);
    m.broad_phase();
    m.stamp(kBroad);
    for (int s = 0; s < substeps; ++s) {
        if (s > 0) {
            m.integrate(settings_, dt, true);
            m.stamp(kIntegrate);
        }
        m.solve(settings_, dt, s);
    }
    // The renderer reads the bodies as vertex attributes, and the readback copies them.
    glMemoryBarrier(GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);

    if (!m.timing) return;  // every slot still in flight: this step sends nothing back
    m.send_readback(slot, watched < count_ ? watched : kNoBody, steps_);
    m.timing = nullptr;
    glFlush();  // so the fence is reached without anyone waiting on it
}

template <int D>
const GpuWorldReadback<D>& GpuWorld<D>::readback() {
    Impl& m = *impl_;
    context_->make_current();
    // Oldest first, so the newest landed copy is the one kept.
    for (int k = 0; k < kRing; ++k) {
        typename Impl::Slot& slot = m.ring[(m.next_slot + k) % kRing];
        if (!slot.fence) continue;
        const GLenum status = glClientWaitSync(slot.fence, 0, 0);
        if (status != GL_ALREADY_SIGNALED && status != GL_CONDITION_SATISFIED) continue;
        glDeleteSync(slot.fence);
        slot.fence = nullptr;
        constexpr std::size_t kBody = sizeof(Vec<D>);
        std::array<std::uint32_t, 4> counts{};
        slot.copy.download(std::span<std::uint32_t>(counts));
        GpuWorldReadback<D> r;
        r.step = slot.step;
        r.pairs = counts[0];
        r.tests = counts[1];
        r.contacts = counts[2];
        r.capacity = slot.capacity;
        r.watched = slot.watched;
        if (r.watched != kNoBody) {
            slot.copy.download(std::span<Vec<D>>(&r.pos, 1), 16);
            slot.copy.download(std::span<Vec<D>>(&r.vel, 1), 16 + kBody);
        }
        r.speeds.resize(slot.samples);
        slot.copy.download(std::span<float>(r.speeds), 16 + 2 * kBody);
        std::erase_if(r.speeds, [](float v) { return v < 0.0f; });  // static bodies
        std::array<double*, 4> phase_ms{&r.times.integrate_ms, &r.times.broad_ms,
                                        &r.times.narrow_ms, &r.times.resolve_ms};
        GLuint64 before = 0;
        for (std::size_t q = 0; q < slot.used; ++q) {
            GLuint64 t = 0;
            glGetQueryObjectui64v(slot.queries[q], GL_QUERY_RESULT, &t);
            if (q > 0) *phase_ms[slot.phases[q - 1]] += static_cast<double>(t - before) * 1e-6;
            before = t;
        }
        if (r.pairs > r.capacity) ++overflowed_steps_;
        if (r.step >= latest_.step) latest_ = r;
    }
    return latest_;
}

template <int D>
void GpuWorld<D>::download(std::vector<Vec<D>>& pos, std::vector<Vec<D>>& vel) const {
    context_->make_current();
    pos.resize(count_);
    vel.resize(count_);
    impl_->pos.download(std::span<Vec<D>>(pos));
    impl_->vel.download(std::span<Vec<D>>(vel));
}

template <int D>
PairList GpuWorld<D>::pairs() const {
    context_->make_current();
    if (count_ == 0) return {};
    const Impl& m = *impl_;
    const std::size_t found = std::min<std::size_t>(m.read_counters()[0], m.capacity);
    std::vector<std::uint32_t> a(found), b(found);
    m.pair_a.download(std::span<std::uint32_t>(a));
    m.pair_b.download(std::span<std::uint32_t>(b));
    PairList out(found);
    for (std::size_t k = 0; k < found; ++k) out[k] = {a[k], b[k]};
    return out;
}

template <int D>
void GpuWorld<D>::move_body(BodyId id, const Vec<D>& pos, const Vec<D>& vel) {
    assert(id < count_);
    context_->make_current();
    impl_->pos.upload(std::span<const Vec<D>>(&pos, 1), std::size_t{id} * sizeof(Vec<D>));
    if (!impl_->is_static[id]) {
        impl_->vel.upload(std::span<const Vec<D>>(&vel, 1), std::size_t{id} * sizeof(Vec<D>));
    }
}

template <int D>
BodyBuffers GpuWorld<D>::buffers() const {
    const Impl& m = *impl_;
    return {m.pos.id(), m.vel.id(), m.radius.id(), m.mass.id(), count_};
}

template class GpuWorld<2>;
template class GpuWorld<3>;

}  // namespace collide::gpu
