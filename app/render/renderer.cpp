#include "render/renderer.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>

#include <glm/gtc/type_ptr.hpp>

#include "collide/gpu/compute_context.hpp"
#include "collide/gpu/dot_splat.hpp"
#include "shaders/body_colour.glsl.hpp"
#include "shaders/body_instance.glsl.hpp"
#include "shaders/circle.frag.hpp"
#include "shaders/circle.vert.hpp"
#include "shaders/dot_composite.frag.hpp"
#include "shaders/dot_composite.vert.hpp"
#include "shaders/lines.frag.hpp"
#include "shaders/lines.vert.hpp"
#include "shaders/sphere.frag.hpp"
#include "shaders/sphere.vert.hpp"

namespace collidoscope {
namespace {

constexpr glm::vec3 kBackground{0.095f, 0.105f, 0.125f};

// Byte offset of a member, as the pointer GL's attribute API wants.
const void* offset(std::size_t bytes) {
    return reinterpret_cast<const void*>(bytes);
}

GLint uniform(const GlProgram& p, const char* name) {
    return glGetUniformLocation(p.get(), name);
}

}  // namespace

Renderer::Renderer()
    : instance_vao_(make_vertex_array()),
      gpu_bodies_vao_(make_vertex_array()),
      line_vao_(make_vertex_array()) {
    const auto colour_uniforms = [](const GlProgram& p) {
        return ColourUniforms{uniform(p, "u_colour_source"), uniform(p, "u_inv_speed_scale")};
    };
    // The dot radius the shaders test each body against is the one draw_circles tests all of
    // them against.
    const std::string body_inputs = std::string(shaders::kBodyColourGlsl) +
                                    "const float kDotRadiusPx = " + std::to_string(kDotRadiusPx) +
                                    ";\n" + shaders::kBodyInstanceGlsl;
    const std::string circle_vert = body_inputs + shaders::kCircleVert;
    circles_.program = make_program("circle", circle_vert.c_str(), shaders::kCircleFrag);
    circles_.view_proj = uniform(circles_.program, "u_view_proj");
    circles_.world_per_pixel = uniform(circles_.program, "u_world_per_pixel");
    circles_.points = uniform(circles_.program, "u_points");
    circles_.colour = colour_uniforms(circles_.program);

    const std::string sphere_vert = body_inputs + shaders::kSphereVert;
    const auto sphere_program = [&](const char* name, const std::string& fragment) {
        SphereProgram p;
        p.program = make_program(name, sphere_vert.c_str(), fragment.c_str());
        p.view = uniform(p.program, "u_view");
        p.proj = uniform(p.program, "u_proj");
        p.viewport_height = uniform(p.program, "u_viewport_height");
        p.points = uniform(p.program, "u_points");
        p.inv_proj = uniform(p.program, "u_inv_proj");
        p.viewport = uniform(p.program, "u_viewport");
        p.colour = colour_uniforms(p.program);
        return p;
    };
    const std::string sphere_frag = shaders::kSphereFrag;
    spheres_ = sphere_program("sphere", sphere_frag);
    // After the #version line.
    const std::size_t line = sphere_frag.find('\n', sphere_frag.find("#version")) + 1;
    const auto variant = [&](const char* name, const char* define) {
        return sphere_program(name,
                              sphere_frag.substr(0, line) + define + sphere_frag.substr(line));
    };
    sphere_points_ = variant("sphere points", "#define POINT_SPRITES\n");
    sphere_flat_ = variant("sphere flat depth", "#define FLAT_DEPTH\n");

    lines_.program = make_program("lines", shaders::kLinesVert, shaders::kLinesFrag);
    lines_.view_proj = uniform(lines_.program, "u_view_proj");

#ifndef __EMSCRIPTEN__  // dots come from the GPU world, which needs compute shaders
    const std::string dot_frag = std::string(shaders::kBodyColourGlsl) + shaders::kDotCompositeFrag;
    dots_.program = make_program("dots", shaders::kDotCompositeVert, dot_frag.c_str());
    dots_.origin = uniform(dots_.program, "u_origin");
    dots_.width = uniform(dots_.program, "u_width");
    dots_.colour = colour_uniforms(dots_.program);
    glUseProgram(dots_.program.get());
    glUniform1i(uniform(dots_.program, "u_pixels"), 0);  // texture units, as draw_dots binds
    glUniform1i(uniform(dots_.program, "u_velocity"), 1);
    glUniform1i(uniform(dots_.program, "u_inv_mass"), 2);
    glUseProgram(0);
#endif

    // Circles and spheres share one instance layout: centre, radius, colour (BGRA bytes,
    // which is how 0xAARRGGBB sits in memory on a little-endian machine). Corners come from
    // gl_VertexID, so there is no per-vertex buffer at all.
    glBindVertexArray(instance_vao_.get());
    glBindBuffer(GL_ARRAY_BUFFER, instance_buffer_.get());
    constexpr GLsizei kStride = sizeof(Instance);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, kStride, offset(offsetof(Instance, centre)));
    glVertexAttribDivisor(0, 1);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 1, GL_FLOAT, GL_FALSE, kStride, offset(offsetof(Instance, radius)));
    glVertexAttribDivisor(1, 1);
    glEnableVertexAttribArray(2);
    gl::colour_attribute(2, kStride, offset(offsetof(Instance, color)));
    glVertexAttribDivisor(2, 1);

    glBindVertexArray(line_vao_.get());
    glBindBuffer(GL_ARRAY_BUFFER, line_buffer_.get());
    constexpr GLsizei kLineStride = sizeof(LineVertex);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, kLineStride, offset(offsetof(LineVertex, pos)));
    glEnableVertexAttribArray(1);
    gl::colour_attribute(1, kLineStride, offset(offsetof(LineVertex, color)));
    glBindVertexArray(0);

    GLint samples = 0;
    glGetIntegerv(GL_SAMPLES, &samples);
    multisampled_ = samples > 1;
