// Writing a world as a CSV scene (the format csv_scene.cpp reads, see docs/scenes.md): the
// settings lines, the header, then one row per body in id order. Floats are written in the
// shortest form that std::from_chars turns back into the same float, so a saved world
// reloads bit for bit.
#include <charconv>
#include <fstream>
#include <stdexcept>
#include <string>

#include "tooling/scenes.hpp"

namespace collide {

namespace {

class RowWriter {
public:
    // Starts a row with its first field.
    RowWriter& begin(const char* first) {
        text_ += first;
        return *this;
    }
    RowWriter& begin(float first) {
        append(first);
        return *this;
    }
    RowWriter& operator<<(float v) {
        text_ += ',';
        append(v);
        return *this;
    }
    RowWriter& operator<<(int v) {
        text_ += ',';
        text_ += std::to_string(v);
        return *this;
    }
    template <int D>
    RowWriter& operator<<(const Vec<D>& v) {
        for (int k = 0; k < D; ++k) *this << v[k];
        return *this;
    }
    void end() { text_ += '\n'; }
    const std::string& text() const { return text_; }

private:
    void append(float v) {
        char buffer[32];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
        text_.append(buffer, result.ptr);
    }

    std::string text_;
};

template <int D>
void write_settings(RowWriter& out, const WorldSettings<D>& s) {
    out.begin("world") << s.bounds.lo << s.bounds.hi;
    out.end();
    out.begin("gravity") << s.gravity;
    out.end();
    (out.begin("restitution") << s.restitution).end();
    (out.begin("dt") << s.dt).end();
    (out.begin("substeps") << s.substeps).end();
    (out.begin("solver_iterations") << s.solver_iterations).end();
    (out.begin("position_iterations") << s.position_iterations).end();
    (out.begin("position_correction") << s.position_correction).end();
    (out.begin("swept") << int{s.swept}).end();
    (out.begin("count_tunnelling") << int{s.count_tunnelling}).end();
    (out.begin("use_signature") << int{s.use_signature}).end();
}

template <int D>
void write_implicit(RowWriter& out, const Bodies<D>& b, std::size_t i) {
    out.begin("implicit") << b.pos[i] << b.vel[i];
    if constexpr (D == 2) {
        out << b.rotation[i] << b.spin[i];
    } else {
        const glm::quat& q = b.rotation[i];
        out << q.w << q.x << q.y << q.z << b.spin[i];
    }
    (out << int{b.is_static[i]}).end();
    for (const Metaball<D>& m : b.model_of(i)->shape.metaballs()) {
        (out.begin("metaball") << m.centre << m.radius << m.power << m.weight).end();
    }
}

}  // namespace

template <int D>
void save_csv_scene(const std::string& path, const WorldSettings<D>& settings,
                    const Bodies<D>& bodies) {
    RowWriter out;
    const std::string title = "# collidoscope " + std::to_string(D) + "D scene, " +
                              std::to_string(bodies.size()) + " bodies";
    out.begin(title.c_str()).end();
    write_settings<D>(out, settings);
    out.begin(D == 2 ? "x,y,r,vx,vy,static" : "x,y,z,r,vx,vy,vz,static").end();
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        if (bodies.is_implicit(i)) {
            write_implicit<D>(out, bodies, i);
            continue;
        }
        out.begin(bodies.pos[i][0]);
        for (int k = 1; k < D; ++k) out << bodies.pos[i][k];
        (out << bodies.radius[i] << bodies.vel[i] << int{bodies.is_static[i]}).end();
    }
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << out.text();
    file.close();
    if (!file) throw std::runtime_error(path + ": cannot write the file");
}

template void save_csv_scene<2>(const std::string&, const WorldSettings<2>&, const Bodies<2>&);
template void save_csv_scene<3>(const std::string&, const WorldSettings<3>&, const Bodies<3>&);

}  // namespace collide
