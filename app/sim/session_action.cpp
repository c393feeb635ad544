#include "sim/session_action.hpp"

#include <charconv>
#include <cinttypes>
#include <cstdio>

#include "collide/gpu/catalog.hpp"
#include "cli/launch_options.hpp"
#include "tooling/input_error.hpp"
#include "tooling/parse.hpp"

namespace collidoscope {
namespace {

template <typename... F>
struct Overloaded : F... {
    using F::operator()...;
};
template <typename... F>
Overloaded(F...) -> Overloaded<F...>;  // clang 14 (the browser build's) needs the guide

// The shortest text that reads back as the same float.
std::string text(float v) {
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    return std::string(buf, end);
}

std::string text(const glm::vec3& v) {
    return text(v.x) + " " + text(v.y) + " " + text(v.z);
}

std::string id_text(collide::BodyId id) {
    return id == collide::kNoBody ? "none" : std::to_string(id);
}

[[noreturn]] void fail(const std::string& what) {
    throw collide::InputError(what);
}

// A word of the file in quotes, as a message shows it: at most 80 bytes, control bytes
// escaped (a 20 MB word or a NUL byte stays out of the terminal).
std::string quoted(std::string_view word) {
    return "'" + collide::excerpt(word, 80) + "'";
}

// The words of one action after its keyword, checked for their count.
class Words {
public:
    Words(std::string_view keyword, std::vector<std::string_view> words, std::size_t count)
        : words_(std::move(words)) {
        if (words_.size() != count + 1) {
            std::string message = "'";
            message.append(keyword).append("' takes ").append(std::to_string(count));
            message.append(count == 1 ? " value, not " : " values, not ");
            fail(message.append(std::to_string(words_.size() - 1)));
        }
    }
    std::string_view operator[](std::size_t i) const { return words_[i + 1]; }

    template <typename T>
    T number(std::size_t i) const {
        const std::string_view s = (*this)[i];
        const std::optional<T> v = collide::parse_number<T>(s);
        if (!v) fail(quoted(s) + " " + collide::number_problem(s));
        return *v;
    }
    bool flag(std::size_t i) const {
        const auto v = number<int>(i);
        if (v != 0 && v != 1) fail(quoted((*this)[i]) + " is neither 0 nor 1");
        return v == 1;
    }
    glm::vec3 vec3(std::size_t i) const {
        return {number<float>(i), number<float>(i + 1), number<float>(i + 2)};
    }
    collide::BodyId id(std::size_t i) const {
        if ((*this)[i] == "none") return collide::kNoBody;
        const auto id = number<collide::BodyId>(i);
        // The largest number is the app's "no body": only the word says that.
        if (id == collide::kNoBody)
            fail(quoted((*this)[i]) + " is not a body id ('none' selects nothing)");
        return id;
    }

private:
    std::vector<std::string_view> words_;
};

// The text from word `i` of `line` to its end, for names that may hold spaces.
std::string rest_of(std::string_view line, const std::vector<std::string_view>& words,
                    std::size_t i) {
    if (i >= words.size()) return {};
    std::string_view rest = line.substr(static_cast<std::size_t>(words[i].data() - line.data()));
    return std::string(rest.substr(0, rest.find_last_not_of(" \t\r") + 1));
}

}  // namespace

std::string format_hash(std::uint64_t hash) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%016" PRIx64, hash);
    return buf;
}

std::vector<std::string_view> split_words(std::string_view text) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t start = text.find_first_not_of(" \t\r", i);
        if (start == std::string_view::npos) break;
        const std::size_t end = std::min(text.find_first_of(" \t\r", start), text.size());
        out.push_back(text.substr(start, end - start));
        i = end;
    }
    return out;
}

std::string format_action(const UserAction& action) {
    using namespace action;
    return std::visit(
        Overloaded{
            [](const SetDim& a) { return "dim " + std::to_string(a.dim); },
            [](const SetScene& a) { return "scene " + a.name; },
            [](const SetCount& a) { return "count " + std::to_string(a.count); },
            [](const SetSeed& a) { return "seed " + std::to_string(a.seed); },
            [](const Reset&) { return std::string("reset"); },
            [](const SetWorld& a) {
                return "world " + std::to_string(a.dim) + " " + std::to_string(a.count) + " " +
                       std::to_string(a.seed) + " " + a.broadphase + " " + a.scene;
            },
            [](const SetBroadPhase& a) { return "broadphase " + a.name; },
            [](const SetParam& a) { return "param " + text(a.value) + " " + a.name; },
            [](const SetPhysics& a) {
                const Physics& p = a.physics;
                return "physics " + text(p.restitution) + " " + text(p.gravity) + " " + text(p.dt) +
                       " " + std::to_string(int(p.swept)) + " " +
                       std::to_string(int(p.count_tunnelling)) + " " + std::to_string(int(p.sleep)) +
                       " " + text(p.sleep_speed) + " " + text(p.sleep_time);
            },
            [](const SetPaused& a) { return "pause " + std::to_string(int(a.paused)); },
            [](const SetGpuWorld& a) { return "gpu " + std::to_string(int(a.on)); },
            [](const StepOnce&) { return std::string("step"); },
            [](const Seek& a) { return "seek " + std::to_string(a.step); },
            [](const MoveBody& a) {
                return "move " + std::to_string(a.id) + " " + text(a.pos) + " " + text(a.vel);
            },
            [](const AddBody& a) {
                return "add " + text(a.pos) + " " + text(a.vel) + " " + text(a.radius);
            },
            [](const RemoveBody& a) { return "remove " + id_text(a.id); },
            [](const RemoveRegion& a) {
                return "remove-region " + text(a.region.lo) + " " + text(a.region.hi);
            },
            [](const Select& a) { return "select " + id_text(a.id); },
            [](const SetQuery& a) {
                return a.region ? "query " + text(a.region->lo) + " " + text(a.region->hi)
                                : std::string("query none");
            },
            [](const Check& a) { return "check " + format_hash(a.hash); },
        },
        action);
}