#ifdef __EMSCRIPTEN__  // only kVertexPerBody needs it; core profiles name it otherwise
    GLfloat point_range[2] = {1.0f, 1.0f};
    glGetFloatv(GL_ALIASED_POINT_SIZE_RANGE, point_range);
    max_point_px_ = point_range[1];
#endif
#ifndef __EMSCRIPTEN__  // OpenGL ES 3.0 has no buffer textures
    GLint texels = 0;
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &texels);
    max_texels_ = static_cast<std::size_t>(std::max(texels, 0));
#endif
}

Renderer::~Renderer() = default;

void Renderer::begin_frame(glm::ivec2 framebuffer, glm::ivec4 clip) {
    framebuffer_ = glm::max(framebuffer, glm::ivec2(1));
    draw_calls_ = 0;
    set_viewport({0, 0}, {0, 0});
    glClearColor(kBackground.r, kBackground.g, kBackground.b, 1.0f);
    glClearDepthf(1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    // ImGui's renderer sets its own scissor and restores this one after.
    glEnable(GL_SCISSOR_TEST);
    glScissor(clip.x, clip.y, std::max(clip.z, 0), std::max(clip.w, 0));
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
}

void Renderer::set_viewport(glm::ivec2 origin, glm::ivec2 size) {
    viewport_origin_ = origin;
    if (size.x <= 0 || size.y <= 0) {
        viewport_origin_ = {0, 0};
        viewport_ = framebuffer_;
        glViewport(0, 0, framebuffer_.x, framebuffer_.y);
        glDisable(GL_SCISSOR_TEST);
        return;
    }
    viewport_ = size;
    glViewport(origin.x, origin.y, size.x, size.y);
    glScissor(origin.x, origin.y, size.x, size.y);
    glEnable(GL_SCISSOR_TEST);
}

void Renderer::upload_instances(std::span<const Instance> instances) {
    glBindVertexArray(instance_vao_.get());
    instance_buffer_.upload(instances.data(), instances.size_bytes());
}

void Renderer::circle_state(const glm::mat4& view_proj, float world_per_pixel, bool points) {
    glDisable(GL_DEPTH_TEST);
    glUseProgram(circles_.program.get());
    glUniformMatrix4fv(circles_.view_proj, 1, GL_FALSE, glm::value_ptr(view_proj));
    glUniform1f(circles_.world_per_pixel, world_per_pixel);
    glUniform1i(circles_.points, points ? 1 : 0);
    gl::program_point_size(points);
}

SphereDetail Renderer::sphere_detail(float max_radius_px, bool points_allowed) {
    if (points_allowed && max_radius_px <= kPointRadiusPx) return SphereDetail::kPoints;
    return max_radius_px <= kFlatDepthRadiusPx ? SphereDetail::kFlatDepth : SphereDetail::kExact;
}

const Renderer::SphereProgram& Renderer::sphere_program(SphereDetail detail) const {
    switch (detail) {
        case SphereDetail::kExact: return spheres_;
        case SphereDetail::kFlatDepth: return sphere_flat_;
        case SphereDetail::kPoints: return sphere_points_;
    }
    return spheres_;
}

void Renderer::sphere_state(const glm::mat4& view, const glm::mat4& proj, SphereDetail detail) {
    const bool points = detail == SphereDetail::kPoints;
    const SphereProgram& p = sphere_program(detail);
    glUseProgram(p.program.get());
    glUniform1i(p.points, points ? 1 : 0);
    gl::program_point_size(points);
    if (points) {
        glUniformMatrix4fv(p.inv_proj, 1, GL_FALSE, glm::value_ptr(glm::inverse(proj)));
        glUniform4f(p.viewport, float(viewport_origin_.x), float(viewport_origin_.y),
                    float(viewport_.x), float(viewport_.y));
    }
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    glUniformMatrix4fv(p.view, 1, GL_FALSE, glm::value_ptr(view));
    glUniformMatrix4fv(p.proj, 1, GL_FALSE, glm::value_ptr(proj));
    glUniform1f(p.viewport_height, static_cast<float>(viewport_.y));
    // With multisampling the rim's alpha becomes sample coverage: smooth edges that do not
    // depend on draw order. Without it, plain blending gives a softer (order-dependent) rim.
    if (multisampled_) {
        glDisable(GL_BLEND);
        glEnable(GL_SAMPLE_ALPHA_TO_COVERAGE);
    }
}

void Renderer::end_spheres() {
    ++draw_calls_;
    glDisable(GL_SAMPLE_ALPHA_TO_COVERAGE);
    glEnable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
}

void Renderer::draw_circles(std::span<const Instance> circles, const glm::mat4& view_proj,
                            float world_per_pixel) {
    if (circles.empty()) return;
    upload_instances(circles);
    float max_radius = 0.0f;
    if constexpr (kVertexPerBody) {
        for (const Instance& c : circles) max_radius = std::max(max_radius, c.radius);
    }
    const bool vertex_per_body = kVertexPerBody && sprite_fits(max_radius, world_per_pixel);
    circle_state(view_proj, world_per_pixel, vertex_per_body);
    glUniform1i(circles_.colour.source, 0);
    if (vertex_per_body) {
        set_instance_divisor(0);
        glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(circles.size()));
        set_instance_divisor(1);
    } else {
        glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, static_cast<GLsizei>(circles.size()));
    }
    ++draw_calls_;
}

