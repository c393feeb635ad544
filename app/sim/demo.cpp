#include "sim/demo.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "collide/gpu/catalog.hpp"
#include "collide/gpu/compute_context.hpp"
#include "sim/algorithm_policy.hpp"
#include "sim/gpu_handover.hpp"
#include "tooling/cli_support.hpp"
#include "tooling/input_error.hpp"
#include "tooling/parse.hpp"
#include "tooling/random.hpp"
#include "tooling/scene_names.hpp"

namespace collidoscope {
namespace {

// A query region taken to a world of the other dimension: the same share of the world on x
// and y; into 3D it spans the world's depth (the rectangle seen from above), into 2D it
// drops the depth.
Box3 query_in_other_dim(const Box3& q, const Box3& from, const Box3& to, int dim) {
    Box3 out = to;
    for (int k = 0; k < 2; ++k) {
        const float scale = (to.hi[k] - to.lo[k]) / (from.hi[k] - from.lo[k]);
        out.lo[k] = to.lo[k] + (q.lo[k] - from.lo[k]) * scale;
        out.hi[k] = to.lo[k] + (q.hi[k] - from.lo[k]) * scale;
    }
    if (dim == 2) out.lo.z = out.hi.z = 0.0f;
    return out;
}

// A version 1 session was recorded when every world kept the generator's numbering, and
// sessions before version 3 when no world slept.
WorldDefaults defaults_of(const SessionStart& start) {
    return {start.version >= 2 ? BodyNumbering::kMortonWhenLarge : BodyNumbering::kGenerated,
            start.version >= 3};
}

}  // namespace

Demo::Demo(const Options& options) : race_live_(options.race) {
    if (options.replay.empty()) {
        start_ = {options.dim, options.scene, options.count, options.seed, options.broadphase};
    } else {
        replay_ = load_session(options.replay);
        start_ = replay_->start;
        replay_status_.emplace();
        replay_status_->path = options.replay;
        for (const SessionEntry& e : replay_->entries) {
            if (!std::holds_alternative<action::Check>(e.action)) ++replay_status_->total;
        }
        replay_status_->cut_short = !replay_->end;
    }
    dim_ = start_.dim;
    scene_ = start_.scene;
    count_ = start_.count;
    seed_ = start_.seed;
    broad_phase_ = start_.broadphase;
    for (const collide::SceneEntry& s : collide::scene_list()) {
        scenes_.push_back(
            {std::string(s.name), std::string(s.name), std::string(s.description), 0});
    }
    if (scene_is_csv()) {
        // A CSV scene from the command line joins the menu, in its own dimension only.
        std::string path = scene_.substr(4);
        std::string file = path.substr(path.find_last_of('/') + 1);
        scenes_.push_back({scene_, "csv: " + file, "bodies loaded from " + path, dim_});
    }
    try {
        world_ = make_sim_world(dim_, scene_, count_, seed_, broad_phase_, defaults_of(start_));
    } catch (const collide::InputError& e) {
        if (!replay_) throw;
        throw collide::InputError(options.replay + ": " + e.what());
    }
    if (scene_is_csv()) count_ = start_.count = world_->body_count();  // the file decides
    notice_ = too_slow_for_the_world(broad_phase_, count_).value_or("");
    if (!notice_.empty()) {
        broad_phase_ = std::string(default_broadphase(count_));
        world_->set_broad_phase(broad_phase_);
    }
    world_->refresh_broad_phase();  // its pairs before the first step, as after a rebuild
    scene_physics_ = world_->physics();
    history_.record(*world_);
    view_.overlays = options.overlays;
    if (!options.record.empty()) start_recording(options.record);
    // What the command line asks of the world is logged like any action; a replay has its
    // own in the file.
    apply_options(options, !replay_);
}

void Demo::apply_options(const Options& options, bool world) {
    if (world) {
        for (const ParamSetting& p : options.params) set_param(p.name, p.value);
        if (options.swept != physics().swept) {
            Physics p = physics();
            p.swept = options.swept;
            set_physics(p);
        }
        if (options.paused != paused_) set_paused(options.paused);
        if (options.spawn_rate) spawn_rate_ = options.spawn_rate;
    }
    if (options.select != selected_) select(options.select);
    if (options.query || query_) set_query(options.query);
    // A tour stop opens or closes Watch mode as it says.
    if (options.watch != watch_.open()) set_watching(options.watch);
    if (options.watch) {
        watch_.start_at({options.watch_event.value_or(0), options.watch_at_selection,
                         options.watch_at_step},
                        options.watch_quiz);
    }
}

void Demo::show(const Options& options) {
    apply(action::SetWorld{options.dim, options.scene, options.count, options.seed,
                           options.broadphase});
    if (!last_error_.empty()) return;
    apply_options(options, true);
    choose_world(options.world);
    view_.overlays = options.overlays;
}

void Demo::choose_world(WorldChoice choice) {
    bool on = choice == WorldChoice::kGpu;
    if (choice == WorldChoice::kAuto) {
        const std::optional<std::string> why = no_hardware_gpu();
        on = !why;
        if (why) notice_ = "on the CPU world: " + *why;
    }
    if (on != want_gpu_ || on != world_->on_gpu()) set_gpu_world(on);
}

Demo::~Demo() {
    stop_recording();
}

void Demo::apply(const UserAction& action) {
    // A check is compared, not logged: update() logs the session's own.
    if (!std::holds_alternative<action::Check>(action)) log(action);
    std::visit([this](const auto& a) { act(a); }, action);
}

void Demo::log(const UserAction& action) {
    log_.push_back({ticks_, action});
    if (recorder_) recorder_->write(log_.back());
}

void Demo::act(const action::SetDim& a) {
    if (a.dim == dim_) return;
    std::string scene = scene_;
    // A CSV file has one dimension; leave it for the first generated scene.
    auto it = std::find_if(scenes_.begin(), scenes_.end(),
                           [&](const SceneChoice& s) { return s.name == scene_; });
    if (it == scenes_.end() || (it->dim != 0 && it->dim != a.dim)) scene = scenes_.front().name;
    if (!rebuild(a.dim, scene, count_, seed_, false, broad_phase_)) return;
    // Boxes and pairs through the whole depth of a 3D world draw over each other into a
    // tangle: a slab of it is shown instead, and the panel says how to see all of it.
    const OverlayFlags& o = view_.overlays;
    if (dim_ == 3 && o.aabbs && o.pairs && world_->body_count() > kTangledBodies && !view_.slab) {
        view_.slab = true;
        notice_ = "3D: boxes and pairs are shown in a slab of the world (Overlays > Slab)";
    }
}

void Demo::act(const action::SetScene& a) {
    if (a.name != scene_) rebuild(dim_, a.name, count_, seed_, false, broad_phase_);
}

void Demo::act(const action::SetCount& a) {
    if (a.count != count_) rebuild(dim_, scene_, a.count, seed_, true, broad_phase_);
}

void Demo::act(const action::SetSeed& a) {
    if (a.seed != seed_) rebuild(dim_, scene_, count_, a.seed, true, broad_phase_);
}

void Demo::act(const action::Reset&) {
    rebuild(dim_, scene_, count_, seed_, true, broad_phase_);
}

void Demo::act(const action::SetWorld& a) {
    const bool other_algorithm = a.broadphase != broad_phase_;
    if (rebuild(a.dim, a.scene, a.count, a.seed, false, a.broadphase) && other_algorithm)
        view_.overlays.hidden_layers = 0;  // layer numbers mean something else in another one
}

void Demo::set_compare_panes(std::size_t count) {
    std::vector<std::string>& panes = view_.compare;
    if (count == 0) {
        panes.clear();
        return;
    }
    if (panes.empty()) panes.push_back(broad_phase_);
    panes.resize(std::min(panes.size(), count));
    for (const collide::BroadPhaseEntry* e : algorithms()) {
        if (panes.size() == count) break;
        if (e->name != collide::kReferenceBroadPhase &&
            std::find(panes.begin(), panes.end(), e->name) == panes.end())
            panes.emplace_back(e->name);
    }
    panes.resize(count, panes.back());  // more panes than algorithms
}

std::optional<std::string> Demo::too_slow_for_the_world(std::string_view algorithm,
                                                        std::size_t count) {
    const double tests = brute_force_tests_past_limit(algorithm, count);
    if (tests == 0.0) return std::nullopt;
    char text[200];
    std::snprintf(text, sizeof text,
                  "brute force at %zu bodies is %.1e tests a step (minutes a frame): it runs the "
                  "world up to %zu bodies",
                  count, tests, collide::kMaxReferenceBodies);
    return text;
}

std::optional<std::string_view> Demo::large_world_suggestion() const {
    // Only the small worlds' default is second-guessed: any other choice was the user's.
    const std::string_view wanted = default_broadphase(count_);
    if (broad_phase_ != kDefaultBroadPhase || broad_phase_ == wanted) return std::nullopt;
    return wanted;
}

bool Demo::rebuild(int dim, const std::string& scene, std::size_t count, std::uint64_t seed,
                   bool keep_physics, const std::string& wanted) {
    // Keep the algorithm across dimensions when it exists in both, or take the row that does
    // its job in the other (quadtree and octree).
    std::string algorithm = wanted;
    const collide::BroadPhaseEntry* entry = collide::find_any_broadphase(algorithm);
    if (entry && !entry->supports(dim) && !entry->in_other_dim.empty()) {
        algorithm = std::string(entry->in_other_dim);
        entry = collide::find_any_broadphase(algorithm);
    }
    if (!entry || !entry->supports(dim))
        algorithm = std::string(default_broadphase(count));
    // A world that would freeze the app gets the default algorithm, and the panel says why.
    notice_ = too_slow_for_the_world(algorithm, count).value_or("");
    if (!notice_.empty()) algorithm = std::string(default_broadphase(count));
    const std::optional<Physics> physics =
        world_ ? std::optional<Physics>(world_->physics()) : std::nullopt;
    std::unique_ptr<SimWorld> world;
    try {
        world = make_sim_world(dim, scene, count, seed, algorithm, defaults_of(start_));
    } catch (const collide::InputError& e) {  // a scene file that does not load
        last_error_ = e.what();
        return false;
    } catch (const collide::gpu::GpuError& e) {  // a GPU row with no context
        last_error_ = e.what();
        return false;
    }
    last_error_.clear();
    if (dim != dim_ && query_) query_ = query_in_other_dim(*query_, world_->bounds(), world->bounds(), dim);
    world_ = std::move(world);
    ++worlds_built_;
    arrivals_.clear();
    spawn_due_ = 0.0;
    scene_physics_ = world_->physics();
    if (physics && keep_physics) {
        world_->set_physics(*physics);
    } else if (physics) {
        // Swept steps and sleeping are the user's choice, not the scene's: they survive a
        // scene change.
        Physics p = scene_physics_;
        p.swept = physics->swept;
        p.sleep = physics->sleep;
        p.sleep_speed = physics->sleep_speed;
        p.sleep_time = physics->sleep_time;
        world_->set_physics(p);
    }
    dim_ = dim;
    scene_ = scene;
    count_ = count;
    seed_ = seed;
    broad_phase_ = algorithm;
    if (selected_ >= world_->body_count()) selected_ = collide::kNoBody;
    // Its pairs and contacts at once: paused, the stats, the partners and the structure
    // show the new world rather than zeros until the first step.
    world_->refresh_broad_phase();
    if (want_gpu_) {
        if (auto why = world_->set_gpu_world(true)) notice_ = "stays on the CPU world: " + *why;
    }
    history_.clear();  // another world: its past is not this one's
    history_.record(*world_);
    return true;
}

void Demo::update_race(bool stepped) {
    // A live race waits for the first step: before it the boxes are the scene's as built.
    if (!race_requested_ && !(race_live_ && stepped)) return;
    world_->race(race_live_ && !race_requested_, race_);
    race_requested_ = false;
}

void Demo::act(const action::SetBroadPhase& a) {
    notice_ = too_slow_for_the_world(a.name, world_->body_count()).value_or("");
    if (!notice_.empty()) return;  // the world keeps its algorithm
    try {
        if (!world_->set_broad_phase(a.name)) return;
    } catch (const collide::gpu::GpuError& e) {
        // A GPU row where no GL 4.3 context can be had: the world keeps its algorithm. A
        // broken invariant is a bug, not a message: it goes on up and stops the app.
        last_error_ = a.name + ": " + e.what();
        return;
    }
    last_error_.clear();
    broad_phase_ = a.name;
    view_.overlays.hidden_layers = 0;  // layer numbers mean something else in another algorithm
}

void Demo::act(const action::SetParam& a) {
    for (collide::Param& p : world_->broad_phase_params()) {
        if (p.name == a.name) p.value = std::clamp(a.value, p.min, p.max);
    }
}

void Demo::act(const action::SetPhysics& a) {
    const bool was_on_gpu = world_->on_gpu();
    world_->set_physics(a.physics);
    if (was_on_gpu && !world_->on_gpu()) {
        notice_ = "back on the CPU world: " + world_->gpu_world_refusal().value_or("");
    }
    history_.drop_after(world_->steps());  // the stored future had the old physics
}

void Demo::act(const action::SetGpuWorld& a) {
    want_gpu_ = a.on;
    if (auto why = world_->set_gpu_world(a.on)) {
        last_error_ = "the GPU world cannot take this world: " + *why;
        return;
    }
    last_error_.clear();
    notice_.clear();
    // The rewind buffer's snapshots restore into either world; a GPU world past
    // kGpuRewindBodies keeps none of its own, and record() starts the buffer afresh then.
    history_.record(*world_);
}

void Demo::act(const action::MoveBody& a) {
    if (a.id >= world_->body_count()) return;
    world_->move_body(a.id, a.pos, a.vel);
    // A paused world does not step: the broad phase is brought up to date here, so the
    // structure overlay and the panel show the body where it now is.
    if (paused_) world_->refresh_broad_phase();
    history_.drop_after(world_->steps());
}

void Demo::bodies_changed() {
    if (paused_) world_->refresh_broad_phase();
    history_.drop_after(world_->steps());
}

void Demo::act(const action::AddBody& a) {
    const std::optional<collide::BodyId> id = world_->add_body(a.pos, a.vel, a.radius);
    if (!id) {
        last_error_ = "bodies are added and removed on the CPU world only";
        return;
    }
    if (!arrivals_.empty()) arrivals_.push_back(*id);
    bodies_changed();
}

void Demo::act(const action::RemoveBody& a) {
    if (!world_->remove_body(a.id)) return;
    if (selected_ == a.id) selected_ = collide::kNoBody;
    bodies_changed();
}

void Demo::act(const action::RemoveRegion& a) {
    bool removed = false;
    for (collide::BodyId id = 0; id < world_->body_count(); ++id) {
        if (!world_->present(id)) continue;
        if (!a.region.contains(world_->position(id)) || !world_->remove_body(id)) continue;
        if (selected_ == id) selected_ = collide::kNoBody;
        removed = true;
    }
    if (removed) bodies_changed();
}

void Demo::spawn() {
    const float rate = spawn_rate();
    if (rate <= 0.0f || replay_ || world_->on_gpu()) return;
    spawn_due_ += static_cast<double>(rate) * static_cast<double>(physics().dt);
    if (spawn_due_ < 1.0) return;
    if (arrivals_.empty()) {  // the world's bodies as they are, oldest first by id
        for (collide::BodyId id = 0; id < world_->body_count(); ++id)
            if (world_->present(id)) arrivals_.push_back(id);
    }
    const Box3 world = world_->bounds();
    collide::Rng rng(seed_ ^ (ticks_ * 0x9e3779b97f4a7c15ull));
    const bool falls = physics().gravity > 0.0f;
    const auto present = [&] {
        const WorldCounts c = world_->counts();
        return c.moving + c.sleeping + c.fixed;
    };
    while (spawn_due_ >= 1.0) {
        spawn_due_ -= 1.0;
        // Recycling: the oldest body leaves once the world is back at its starting count.
        while (!arrivals_.empty() && present() >= count_) {
            const collide::BodyId oldest = arrivals_.front();
            arrivals_.pop_front();
            if (world_->present(oldest)) remove_body(oldest);
        }
        const float r = rng.uniform(0.5f, 1.0f);
        glm::vec3 at = rng.in_box<3>(world.lo + r, world.hi - r);
        at.y = world.hi.y - r;  // in from the top
        if (dim_ == 2) at.z = 0.0f;
        glm::vec3 v(0.0f);
        if (!falls) v = rng.direction<3>() * 2.0f;  // no gravity: they drift in
        if (dim_ == 2) v.z = 0.0f;
        add_body(at, v, r);
    }
}

void Demo::act(const action::Select& a) {
    selected_ = a.id < world_->body_count() ? a.id : collide::kNoBody;
}

void Demo::act(const action::Seek& a) {
    const WorldSnapshot* snapshot = history_.find(a.step);
    if (!snapshot) return;
    world_->restore(*snapshot);
    arrivals_.clear();  // the bodies present are the snapshot's
    paused_ = true;  // else the next frame would step away from it
    step_pending_ = false;
}

void Demo::act(const action::Check& a) {
    if (!replay_status_) return;
    ReplayStatus& r = *replay_status_;
    ++r.checks;
    if (world_->state_hash() == a.hash) return;
    ++r.failed;
    if (!r.first_failed) r.first_failed = world_->steps();
}

void Demo::step_back() {
    const std::uint64_t step = world_->steps();
    if (step > 0 && history_.find(step - 1)) seek(step - 1);
}

void Demo::step_forward() {
    if (history_.find(world_->steps() + 1)) {
        seek(world_->steps() + 1);
    } else {
        set_paused(true);
        step_once();
    }
}

std::vector<const collide::BroadPhaseEntry*> Demo::algorithms() const {
    std::vector<const collide::BroadPhaseEntry*> out;
    for (const collide::BroadPhaseEntry& e : collide::all_broadphases()) {
        if (e.supports(dim_)) out.push_back(&e);
    }
    return out;
}

float Demo::max_gravity() const {
    return std::max(4.0f * scene_physics_.gravity, 50.0f);
}

void Demo::apply_replay() {
    if (!replay_) return;
    ReplayStatus& r = *replay_status_;
    while (replay_next_ < replay_->entries.size() &&
           replay_->entries[replay_next_].tick <= ticks_) {
        const SessionEntry& e = replay_->entries[replay_next_++];
        if (const auto why = refusal(e.action)) {
            r.refused = r.path + ":" + std::to_string(e.line) + ": " + *why;
            last_error_ = r.refused;
            replay_next_ = replay_->entries.size();  // nothing after a refused action
            set_paused(true);
            return;
        }
        if (!std::holds_alternative<action::Check>(e.action)) ++r.applied;
        apply(e.action);
    }
    if (!r.finished && replay_next_ == replay_->entries.size() && replay_->end &&
        ticks_ >= *replay_->end) {
        r.finished = true;
        set_paused(true);  // where the recording stopped
    }
}

std::optional<std::string> Demo::refusal(const UserAction& a) const {
    const std::size_t n = world_->body_count();
    const auto missing = [&](collide::BodyId id) {
        return "body " + std::to_string(id) + " does not exist (the world has " +
               std::to_string(n) + " bodies)";
    };
    if (const auto* s = std::get_if<action::Select>(&a); s && s->id != collide::kNoBody) {
        if (s->id >= n) return "select: " + missing(s->id);
    }
    if (const auto* m = std::get_if<action::MoveBody>(&a); m && m->id >= n) {
        return "move: " + missing(m->id);
    }
    if (const auto* p = std::get_if<action::SetParam>(&a)) {
        std::string names;
        for (const collide::Param& q : world_->broad_phase_params()) {
            if (q.name == p->name) {
                char why[160];
                if (p->value < q.min || p->value > q.max) {
                    std::snprintf(why, sizeof why, "%g is outside %s's range %g to %g", p->value,
                                  broad_phase_.c_str(), q.min, q.max);
                } else if (!collide::param_kind_takes(q, p->value)) {
                    // As the command line refuses it: a slider could not have given it.
                    std::snprintf(why, sizeof why, "%g is not %s, which %s's '%s' takes",
                                  p->value, collide::param_kind_words(q), broad_phase_.c_str(),
                                  q.name);
                } else {
                    return std::nullopt;
                }
                return "param " + p->name + ": " + why;
            }
            names += (names.empty() ? "" : ", ") + std::string(q.name);
        }
        return "param: " + broad_phase_ + " has no parameter '" + collide::excerpt(p->name, 80) +
               "' (it has: " + (names.empty() ? "none" : names) + ")";
    }
    return std::nullopt;
}

bool Demo::update() {
    apply_replay();
    if (paused_ && !step_pending_) return false;
    step_pending_ = false;
    spawn();
    world_->step(selected_);
    ++ticks_;
    if (const std::size_t pairs = world_->counts().pairs_over_budget; pairs > 0) {
        // A pile whose pairs grow with the square of its bodies: paused, saying so, rather
        // than running out of memory a few steps on.
        set_paused(true);
        last_error_ = "paused: the broad phase found " + std::to_string(pairs) +
                      " pairs, over the pair budget of " + std::to_string(collide::kMaxPairs) +
                      " (bodies piled on one place?)";
    }
    history_.record(*world_);
    // On the GPU world a hash reads every body back (a long frame at a million), so there
    // the checks are taken only while a recording wants them.
    const bool check = !world_->on_gpu() || recorder_;
    if (ticks_ % kCheckEvery == 0 && check) log(action::Check{world_->state_hash()});
    return true;
}

void Demo::set_watching(bool on) {
    if (on) set_paused(true);
    watch_.set_open(on);
}

void Demo::update_watch(double seconds) {
    watch_.sync(*world_, broad_phase_, selected_, worlds_built_, query_);
    watch_.advance(seconds);
}

void Demo::start_recording(const std::string& path) {
    stop_recording();
    recorder_ = std::make_unique<SessionRecorder>(path, start_);
    for (const SessionEntry& e : log_) recorder_->write(e);
}

void Demo::stop_recording() {
    if (!recorder_) return;
    recorder_->finish(ticks_);
    recorder_.reset();
}

std::string Demo::session_summary() const {
    std::string out;
    if (recorder_ || replay_status_) {
        out += "collidoscope: state hash at step " + std::to_string(world_->steps()) + ": " +
               format_hash(world_->state_hash()) + "\n";
    }
    if (recorder_) {
        out += "collidoscope: recording to " + recorder_->path() + "\n";
    }
    if (replay_status_) {
        const ReplayStatus& r = *replay_status_;
        out += "collidoscope: replay of " + r.path + ": " + std::to_string(r.applied) + " of " +
               std::to_string(r.total) + " actions applied, " + std::to_string(r.checks) +
               " hash checks, ";
        out += r.first_failed ? std::to_string(r.failed) + " failed, the first at step " +
                                    std::to_string(*r.first_failed) + "\n"
                              : std::string("all matched\n");
        if (r.cut_short) {
            out += "collidoscope: " + r.path +
                   " has no 'end' line: the recording stopped early; replayed as far as it goes\n";
        }
        if (!r.refused.empty()) out += "collidoscope: replay refused: " + r.refused + "\n";
    }
    return out;
}

}  // namespace collidoscope
