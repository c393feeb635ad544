#include "demo.hpp"

#include <algorithm>
#include <stdexcept>

#include "tooling/scene_names.hpp"

namespace collidoscope {

Demo::Demo(const Options& options)
    : dim_(options.dim),
      scene_(options.scene),
      count_(options.count),
      seed_(options.seed),
      broad_phase_(options.broadphase),
      paused_(options.paused),
      race_live_(options.race) {
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
    world_ = make_sim_world(dim_, scene_, count_, seed_, broad_phase_);
    if (scene_is_csv()) count_ = world_->body_count();  // the file decides
    scene_physics_ = world_->physics();
    if (options.swept) {
        Physics p = scene_physics_;
        p.swept = true;
        world_->set_physics(p);
    }
    view_.overlays = options.overlays;
    select(options.select);
    query_ = options.query;
}

void Demo::set_dim(int dim) {
    if (dim == dim_) return;
    std::string scene = scene_;
    // A CSV file has one dimension; leave it for the first generated scene.
    auto it = std::find_if(scenes_.begin(), scenes_.end(),
                           [&](const SceneChoice& s) { return s.name == scene_; });
    if (it == scenes_.end() || (it->dim != 0 && it->dim != dim)) scene = scenes_.front().name;
    rebuild(dim, scene, count_, seed_, false);
}

void Demo::set_scene(const std::string& name) {
    if (name != scene_) rebuild(dim_, name, count_, seed_, false);
}

void Demo::set_count(std::size_t count) {
    if (count != count_) rebuild(dim_, scene_, count, seed_, true);
}

void Demo::set_seed(std::uint64_t seed) {
    if (seed != seed_) rebuild(dim_, scene_, count_, seed, true);
}

void Demo::reset() {
    rebuild(dim_, scene_, count_, seed_, true);
}

bool Demo::rebuild(int dim, const std::string& scene, std::size_t count, std::uint64_t seed,
                   bool keep_physics) {
    // Keep the algorithm across dimensions when it exists in both.
    std::string algorithm = broad_phase_;
    const collide::BroadPhaseEntry* entry = collide::find_broadphase(algorithm);
    if (!entry || !entry->supports(dim)) algorithm = std::string(collide::kDefaultBroadPhase);
    const Physics physics = world_ ? world_->physics() : Physics{};
    std::unique_ptr<SimWorld> world;
    try {
        world = make_sim_world(dim, scene, count, seed, algorithm);
    } catch (const std::exception& e) {
        last_error_ = e.what();
        return false;
    }
    last_error_.clear();
    if (dim != dim_) query_.reset();  // a 2D rectangle means nothing in 3D, and back
    world_ = std::move(world);
    scene_physics_ = world_->physics();
    if (keep_physics) {
        world_->set_physics(physics);
    } else if (physics.swept) {
        // Swept steps are the user's choice, not the scene's: they survive a scene change.
        Physics p = scene_physics_;
        p.swept = true;
        world_->set_physics(p);
    }
    dim_ = dim;
    scene_ = scene;
    count_ = count;
    seed_ = seed;
    broad_phase_ = algorithm;
    if (selected_ >= world_->body_count()) selected_ = collide::kNoBody;
    return true;
}

void Demo::update_race(bool stepped) {
    // A live race waits for the first step: before it the boxes are the scene's as built.
    if (!race_requested_ && !(race_live_ && stepped)) return;
    world_->race(race_live_ && !race_requested_, race_);
    race_requested_ = false;
}

bool Demo::set_broad_phase(const std::string& name) {
    if (!world_->set_broad_phase(name)) return false;
    broad_phase_ = name;
    view_.overlays.hidden_layers = 0;  // layer numbers mean something else in another algorithm
    return true;
}

std::vector<const collide::BroadPhaseEntry*> Demo::algorithms() const {
    std::vector<const collide::BroadPhaseEntry*> out;
    for (const collide::BroadPhaseEntry& e : collide::broadphases()) {
        if (e.supports(dim_)) out.push_back(&e);
    }
    return out;
}

float Demo::max_gravity() const {
    return std::max(4.0f * scene_physics_.gravity, 50.0f);
}

bool Demo::update() {
    if (paused_ && !step_pending_) return false;
    step_pending_ = false;
    world_->step();
    return true;
}

void Demo::select(collide::BodyId id) {
    selected_ = id < world_->body_count() ? id : collide::kNoBody;
}

}  // namespace collidoscope