bool Renderer::sprite_fits(float max_radius, float world_per_pixel) const {
    // The largest body's sprite: its diameter and circle.vert's pixel of margin each side.
    return 2.0f * (max_radius / world_per_pixel + 1.0f) <= max_point_px_;
}

void Renderer::set_instance_divisor(GLuint divisor) {
    glBindVertexArray(instance_vao_.get());
    for (GLuint attribute : {0u, 1u, 2u}) glVertexAttribDivisor(attribute, divisor);
}

void Renderer::draw_spheres(std::span<const Instance> spheres, const glm::mat4& view,
                            const glm::mat4& proj, SphereDetail detail) {
    if (spheres.empty()) return;
    // Instances are quads: points need the GPU bodies' layout.
    if (detail == SphereDetail::kPoints) detail = SphereDetail::kFlatDepth;
    upload_instances(spheres);
    sphere_state(view, proj, detail);
    glUniform1i(sphere_program(detail).colour.source, 0);
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, static_cast<GLsizei>(spheres.size()));
    end_spheres();
}

GpuBodies Renderer::upload_bodies(const BodyArrays& b) {
    // Paused, the bodies stay where they were uploaded: a million of them were 24 MB a frame.
    const bool same_world = b.shape_id == uploaded_shape_;
    if (!same_world || b.revision != uploaded_revision_) {
        body_pos_.upload(b.pos.data(), b.pos.size_bytes());
        body_vel_.upload(b.vel.data(), b.vel.size_bytes());
        uploaded_revision_ = b.revision;
    }
    if (!same_world) {
        glBindBuffer(GL_ARRAY_BUFFER, body_radius_.get());
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(b.radius.size_bytes()), b.radius.data(),
                     GL_STATIC_DRAW);
    }
    if (!same_world || b.mass_revision != uploaded_mass_revision_) {  // who sleeps changed
        glBindBuffer(GL_ARRAY_BUFFER, body_mass_.get());
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(b.inv_mass.size_bytes()), b.inv_mass.data(),
                     GL_DYNAMIC_DRAW);
        uploaded_mass_revision_ = b.mass_revision;
    }
    uploaded_shape_ = b.shape_id;
    GpuBodies out;
    out.pos = body_pos_.get();
    out.vel = body_vel_.get();
    out.radius = body_radius_.get();
    out.mass = body_mass_.get();
    out.count = b.radius.size();
    out.dim = b.dim;
    out.speed_scale = b.speed_scale;
    out.max_radius = b.max_radius;
    out.mass_stride = sizeof(float);
    return out;
}

