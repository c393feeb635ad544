// CSV scenes: a header row naming the columns (x,y,r or x,y,z,r; optional vx,vy[,vz] and
// static), then one body per row. '#' starts a comment. Optional lines before the header
// row: "world,lo...,hi..." sets the world box, and "gravity,gx,gy[,gz]", "restitution,e",
// "dt,s", "substeps,n", ... set the other WorldSettings (what save_csv_scene writes, so a
// saved world comes back with its physics). Every row is checked before anything is
// returned, so a bad file loads nothing.
//
// Implicit bodies: a row "implicit,x,y[,z],vx,vy[,vz],angle|qw,qx,qy,qz,spin|wx,wy,wz[,static]"
// followed by its rows "metaball,cx,cy[,cz],radius,power[,weight]" (in the body's frame).
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <istream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tooling/parse.hpp"
#include "tooling/scenes.hpp"

namespace collide {

namespace {

std::string_view trim(std::string_view s) {
    const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split_fields(std::string_view line) {
    auto fields = split(line, ',');
    for (auto& f : fields) f = trim(f);
    return fields;
}

// One line of the file without its comment, with its 1-based number.
struct SourceLine {
    std::string text;
    std::size_t number;
};

class CsvReader {
public:
    CsvReader(std::istream& in, std::string name) : name_(std::move(name)), in_(in) {}

    // The next line with content, or nothing at end of file.
    std::optional<SourceLine> next() {
        std::string raw;
        while (read_line(raw)) {
            if (line_ == 1 && raw.starts_with("\xEF\xBB\xBF"))
                raw.erase(0, 3);  // UTF-8 byte order mark
            const std::size_t hash = raw.find('#');
            if (hash != std::string::npos) raw.resize(hash);
            const std::string_view content = trim(raw);
            if (!content.empty()) return SourceLine{std::string(content), line_};
        }
        return std::nullopt;
    }

    [[noreturn]] void fail(std::size_t line, const std::string& reason) const {
        throw InputError(name_ + ":" + std::to_string(line) + ": " + reason);
    }
    [[noreturn]] void fail(const std::string& reason) const {
        throw InputError(name_ + ": " + reason);
    }

    float number(std::string_view field, std::string_view column, std::size_t line) const {
        if (field.empty()) fail(line, "missing value for '" + std::string(column) + "'");
        const std::optional<float> v = parse_number<float>(field);
        if (!v)
            fail(line, "'" + excerpt(field) + "' in column '" + std::string(column) + "' " +
                           number_problem(field));
        // Larger values overflow the simulation's arithmetic (squared distances, impulses).
        if (std::abs(*v) > kMaxValue) {
            fail(line, "'" + excerpt(field) + "' in column '" + std::string(column) +
                           "' is out of range (|value| <= 1e9)");
        }
        return *v;
    }

    static constexpr float kMaxValue = 1e9f;

    const std::string& name() const { return name_; }

    // No row of a scene comes near this; a longer line is not a scene's (and reading on
    // would let a file without newlines, such as /dev/zero, take all memory).
    static constexpr std::size_t kMaxLine = 4096;

private:
    // The next line (without its newline) into `raw`; false at end of file. Refuses a line
    // that is not text, naming the line and the byte's column.
    bool read_line(std::string& raw) {
        bool newline = false;
        if (!read_capped_line(in_, raw, kMaxLine, newline)) return false;
        ++line_;
        // A character cut by the length limit is not a bad byte.
        const std::string_view whole =
            raw.size() > kMaxLine ? std::string_view(raw).substr(0, kMaxLine - 4) : raw;
        if (const auto at = first_binary_byte(whole)) {
            throw InputError(name_ + ":" + std::to_string(line_) + ":" + std::to_string(*at + 1) +
                             ": " + describe_byte(raw, *at) +
                             "; a scene file is UTF-8 text (is this a binary file?)");
        }
        if (raw.size() > kMaxLine)
            fail(line_, "the line is longer than " + std::to_string(kMaxLine) + " bytes");
        return true;
    }

    std::string name_;
    std::istream& in_;
    std::size_t line_ = 0;
};

constexpr std::array<const char*, 3> kPos = {"x", "y", "z"};
constexpr std::array<const char*, 3> kVel = {"vx", "vy", "vz"};

// An implicit row and the metaball rows after it, checked when the body is complete.
template <int D>
struct PendingImplicit {
    std::size_t line = 0;
    Vec<D> pos{0.0f}, vel{0.0f};
    Rotation<D> rotation{};
    Spin<D> spin{};
    bool fixed = false;
    std::vector<Metaball<D>> balls;
};

template <int D>
PendingImplicit<D> read_implicit(const CsvReader& reader, const std::vector<std::string_view>& f,
                                 std::size_t line) {
    constexpr std::size_t kCount = D == 2 ? 6 : 13;  // numbers before the optional static
    constexpr const char* kForm = D == 2 ? "implicit,x,y,vx,vy,angle,spin[,static]"
                                         : "implicit,x,y,z,vx,vy,vz,qw,qx,qy,qz,wx,wy,wz[,static]";
    if (f.size() - 1 != kCount && f.size() - 1 != kCount + 1) {
        reader.fail(line, "an implicit row has " + std::to_string(f.size() - 1) +
                              " values; expected " + kForm);
    }
    static constexpr std::array<const char*, 14> kNames2 = {"x",     "y",    "vx",    "vy",
                                                            "angle", "spin", "static"};
    static constexpr std::array<const char*, 14> kNames3 = {
        "x", "y", "z", "vx", "vy", "vz", "qw", "qx", "qy", "qz", "wx", "wy", "wz", "static"};
    const auto& names = D == 2 ? kNames2 : kNames3;
    std::array<float, 14> v{};
    for (std::size_t i = 1; i < f.size(); ++i) v[i - 1] = reader.number(f[i], names[i - 1], line);
    PendingImplicit<D> out;
    out.line = line;
    for (int k = 0; k < D; ++k) {
        out.pos[k] = v[k];
        out.vel[k] = v[D + k];
    }
    if constexpr (D == 2) {
        out.rotation = v[4];
        out.spin = v[5];
    } else {
        const glm::quat q(v[6], v[7], v[8], v[9]);
        if (!(glm::dot(q, q) > 1e-12f)) reader.fail(line, "the quaternion qw,qx,qy,qz is zero");
        // A saved quaternion is unit to float precision: keep its bits, so that a saved
        // world reloads identically; only a hand-written one is normalized.
        out.rotation = std::abs(glm::dot(q, q) - 1.0f) <= 1e-6f ? q : glm::normalize(q);
        out.spin = Vec<3>(v[10], v[11], v[12]);
    }
    if (f.size() - 1 == kCount + 1) {
        const float fixed = v[kCount];
        if (fixed != 0.0f && fixed != 1.0f)
            reader.fail(line, "'static' must be 0 or 1, not " + excerpt(f.back()));
        out.fixed = fixed == 1.0f;
    }
    return out;
}

template <int D>
Metaball<D> read_metaball(const CsvReader& reader, const std::vector<std::string_view>& f,
                          std::size_t line) {
    const std::size_t values = f.size() - 1;
    if (values != D + 2 && values != D + 3) {
        reader.fail(line, "a metaball row has " + std::to_string(values) + " values; expected " +
                              (D == 2 ? "metaball,cx,cy,radius,power[,weight]"
                                      : "metaball,cx,cy,cz,radius,power[,weight]"));
    }
    static constexpr std::array<const char*, 3> kCentre = {"cx", "cy", "cz"};
    Metaball<D> m;
    for (int k = 0; k < D; ++k) m.centre[k] = reader.number(f[1 + k], kCentre[k], line);
    m.radius = reader.number(f[1 + D], "radius", line);
    m.power = reader.number(f[2 + D], "power", line);
    if (values == D + 3) m.weight = reader.number(f[3 + D], "weight", line);
    if (!(m.radius > 0.0f))
        reader.fail(line, "metaball radius " + excerpt(f[1 + D]) + " must be > 0");
    if (!(m.power > 0.0f))
        reader.fail(line, "metaball power " + excerpt(f[2 + D]) + " must be > 0");
    return m;
}

// The lines before the header ("world", and the settings a saved world carries): the
// numbers on each, by keyword, with the line they came from.
struct PreambleLine {
    std::vector<float> values;
    std::size_t line = 0;
};
using Preamble = std::map<std::string, PreambleLine, std::less<>>;

constexpr std::array<std::string_view, 11> kPreambleKeys = {
    "world",    "gravity",           "restitution",         "dt",
    "substeps", "solver_iterations", "position_iterations", "position_correction",
    "swept",    "count_tunnelling",  "use_signature"};

// Reads the header (and the preamble lines before it); returns the column of each name.
std::map<std::string, std::size_t, std::less<>> read_header(CsvReader& reader, Preamble& preamble) {
    for (;;) {
        auto line = reader.next();
        if (!line) reader.fail("no header row (expected columns x,y,r or x,y,z,r)");
        const auto fields = split_fields(line->text);
        if (std::find(kPreambleKeys.begin(), kPreambleKeys.end(), fields[0]) !=
            kPreambleKeys.end()) {
            PreambleLine& entry = preamble[std::string(fields[0])];  // a later line wins
            entry = {{}, line->number};
            for (std::size_t i = 1; i < fields.size(); ++i)
                entry.values.push_back(reader.number(fields[i], fields[0], line->number));
            continue;
        }
        std::map<std::string, std::size_t, std::less<>> columns;
        for (std::size_t i = 0; i < fields.size(); ++i) {
            const std::string name(fields[i]);
            static const std::array<std::string_view, 8> kKnown = {"x",  "y",  "z",  "r",
                                                                   "vx", "vy", "vz", "static"};
            if (std::find(kKnown.begin(), kKnown.end(), name) == kKnown.end()) {
                reader.fail(line->number, "unknown column '" + excerpt(name) +
                                              "' (known: x,y,z,r,vx,vy,vz,static)");
            }
            if (!columns.emplace(name, i).second)
                reader.fail(line->number, "column '" + excerpt(name) + "' appears twice");
        }
        for (const char* needed : {"x", "y", "r"}) {
            if (!columns.contains(needed)) {
                reader.fail(line->number, std::string("the header has no '") + needed + "' column");
            }
        }
        if (columns.contains("vz") && !columns.contains("z")) {
            reader.fail(line->number, "column 'vz' in a 2D file (the header has no 'z' column)");
        }
        return columns;
    }
}

// Sets what the preamble gives; the rest keeps WorldSettings' defaults.
template <int D>
void apply_settings(const CsvReader& reader, const Preamble& preamble, WorldSettings<D>& s) {
    // Named copies of the pair: lambdas below capture them (clang 14 cannot capture a
    // structured binding).
    for (const auto& item : preamble) {
        const std::string& key = item.first;
        const PreambleLine& entry = item.second;
        const std::vector<float>& v = entry.values;
        const std::size_t want = key == "world" ? 2 * D : key == "gravity" ? D : 1;
        if (v.size() != want) {
            reader.fail(entry.line, "the " + key + " line needs " + std::to_string(want) +
                                        (want == 1 ? " number" : " numbers") +
                                        (key == "world" ? " (lo then hi corner)" : "") + ", not " +
                                        std::to_string(v.size()));
        }
        const auto check = [&](bool ok, const char* rule) {
            if (!ok) reader.fail(entry.line, key + " must be " + rule);
        };
        const auto whole = [&](float lo, float hi) {
            check(v[0] == std::floor(v[0]) && v[0] >= lo && v[0] <= hi,
                  lo == 0 ? "a whole number from 0 to 1000" : "a whole number from 1 to 1000");
            return static_cast<int>(v[0]);
        };
        const auto flag = [&] {
            check(v[0] == 0.0f || v[0] == 1.0f, "0 or 1");
            return v[0] == 1.0f;
        };
        if (key == "world") {
            for (int k = 0; k < D; ++k) {
                s.bounds.lo[k] = v[k];
                s.bounds.hi[k] = v[D + k];
                if (!(v[k] < v[D + k]))
                    reader.fail(entry.line,
                                "the world box is empty on axis " + std::string(kPos[k]));
            }
        } else if (key == "gravity") {
            for (int k = 0; k < D; ++k) s.gravity[k] = v[k];
        } else if (key == "restitution") {
            check(v[0] >= 0.0f, ">= 0");
            s.restitution = v[0];
        } else if (key == "dt") {
            check(v[0] > 0.0f, "> 0");
            s.dt = v[0];
        } else if (key == "substeps") {
            s.substeps = whole(1, 1000);
        } else if (key == "solver_iterations") {
            s.solver_iterations = whole(0, 1000);
        } else if (key == "position_iterations") {
            s.position_iterations = whole(0, 1000);
        } else if (key == "position_correction") {
            check(v[0] >= 0.0f && v[0] <= 1.0f, "from 0 to 1");
            s.position_correction = v[0];
        } else if (key == "swept") {
            s.swept = flag();
        } else if (key == "count_tunnelling") {
            s.count_tunnelling = flag();
        } else {
            s.use_signature = flag();
        }
    }
}

// The file at `path`, open; refuses a directory or a file that cannot be read.
std::ifstream open_csv(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw InputError(excerpt(path, 200) + ": is a directory, not a CSV file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(excerpt(path, 200) + ": cannot open the file");
    return in;
}

}  // namespace

int csv_scene_dimension(const std::string& path) {
    std::ifstream in = open_csv(path);
    CsvReader reader(in, excerpt(path, 200));
    Preamble preamble;
    return read_header(reader, preamble).contains("z") ? 3 : 2;
}

int scene_dimension(std::string_view scene, std::optional<int> asked) {
    if (!is_csv_scene(scene)) return asked.value_or(2);
    const std::string path(scene.substr(kCsvPrefix.size()));
    if (path.empty()) throw InputError("'csv:' needs a path, as in csv:bodies.csv");
    const int file_dim = csv_scene_dimension(path);
    if (asked && *asked != file_dim) {
        throw InputError("'" + excerpt(path, 200) + "' is a " + std::to_string(file_dim) +
                         "D scene but --dim is " + std::to_string(*asked));
    }
    return file_dim;
}

template <int D>
Scene<D> load_csv_scene(const std::string& path) {
    std::ifstream in = open_csv(path);
    return load_csv_scene_from<D>(in, excerpt(path, 200));
}

template <int D>
Scene<D> load_csv_scene_from(std::istream& in, const std::string& name) {
    CsvReader reader(in, name);
    Preamble preamble;
    const auto columns = read_header(reader, preamble);
    const int file_dim = columns.contains("z") ? 3 : 2;
    if (file_dim != D) {
        throw InputError(name + ": the file is " + std::to_string(file_dim) + "D (its header " +
                         (file_dim == 3 ? "has" : "has no") + " 'z' column) but " +
                         std::to_string(D) + "D was asked for");
    }

    Scene<D> scene;
    apply_settings<D>(reader, preamble, scene.settings);
    const bool has_world = preamble.contains("world");
    const std::size_t world_line = has_world ? preamble.at("world").line : 0;
    float max_radius = 0;
    Aabb<D> bounds = Aabb<D>::empty();
    std::optional<PendingImplicit<D>> pending;
    // Builds the implicit body read so far (its shape checked as a whole: a positive
    // metaball, and the library's own checks, reported at the implicit row's line).
    const auto finish_implicit = [&] {
        if (!pending) return;
        if (pending->balls.empty())
            reader.fail(pending->line, "implicit body has no metaball rows after it");
        std::shared_ptr<const ImplicitModel<D>> model;
        try {
            model = ImplicitModel<D>::build(pending->balls);
        } catch (const std::invalid_argument& e) {
            reader.fail(pending->line, std::string("implicit body: ") + e.what());
        }
        scene.bodies.models.push_back(model);
        scene.bodies.add_implicit(pending->pos, pending->vel,
                                  static_cast<std::int32_t>(scene.bodies.models.size() - 1),
                                  pending->rotation, pending->spin, pending->fixed);
        bounds.grow(Aabb<D>::around(pending->pos, 0.0f));
        max_radius = std::max(max_radius, scene.bodies.radius.back());
        pending.reset();
    };
    while (auto line = reader.next()) {
        const auto fields = split_fields(line->text);
        if (fields[0] == "metaball") {
            if (!pending)
                reader.fail(line->number, "a metaball row with no implicit row before it");
            pending->balls.push_back(read_metaball<D>(reader, fields, line->number));
            continue;
        }
        finish_implicit();
        if (scene.bodies.size() >= kMaxBodies) {
            reader.fail(line->number, "more than " + std::to_string(kMaxBodies) + " bodies");
        }
        if (fields[0] == "implicit") {
            pending = read_implicit<D>(reader, fields, line->number);
            if (has_world && !scene.settings.bounds.contains(pending->pos)) {
                reader.fail(line->number,
                            "the body's centre lies outside the world box given on line " +
                                std::to_string(world_line));
            }
            continue;
        }
        if (fields.size() < columns.size()) {
            reader.fail(line->number, "missing field: " + std::to_string(fields.size()) + " of " +
                                          std::to_string(columns.size()) + " columns");
        }
        if (fields.size() > columns.size()) {
            reader.fail(line->number, "too many fields: " + std::to_string(fields.size()) +
                                          " for " + std::to_string(columns.size()) + " columns");
        }
        if (scene.bodies.size() >= kMaxBodies) {
            reader.fail(line->number, "more than " + std::to_string(kMaxBodies) + " bodies");
        }
        const auto value = [&](const char* name, float fallback) {
            const auto it = columns.find(name);
            return it == columns.end() ? fallback
                                       : reader.number(fields[it->second], name, line->number);
        };
        Vec<D> p, v;
        for (int k = 0; k < D; ++k) {
            p[k] = value(kPos[k], 0.0f);
            v[k] = value(kVel[k], 0.0f);
        }
        const float r = value("r", 0.0f);
        // A point has no size to draw, pick or collide with: refused rather than invisible.
        if (!(r > 0)) {
            reader.fail(line->number, (r < 0 ? "negative radius " : "radius ") +
                                          excerpt(fields[columns.at("r")]) +
                                          (r < 0 ? "" : ": a body's radius must be > 0"));
        }
        const float fixed = value("static", 0.0f);
        if (fixed != 0.0f && fixed != 1.0f) {
            reader.fail(line->number,
                        "'static' must be 0 or 1, not " + excerpt(fields[columns.at("static")]));
        }
        if (has_world && !scene.settings.bounds.contains(p)) {
            reader.fail(line->number,
                        "the body's centre lies outside the world box given on line " +
                            std::to_string(world_line));
        }
        scene.bodies.add(p, v, r, fixed == 1.0f);
        bounds.grow(Aabb<D>::around(p, 0.0f));
        max_radius = std::max(max_radius, r);
    }
    finish_implicit();

    if (has_world) return scene;
    if (scene.bodies.size() == 0) {
        scene.settings.bounds = {Vec<D>(0.0f), Vec<D>(1.0f)};
    } else {
        const float pad = max_radius > 0 ? max_radius : 1.0f;
        scene.settings.bounds = {bounds.lo - Vec<D>(pad), bounds.hi + Vec<D>(pad)};
    }
    return scene;
}

template Scene<2> load_csv_scene<2>(const std::string&);
template Scene<3> load_csv_scene<3>(const std::string&);
template Scene<2> load_csv_scene_from<2>(std::istream&, const std::string&);
template Scene<3> load_csv_scene_from<3>(std::istream&, const std::string&);

}  // namespace collide