UserAction parse_action(std::string_view line) {
    using namespace action;
    std::vector<std::string_view> words = split_words(line);
    if (words.empty()) fail("an action is missing after the step");
    const std::string_view key = words.front();
    const auto take = [&](std::size_t count) { return Words(key, words, count); };
    if (key == "scene") {
        // The rest of the line: a CSV path may hold spaces.
        std::string name = rest_of(line, words, 1);
        if (name.empty()) fail("'scene' takes a scene name");
        return SetScene{std::move(name)};
    }
    const auto dim_of = [](int dim) {
        if (dim != 2 && dim != 3) fail("dimension " + std::to_string(dim) + " is neither 2 nor 3");
        return dim;
    };
    const auto algorithm_of = [](std::string_view name) {
        if (!collide::find_any_broadphase(name)) fail("unknown algorithm " + quoted(name));
        return std::string(name);
    };
    if (key == "dim") return SetDim{dim_of(take(1).number<int>(0))};
    if (key == "world") {
        // The scene last: a CSV path may hold spaces.
        if (words.size() < 6) fail("'world' takes a dimension, count, seed, algorithm and scene");
        const Words w(key, {words.begin(), words.begin() + 5}, 4);
        const auto n = w.number<std::size_t>(1);
        if (n > kMaxAppBodies) fail("count " + std::to_string(n) + " is over the maximum");
        return SetWorld{dim_of(w.number<int>(0)), rest_of(line, words, 5), n,
                        w.number<std::uint64_t>(2), algorithm_of(w[3])};
    }
    if (key == "count") {
        const auto n = take(1).number<std::size_t>(0);
        if (n < 1 || n > kMaxAppBodies) {
            fail("count " + std::to_string(n) + " is not from 1 to " +
                 std::to_string(kMaxAppBodies));
        }
        return SetCount{n};
    }
    if (key == "seed") return SetSeed{take(1).number<std::uint64_t>(0)};
    if (key == "reset") {
        take(0);
        return Reset{};
    }
    if (key == "broadphase") return SetBroadPhase{algorithm_of(take(1)[0])};
    if (key == "param") {
        // The value first: names hold spaces ("margin (box size)").
        if (words.size() < 3) fail("'param' takes a value and a parameter name");
        const std::optional<float> value = collide::parse_number<float>(words[1]);
        if (!value) fail(quoted(words[1]) + " " + collide::number_problem(words[1]));
        return SetParam{rest_of(line, words, 2), *value};
    }
    if (key == "physics") {
        // Five values before sleeping (session version 3): those worlds did not sleep.
        const Words w = take(words.size() == 6 ? 5 : 8);
        Physics p;
        p.restitution = w.number<float>(0);
        p.gravity = w.number<float>(1);
        p.dt = w.number<float>(2);
        if (!(p.dt > 0.0f)) fail("time step " + std::string(w[2]) + " must be > 0");
        p.swept = w.flag(3);
        p.count_tunnelling = w.flag(4);
        p.sleep = false;
        if (words.size() > 6) {
            p.sleep = w.flag(5);
            p.sleep_speed = w.number<float>(6);
            p.sleep_time = w.number<float>(7);
            if (!(p.sleep_speed >= 0.0f)) fail("sleep speed " + std::string(w[6]) + " must be >= 0");
            if (!(p.sleep_time > 0.0f)) fail("sleep time " + std::string(w[7]) + " must be > 0");
        }
        return SetPhysics{p};
    }
    if (key == "pause") return SetPaused{take(1).flag(0)};
    if (key == "gpu") return SetGpuWorld{take(1).flag(0)};
    if (key == "step") {
        take(0);
        return StepOnce{};
    }
    if (key == "seek") return Seek{take(1).number<std::uint64_t>(0)};
    if (key == "move") {
        const Words w = take(7);
        return MoveBody{w.id(0), w.vec3(1), w.vec3(4)};
    }
    if (key == "add") {
        const Words w = take(7);
        const float r = w.number<float>(6);
        if (!(r > 0.0f)) fail("radius " + std::string(w[6]) + " must be > 0");
        return AddBody{w.vec3(0), w.vec3(3), r};
    }
    if (key == "remove") return RemoveBody{take(1).id(0)};
    if (key == "remove-region") {
        const Words w = take(6);
        const Box3 box{w.vec3(0), w.vec3(3)};
        for (int k = 0; k < 3; ++k) {
            if (box.lo[k] > box.hi[k]) fail("the region's low corner is above its high corner");
        }
        return RemoveRegion{box};
    }
    if (key == "select") return Select{take(1).id(0)};
    if (key == "query") {
        if (words.size() == 2 && words[1] == "none") return SetQuery{};
        const Words w = take(6);
        const Box3 box{w.vec3(0), w.vec3(3)};
        for (int k = 0; k < 3; ++k) {
            if (box.lo[k] > box.hi[k]) fail("the query's low corner is above its high corner");
        }
        return SetQuery{box};
    }
    if (key == "check") {
        const std::string_view h = take(1)[0];
        std::uint64_t hash = 0;
        const char* end = h.data() + h.size();
        if (!h.starts_with("0x") || std::from_chars(h.data() + 2, end, hash, 16).ptr != end ||
            h.size() == 2) {
            fail(quoted(h) + " is not a hash (0x and hex digits)");
        }
        return Check{hash};
    }
    fail("unknown action " + quoted(key));
}

}  // namespace collidoscope