void Renderer::bind_gpu_bodies(const GpuBodies& b, ColorMode mode, const ColourUniforms& colour,
                               bool vertex_per_body) {
    // The attributes are pointed again each frame: a new world has new buffers.
    glBindVertexArray(gpu_bodies_vao_.get());
    const GLsizei vec_stride = static_cast<GLsizei>(b.dim * sizeof(float));
    const GLuint divisor = vertex_per_body ? 0 : 1;
    const auto attribute = [divisor](GLuint index, GLuint buffer, GLint size, GLsizei stride) {
        glBindBuffer(GL_ARRAY_BUFFER, buffer);
        glEnableVertexAttribArray(index);
        glVertexAttribPointer(index, size, GL_FLOAT, GL_FALSE, stride, offset(0));
        glVertexAttribDivisor(index, divisor);
    };
    attribute(0, b.pos, b.dim, vec_stride);  // z reads 0 in 2D
    attribute(1, b.radius, 1, sizeof(float));
    attribute(3, b.vel, b.dim, vec_stride);
    attribute(4, b.mass, 1, b.mass_stride);  // the GPU world's: (inverse mass, contacts)
    glDisableVertexAttribArray(2);
    glVertexAttrib4f(2, 1.0f, 1.0f, 1.0f, 1.0f);
    set_colour(colour, mode, b.speed_scale);
}

void Renderer::set_colour(const ColourUniforms& colour, ColorMode mode, float speed_scale) {
    glUniform1i(colour.source, mode == ColorMode::kId ? 2 : 1);
    glUniform1f(colour.inv_speed_scale, 1.0f / std::max(speed_scale, 1e-6f));
}

void Renderer::draw_circles(const GpuBodies& bodies, ColorMode mode, const glm::mat4& view_proj,
                            float world_per_pixel) {
    if (bodies.count == 0) return;
    if (bodies.max_radius < kDotRadiusPx * world_per_pixel && draw_dots(bodies, mode, view_proj)) {
        return;
    }
    const bool vertex_per_body = kVertexPerBody && sprite_fits(bodies.max_radius, world_per_pixel);
    const bool points = vertex_per_body || bodies.max_radius <= kPointRadiusPx * world_per_pixel;
    circle_state(view_proj, world_per_pixel, points);
    bind_gpu_bodies(bodies, mode, circles_.colour, vertex_per_body);
    if (vertex_per_body) {
        glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(bodies.count));
    } else if (points) {
        glDrawArraysInstanced(GL_POINTS, 0, 1, static_cast<GLsizei>(bodies.count));
    } else {
        glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, static_cast<GLsizei>(bodies.count));
    }
    ++draw_calls_;
    glBindVertexArray(0);
}

