#include "sim/session_file.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "tooling/input_error.hpp"
#include "tooling/parse.hpp"

namespace collidoscope {
namespace {

// The first line: this word, then the format's version (1 to kSessionVersion).
constexpr std::string_view kMagic = "collidoscope-session";
// No action comes near this; a longer line is not a session's, and reading on would let a
// file without newlines (/dev/zero) take all memory. The CSV loader caps its lines the same.
constexpr std::size_t kMaxLine = 4096;

// Reads the next line, without its newline, into `line` and counts it in `number`; false at
// the end of the file. `complete` says whether a newline ended it (the last line of a file
// cut short has none). Refuses a line over kMaxLine bytes or one that is not text.
bool read_line(std::istream& in, std::string& line, int& number, bool& complete) {
    if (!collide::read_capped_line(in, line, kMaxLine, complete)) return false;
    ++number;
    if (line.size() > kMaxLine) {
        throw collide::InputError("the line is longer than " + std::to_string(kMaxLine) +
                                  " bytes: '" + collide::excerpt(line, 80) + "'");
    }
    if (const auto at = collide::first_binary_byte(line)) {
        throw collide::InputError(std::to_string(*at + 1) + ": " +
                                  collide::describe_byte(line, *at) +
                                  "; a session file is UTF-8 text");
    }
    return true;
}

// The header's fields: the same words as the actions that change them.
void read_header_line(std::string_view line, SessionStart& start) {
    const UserAction a = parse_action(line);
    if (const auto* d = std::get_if<action::SetDim>(&a)) {
        start.dim = d->dim;
    } else if (const auto* s = std::get_if<action::SetScene>(&a)) {
        start.scene = s->name;
    } else if (const auto* c = std::get_if<action::SetCount>(&a)) {
        start.count = c->count;
    } else if (const auto* s = std::get_if<action::SetSeed>(&a)) {
        start.seed = s->seed;
    } else if (const auto* b = std::get_if<action::SetBroadPhase>(&a)) {
        start.broadphase = b->name;
    } else {
        throw collide::InputError("'" + collide::excerpt(split_words(line).front(), 80) +
                                  "' needs the step it happened at in front");
    }
}

// The first line's version: "collidoscope-session N" with N from 1 to kSessionVersion.
int read_version(const std::vector<std::string_view>& words) {
    const std::string expected = std::string(kMagic) + " " + std::to_string(kSessionVersion);
    if (words.front() != kMagic || words.size() != 2) {
        throw collide::InputError("not a session file: the first line must be '" + expected + "'");
    }
    const auto version = collide::parse_number<int>(words[1]);
    if (!version || *version < 1 || *version > kSessionVersion) {
        throw collide::InputError("'" + collide::excerpt(words[1], 80) +
                                  "' is not a session file version this build reads (1 to " +
                                  std::to_string(kSessionVersion) + ")");
    }
    return *version;
}

}  // namespace

Session load_session(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        throw collide::InputError(path + ": is a directory, not a session file");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw collide::InputError("cannot read session file '" + path + "'");
    Session session;
    std::string line;
    int number = 0;
    bool started = false;
    bool complete = true;
    try {
        while (read_line(in, line, number, complete)) {
            const std::vector<std::string_view> words = split_words(line);
            if (words.empty() || words.front().starts_with('#')) continue;
            if (!started) {
                session.start.version = read_version(words);
                started = true;
                continue;
            }
            if (session.end) throw collide::InputError("a line after 'end'");
            const std::string_view first = words.front();
            if (first == "end") {
                if (words.size() != 2) throw collide::InputError("'end' takes the last step");
                session.end = collide::parse_number<std::uint64_t>(words[1]);
                if (!session.end) {
                    throw collide::InputError("'" + collide::excerpt(words[1], 80) + "' " +
                                              collide::number_problem(words[1]));
                }
                continue;
            }
            const std::optional<std::uint64_t> tick = collide::parse_number<std::uint64_t>(first);
            if (!tick) {
                if (!session.entries.empty()) {
                    throw collide::InputError("'" + collide::excerpt(first, 80) +
                                              "' is not a step number");
                }
                read_header_line(line, session.start);
                continue;
            }
            if (!session.entries.empty() && *tick < session.entries.back().tick) {
                throw collide::InputError("step " + std::to_string(*tick) + " comes after step " +
                                          std::to_string(session.entries.back().tick));
            }
            const std::string_view text = std::string_view(line).substr(
                static_cast<std::size_t>(first.data() + first.size() - line.data()));
            try {
                session.entries.push_back({*tick, parse_action(text), number});
            } catch (const collide::InputError& e) {
                // A last line without its newline is where a copy or a crash cut the file.
                if (complete) throw;
                throw collide::InputError(std::string(e.what()) +
                                          " (the file ends here without a newline: cut short?)");
            }
        }
        if (!started) throw collide::InputError("empty: not a session file");
        if (session.start.scene.empty() || session.start.count == 0 ||
            session.start.broadphase.empty()) {
            throw collide::InputError("the header needs dim, scene, count, seed and broadphase");
        }
        if (session.end && !session.entries.empty() && *session.end < session.entries.back().tick) {
            throw collide::InputError("'end " + std::to_string(*session.end) +
                                      "' is before the last action");
        }
    } catch (const collide::InputError& e) {
        // A byte's column joins the line number ("file:3:12: byte ..."); else "file:3: ...".
        const std::string what = e.what();
        const bool column = !what.empty() && what[0] >= '1' && what[0] <= '9';
        throw collide::InputError(path + ":" + std::to_string(number) + (column ? ":" : ": ") +
                                  what);
    }
    return session;
}

SessionRecorder::SessionRecorder(const std::string& path, const SessionStart& start)
    : path_(path), out_(path) {
    if (!out_) throw collide::InputError("cannot write session file '" + path + "'");
    out_ << kMagic << " " << start.version << "\n# Replay with: collidoscope --replay " << path
         << "\n";
    // The header's lines are the actions that would set the same.
    for (const UserAction& a :
         {UserAction(action::SetDim{start.dim}), UserAction(action::SetScene{start.scene}),
          UserAction(action::SetCount{start.count}), UserAction(action::SetSeed{start.seed}),
          UserAction(action::SetBroadPhase{start.broadphase})}) {
        out_ << format_action(a) << "\n";
    }
    out_ << "# step action\n";
    out_.flush();
}

void SessionRecorder::write(const SessionEntry& entry) {
    if (!out_.is_open()) return;
    out_ << entry.tick << " " << format_action(entry.action) << "\n";
    out_.flush();  // a crash keeps every action up to it
}

void SessionRecorder::finish(std::uint64_t tick) {
    if (!out_.is_open()) return;
    out_ << "end " << tick << "\n";
    out_.close();
}

}  // namespace collidoscope
