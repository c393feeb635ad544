// A session file: how the world was first built, then every user action with the step at
// which it happened, as readable lines (docs/app.md, "Rewind, record and replay"). --record
// writes one as the session goes (flushed line by line, so a crash leaves the actions up to it);
// --replay reads one back. The step in front of an action counts every step the session
// took, so rewinds never lower it; a replay applies an action before the step numbered
// after it, which is where the recording applied it.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "sim/session_action.hpp"

namespace collidoscope {

// The session file format this build writes. Version 2 numbers a large generated world
// along the Morton curve (BodyNumbering in sim_world.hpp); version 1 files replay with the
// generator's numbering, so their drags and selections land on the bodies they did.
// Version 3 worlds sleep (Physics::sleep) unless a `physics` line says not; older files
// replay without sleeping, as they were recorded.
inline constexpr int kSessionVersion = 3;

// The world a session starts from (as the command line builds it).
struct SessionStart {
    int dim = 2;
    std::string scene;
    std::size_t count = 0;
    std::uint64_t seed = 1;
    std::string broadphase;
    int version = kSessionVersion;  // the file's, for a replay
};

struct SessionEntry {
    std::uint64_t tick = 0;  // steps the session had taken
    UserAction action;
    int line = 0;  // where a loaded file had it (0 for a live session's)
};

struct Session {
    SessionStart start;
    std::vector<SessionEntry> entries;  // by tick, in the order they happened
    std::optional<std::uint64_t> end;   // the tick the recording stopped at, if it did
    // A recording with no 'end' line stopped early (a crash, a copy cut short): replayed as
    // far as it goes, and said.
};

// Reads a session file; throws collide::InputError naming the file and line.
Session load_session(const std::string& path);

// Writes a session file as it happens.
class SessionRecorder {
public:
    // Creates `path` and writes the header; throws collide::InputError if it cannot.
    SessionRecorder(const std::string& path, const SessionStart& start);
    void write(const SessionEntry& entry);
    // Writes the end line; nothing is written after it.
    void finish(std::uint64_t tick);
    const std::string& path() const { return path_; }

private:
    std::string path_;
    std::ofstream out_;
};

}  // namespace collidoscope
