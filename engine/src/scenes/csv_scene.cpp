// CSV scenes: a header row naming the columns (x,y,r or x,y,z,r; optional vx,vy[,vz] and
// static), then one body per row. '#' starts a comment. An optional line
// "world,lo...,hi..." before the header row sets the world box. Every row is checked
// before anything is returned, so a bad file loads nothing.
#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "collide/parse.hpp"
#include "collide/scenes.hpp"

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
    explicit CsvReader(const std::string& path) : path_(path), in_(path) {
        if (!in_) throw SceneError(path + ": cannot open the file");
    }

    // The next line with content, or nothing at end of file.
    std::optional<SourceLine> next() {
        std::string raw;
        while (std::getline(in_, raw)) {
            ++line_;
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
        throw SceneError(path_ + ":" + std::to_string(line) + ": " + reason);
    }
    [[noreturn]] void fail(const std::string& reason) const {
        throw SceneError(path_ + ": " + reason);
    }

    float number(std::string_view field, std::string_view column, std::size_t line) const {
        if (field.empty()) fail(line, "missing value for '" + std::string(column) + "'");
        const std::optional<float> v = parse_number<float>(field);
        if (!v)
            fail(line, "'" + std::string(field) + "' in column '" + std::string(column) + "' " +
                           number_problem(field));
        // Larger values overflow the simulation's arithmetic (squared distances, impulses).
        if (std::abs(*v) > kMaxValue) {
            fail(line, "'" + std::string(field) + "' in column '" + std::string(column) +
                           "' is out of range (|value| <= 1e9)");
        }
        return *v;
    }

    static constexpr float kMaxValue = 1e9f;

private:
    std::string path_;
    std::ifstream in_;
    std::size_t line_ = 0;
};

constexpr std::array<const char*, 3> kPos = {"x", "y", "z"};
constexpr std::array<const char*, 3> kVel = {"vx", "vy", "vz"};

// Reads the header (and any world line before it); returns the column of each name.
std::map<std::string, std::size_t, std::less<>> read_header(CsvReader& reader,
                                                            std::vector<float>& world,
                                                            std::size_t& world_line) {
    for (;;) {
        auto line = reader.next();
        if (!line) reader.fail("no header row (expected columns x,y,r or x,y,z,r)");
        const auto fields = split_fields(line->text);
        if (fields[0] == "world") {
            world.clear();
            world_line = line->number;
            for (std::size_t i = 1; i < fields.size(); ++i)
                world.push_back(reader.number(fields[i], "world", line->number));
            continue;
        }
        std::map<std::string, std::size_t, std::less<>> columns;
        for (std::size_t i = 0; i < fields.size(); ++i) {
            const std::string name(fields[i]);
            static const std::array<std::string_view, 8> kKnown = {"x",  "y",  "z",  "r",
                                                                   "vx", "vy", "vz", "static"};
            if (std::find(kKnown.begin(), kKnown.end(), name) == kKnown.end()) {
                reader.fail(line->number,
                            "unknown column '" + name + "' (known: x,y,z,r,vx,vy,vz,static)");
            }
            if (!columns.emplace(name, i).second)
                reader.fail(line->number, "column '" + name + "' appears twice");
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

}  // namespace

int csv_scene_dimension(const std::string& path) {
    CsvReader reader(path);
    std::vector<float> world;
    std::size_t world_line = 0;
    return read_header(reader, world, world_line).contains("z") ? 3 : 2;
}

template <int D>
Scene<D> load_csv_scene(const std::string& path) {
    CsvReader reader(path);
    std::vector<float> world;
    std::size_t world_line = 0;
    const auto columns = read_header(reader, world, world_line);
    const int file_dim = columns.contains("z") ? 3 : 2;
    if (file_dim != D) {
        throw SceneError(path + ": the file is " + std::to_string(file_dim) + "D (its header " +
                         (file_dim == 3 ? "has" : "has no") + " 'z' column) but " +
                         std::to_string(D) + "D was asked for");
    }

    Scene<D> scene;
    if (!world.empty()) {
        if (world.size() != 2 * D) {
            reader.fail(world_line, "the world line needs " + std::to_string(2 * D) +
                                        " numbers (lo then hi corner), not " +
                                        std::to_string(world.size()));
        }
        for (int k = 0; k < D; ++k) {
            scene.settings.bounds.lo[k] = world[k];
            scene.settings.bounds.hi[k] = world[D + k];
            if (!(world[k] < world[D + k]))
                reader.fail(world_line, "the world box is empty on axis " + std::string(kPos[k]));
        }
    }
    float max_radius = 0;
    Aabb<D> bounds = Aabb<D>::empty();
    while (auto line = reader.next()) {
        const auto fields = split_fields(line->text);
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
        if (r < 0)
            reader.fail(line->number, "negative radius " + std::string(fields[columns.at("r")]));
        const float fixed = value("static", 0.0f);
        if (fixed != 0.0f && fixed != 1.0f) {
            reader.fail(line->number, "'static' must be 0 or 1, not " +
                                          std::string(fields[columns.at("static")]));
        }
        if (!world.empty() && !scene.settings.bounds.contains(p)) {
            reader.fail(line->number,
                        "the body's centre lies outside the world box given on line " +
                            std::to_string(world_line));
        }
        scene.bodies.add(p, v, r, fixed == 1.0f);
        bounds.grow(Aabb<D>::around(p, 0.0f));
        max_radius = std::max(max_radius, r);
    }

    if (!world.empty()) return scene;
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

}  // namespace collide
