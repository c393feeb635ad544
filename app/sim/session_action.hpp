// What a user can do to the simulation, as values: every change the Demo makes to its world
// or its choices goes through one UserAction (Demo::apply), so a session can be recorded as
// a list of them and replayed. Each has a one-line text form ("move 17 1.5 2 0 0 0 0"), the
// lines of a session file (session_file.hpp); docs/app.md lists them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <glm/glm.hpp>

#include "collide/core.hpp"
#include "common/geometry.hpp"
#include "sim/sim_world.hpp"

namespace collidoscope::action {

struct SetDim {
    int dim = 2;
};
struct SetScene {
    std::string name;
};
struct SetCount {
    std::size_t count = 0;
};
struct SetSeed {
    std::uint64_t seed = 0;
};
struct Reset {};
// A new world and algorithm at once (a preset): one rebuild rather than one per setting.
struct SetWorld {
    int dim = 2;
    std::string scene;
    std::size_t count = 0;
    std::uint64_t seed = 0;
    std::string broadphase;
};
struct SetBroadPhase {
    std::string name;
};
// A parameter of the current algorithm, by its name.
struct SetParam {
    std::string name;
    float value = 0.0f;
};
struct SetPhysics {
    Physics physics;
};
struct SetPaused {
    bool paused = false;
};
// The bodies move to the GPU world (gpu_handover.hpp) or back.
struct SetGpuWorld {
    bool on = false;
};
struct StepOnce {};
// Restore the rewind buffer's snapshot of world step `step`.
struct Seek {
    std::uint64_t step = 0;
};
// A drag: the body is put at `pos` with velocity `vel` (z = 0 in 2D).
struct MoveBody {
    collide::BodyId id = collide::kNoBody;
    glm::vec3 pos{0.0f};
    glm::vec3 vel{0.0f};
};
// A circle or sphere added at `pos` (the spray, the spawn rate); it takes the slot freed
// last, or a new one.
struct AddBody {
    glm::vec3 pos{0.0f};
    glm::vec3 vel{0.0f};
    float radius = 1.0f;
};
// A body removed, or every body whose centre lies in `region`.
struct RemoveBody {
    collide::BodyId id = collide::kNoBody;
};
struct RemoveRegion {
    Box3 region;
};
struct Select {
    collide::BodyId id = collide::kNoBody;
};
struct SetQuery {
    std::optional<Box3> region;
};
// Not a user's action: the world's state hash at this point of the recording, which a
// replay compares with its own.
struct Check {
    std::uint64_t hash = 0;
};

}  // namespace collidoscope::action

namespace collidoscope {

using UserAction =
    std::variant<action::SetDim, action::SetScene, action::SetCount, action::SetSeed, action::Reset,
                 action::SetWorld, action::SetBroadPhase, action::SetParam, action::SetPhysics,
                 action::SetPaused, action::SetGpuWorld, action::StepOnce, action::Seek,
                 action::MoveBody, action::AddBody, action::RemoveBody, action::RemoveRegion,
                 action::Select, action::SetQuery, action::Check>;

// "0x" and 16 hex digits.
std::string format_hash(std::uint64_t hash);

// The action's line, without the step in front: "broadphase morton-cells". Floats are
// written so that they read back bit for bit.
std::string format_action(const UserAction& action);
// The action of one line's text after the step; throws collide::InputError saying what is
// wrong (the caller adds the file and line).
UserAction parse_action(std::string_view text);

// The words of `text`, split at runs of spaces and tabs.
std::vector<std::string_view> split_words(std::string_view text);

}  // namespace collidoscope