bool Renderer::draw_dots(const GpuBodies& b, ColorMode mode, const glm::mat4& view_proj) {
#ifdef __EMSCRIPTEN__  // no GPU world, so no GPU bodies to draw as dots
    (void)b, (void)mode, (void)view_proj;
    return false;
#else
    if (!dot_splat_tried_) {
        dot_splat_tried_ = true;
        try {
            dot_splat_ = std::make_unique<collide::gpu::DotSplat>();
        } catch (const collide::gpu::GpuError& e) {
            std::fprintf(stderr, "collidoscope: bodies under a pixel are point sprites: %s\n",
                         e.what());
        }
    }
    if (!dot_splat_) return false;
    const auto pixels = std::size_t(viewport_.x) * std::size_t(viewport_.y);
    if (std::max(b.count, pixels) > max_texels_) {
        if (!dot_limit_told_) {
            std::fprintf(stderr,
                         "collidoscope: %zu bodies or %zu pixels pass this driver's buffer "
                         "texture limit of %zu: bodies under a pixel are point sprites\n",
                         b.count, pixels, max_texels_);
        }
        dot_limit_told_ = true;
        return false;
    }

    dot_splat_->splat(b.pos, b.count, glm::value_ptr(view_proj), viewport_.x, viewport_.y);
    const auto texture = [](GLenum unit, const GlTexture& t, GLenum format, GLuint buffer) {
        glActiveTexture(unit);
        glBindTexture(GL_TEXTURE_BUFFER, t.get());
        glTexBuffer(GL_TEXTURE_BUFFER, format, buffer);
    };
    texture(GL_TEXTURE0, dot_pixels_, GL_R32UI, dot_splat_->pixels());
    texture(GL_TEXTURE1, dot_velocity_, GL_RG32F, b.vel);
    // The GPU world's masses are (inverse mass, contacts) pairs; the CPU world's one float.
    texture(GL_TEXTURE2, dot_inv_mass_, b.mass_stride == 8 ? GL_RG32F : GL_R32F, b.mass);
    glActiveTexture(GL_TEXTURE0);

    glDisable(GL_DEPTH_TEST);
    glUseProgram(dots_.program.get());
    glUniform2i(dots_.origin, viewport_origin_.x, viewport_origin_.y);
    glUniform1i(dots_.width, viewport_.x);
    set_colour(dots_.colour, mode, b.speed_scale);
    glBindVertexArray(dots_vao_.get());
    glDrawArrays(GL_TRIANGLES, 0, 3);
    ++draw_calls_;
    glBindVertexArray(0);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    return true;
#endif
}

void Renderer::draw_spheres(const GpuBodies& bodies, ColorMode mode, const glm::mat4& view,
                            const glm::mat4& proj, SphereDetail detail) {
    if (bodies.count == 0) return;
    const bool points = detail == SphereDetail::kPoints;
    sphere_state(view, proj, detail);
    bind_gpu_bodies(bodies, mode, sphere_program(detail).colour);
    if (points) {
        glDrawArraysInstanced(GL_POINTS, 0, 1, static_cast<GLsizei>(bodies.count));
    } else {
        glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, static_cast<GLsizei>(bodies.count));
    }
    end_spheres();
    glBindVertexArray(0);
}

void Renderer::draw_lines(std::span<const LineVertex> lines, const glm::mat4& view_proj,
                          bool depth_test) {
    draw_vertices(GL_LINES, lines, view_proj, depth_test);
}

void Renderer::draw_triangles(std::span<const LineVertex> triangles, const glm::mat4& view_proj,
                              bool depth_test) {
    draw_vertices(GL_TRIANGLES, triangles, view_proj, depth_test);
}

void Renderer::draw_mesh(std::span<const LineVertex> triangles, const glm::mat4& view_proj) {
    if (triangles.empty()) return;
    glBindVertexArray(line_vao_.get());
    line_buffer_.upload(triangles.data(), triangles.size_bytes());
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    glUseProgram(lines_.program.get());
    glUniformMatrix4fv(lines_.view_proj, 1, GL_FALSE, glm::value_ptr(view_proj));
    glDrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(triangles.size()));
    ++draw_calls_;
    glDisable(GL_DEPTH_TEST);
    glBindVertexArray(0);
}

void Renderer::draw_vertices(GLenum mode, std::span<const LineVertex> vertices,
                             const glm::mat4& view_proj, bool depth_test) {
    if (vertices.empty()) return;
    glBindVertexArray(line_vao_.get());
    line_buffer_.upload(vertices.data(), vertices.size_bytes());
    if (depth_test) {
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LEQUAL);
        glDepthMask(GL_FALSE);  // overlays must not hide each other
    } else {
        glDisable(GL_DEPTH_TEST);
    }
    glUseProgram(lines_.program.get());
    glUniformMatrix4fv(lines_.view_proj, 1, GL_FALSE, glm::value_ptr(view_proj));
    glDrawArrays(mode, 0, static_cast<GLsizei>(vertices.size()));
    ++draw_calls_;
    glDepthMask(GL_TRUE);
    glDisable(GL_DEPTH_TEST);
    glBindVertexArray(0);
}

}  // namespace collidoscope
