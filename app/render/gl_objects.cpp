#include "render/gl_objects.hpp"

#include <stdexcept>
#include <string_view>
#include <vector>

namespace collidoscope {
namespace {

std::string shader_log(GLuint shader) {
    GLint length = 0;
    glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
    std::vector<char> log(static_cast<std::size_t>(std::max(length, 1)));
    glGetShaderInfoLog(shader, length, nullptr, log.data());
    return log.data();
}

std::string program_log(GLuint program) {
    GLint length = 0;
    glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
    std::vector<char> log(static_cast<std::size_t>(std::max(length, 1)));
    glGetProgramInfoLog(program, length, nullptr, log.data());
    return log.data();
}

// The shaders are written for GLSL 3.30 core; their #version line becomes this context's
// preamble (gl_api.hpp), at the very top, where GLSL ES wants it (before any comment). ES
// has none of the desktop's optional ARB extensions: their #extension lines go, and the
// shaders' #if defined(GL_ARB_...) take the plain path.
std::string for_this_context(const char* name, const char* source) {
    constexpr std::string_view kDesktopVersion = "#version 330 core\n";
    std::string text = source;
    const std::size_t at = text.find(kDesktopVersion);
    if (at == std::string::npos)
        throw std::runtime_error(std::string("shader ") + name + " has no '#version 330 core' line");
    text.erase(at, kDesktopVersion.size());
    if constexpr (gl::kEs) {
        constexpr std::string_view kArbExtension = "#extension GL_ARB_";
        for (std::size_t line = text.find(kArbExtension); line != std::string::npos;
             line = text.find(kArbExtension, line)) {
            text.erase(line, text.find('\n', line) - line);
        }
    }
    return gl::kShaderPreamble + text;
}

// Shader objects only live until the program is linked.
class Shader {
public:
    Shader(GLenum type, const char* name, const char* source) : id_(glCreateShader(type)) {
        const std::string text = for_this_context(name, source);
        const char* text_ptr = text.c_str();
        glShaderSource(id_, 1, &text_ptr, nullptr);
        glCompileShader(id_);
        GLint ok = GL_FALSE;
        glGetShaderiv(id_, GL_COMPILE_STATUS, &ok);
        if (ok != GL_TRUE) {
            std::string log = shader_log(id_);
            glDeleteShader(id_);
            throw std::runtime_error(std::string("shader ") + name + " failed to compile:\n" + log);
        }
    }
    Shader(const Shader&) = delete;
    Shader& operator=(const Shader&) = delete;
    ~Shader() { glDeleteShader(id_); }
    GLuint get() const { return id_; }

private:
    GLuint id_;
};

}  // namespace

void delete_buffer(GLuint id) {
    glDeleteBuffers(1, &id);
}
void delete_query(GLuint id) {
    glDeleteQueries(1, &id);
}
void delete_texture(GLuint id) {
    glDeleteTextures(1, &id);
}
void delete_vertex_array(GLuint id) {
    glDeleteVertexArrays(1, &id);
}
void delete_program(GLuint id) {
    glDeleteProgram(id);
}

GlBuffer make_buffer() {
    GLuint id = 0;
    glGenBuffers(1, &id);
    return GlBuffer(id);
}

GlVertexArray make_vertex_array() {
    GLuint id = 0;
    glGenVertexArrays(1, &id);
    return GlVertexArray(id);
}

GlTexture make_texture() {
    GLuint id = 0;
    glGenTextures(1, &id);
    return GlTexture(id);
}

GlProgram make_program(const char* name, const char* vertex_source, const char* fragment_source) {
    Shader vs(GL_VERTEX_SHADER, (std::string(name) + ".vert").c_str(), vertex_source);
    Shader fs(GL_FRAGMENT_SHADER, (std::string(name) + ".frag").c_str(), fragment_source);
    GlProgram program(glCreateProgram());
    glAttachShader(program.get(), vs.get());
    glAttachShader(program.get(), fs.get());
    glLinkProgram(program.get());
    glDetachShader(program.get(), vs.get());
    glDetachShader(program.get(), fs.get());
    GLint ok = GL_FALSE;
    glGetProgramiv(program.get(), GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE) {
        throw std::runtime_error(std::string("program ") + name + " failed to link:\n" +
                                 program_log(program.get()));
    }
    return program;
}

void StreamBuffer::upload(const void* data, std::size_t bytes) {
    glBindBuffer(GL_ARRAY_BUFFER, buffer_.get());
    // Grow geometrically so a slowly growing scene does not reallocate every frame.
    if (bytes > capacity_) capacity_ = std::max(bytes, capacity_ + capacity_ / 2);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(capacity_), nullptr, GL_STREAM_DRAW);
    if (bytes > 0) glBufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(bytes), data);
}

}  // namespace collidoscope
