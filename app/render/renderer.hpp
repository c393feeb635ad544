// The OpenGL renderer: one instanced draw for all circles (signed-distance quads) or all
// spheres (ray-cast impostors), and one batched GL_LINES draw for every overlay. Instance
// and line data are re-uploaded each frame into orphaned stream buffers, so the cost stays
// one upload and one draw call per kind however many bodies there are. It counts its own
// draw calls so the stats panel can show them.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include <glm/glm.hpp>

#include "common/geometry.hpp"
#include "common/palette.hpp"
#include "render/gl_objects.hpp"

namespace collide::gpu {
class DotSplat;
}

namespace collidoscope {

// How spheres are drawn, chosen by how big the largest is on screen.
enum class SphereDetail {
    kExact,  // ray-cast, with the true depth: spheres cut each other on curves
    // Ray-cast shading at the depth of the quad touching each sphere's front: where spheres
    // are a few pixels wide the curves differ by a pixel at most, and the fragment shader
    // writes no depth, so every GPU, software GL too (llvmpipe ignores depth_greater),
    // skips the shading of hidden spheres
    kFlatDepth,
    kPoints,  // one point sprite each at its centre's depth (smaller still)
};

class Renderer {
public:
    // Bodies up to this drawn radius are point sprites. Points are clipped by their centre,
    // so only sprites a few pixels wide are: a disc half out of the view would vanish whole.
    static constexpr float kPointRadiusPx = 4.0f;
    // The browser draws every disc that fits the largest point sprite as one, a vertex per
    // body: Chromium's software WebGL (SwiftShader) pays per instance, 45 us each (500 discs
    // took 37 ms of GPU time a frame, 5,000 took 240). The price is the centre clipping above.
    static constexpr bool kVertexPerBody = gl::kEs;
    // Spheres up to this drawn radius take SphereDetail::kFlatDepth.
    static constexpr float kFlatDepthRadiusPx = 10.0f;
    // The detail for spheres of at most `max_radius_px` drawn radius; `points_allowed` where
    // no sphere can reach the view's edge (points are clipped by their centre).
    static SphereDetail sphere_detail(float max_radius_px, bool points_allowed);
    // 2D bodies all under this drawn radius are dots: one pixel each, marked by a compute pass
    // (collide::gpu::DotSplat) where there is an OpenGL 4.3 context. The body shaders get it
    // too: as point sprites, bodies under it are one-pixel points.
    static constexpr float kDotRadiusPx = 0.75f;

    // Compiles the embedded shaders; needs a current OpenGL 3.3 core context.
    Renderer();
    ~Renderer();

    // Sets the viewport, clears colour and depth, and resets the draw-call count. Drawing
    // then stays inside `clip` (x, y from the bottom, width, height in framebuffer pixels):
    // the world view, so nothing is drawn under a panel.
    void begin_frame(glm::ivec2 framebuffer, glm::ivec4 clip);
    // Draws into the rectangle at `origin` (framebuffer pixels, bottom left) of `size` only,
    // clipped there (a compare pane); a zero size goes back to the whole framebuffer.
    void set_viewport(glm::ivec2 origin, glm::ivec2 size);

    void draw_circles(std::span<const Instance> circles, const glm::mat4& view_proj,
                      float world_per_pixel);
    void draw_spheres(std::span<const Instance> spheres, const glm::mat4& view,
                      const glm::mat4& proj, SphereDetail detail);
    // The GPU world's bodies, straight from its buffers (nothing uploaded), coloured in the
    // vertex shader by `mode` (speed or id; cost colours are the CPU world's: speed).
    void draw_circles(const GpuBodies& bodies, ColorMode mode, const glm::mat4& view_proj,
                      float world_per_pixel);
    // Uploads the CPU world's arrays (positions and velocities each frame, radii and masses
    // when the world changed) for the draws above: no instance per body is built.
    GpuBodies upload_bodies(const BodyArrays& bodies);
    void draw_spheres(const GpuBodies& bodies, ColorMode mode, const glm::mat4& view,
                      const glm::mat4& proj, SphereDetail detail);
    // `depth_test` hides lines behind spheres; off draws the overlays on top of everything.
    void draw_lines(std::span<const LineVertex> lines, const glm::mat4& view_proj, bool depth_test);
    // Translucent triangles (heat maps), same vertex layout as the lines.
    void draw_triangles(std::span<const LineVertex> triangles, const glm::mat4& view_proj,
                        bool depth_test);

    // Opaque triangles with depth test and depth write (the implicit bodies' surfaces in 3D).
    void draw_mesh(std::span<const LineVertex> triangles, const glm::mat4& view_proj);

    // Draw calls issued by someone else this frame (ImGui).
    void add_draw_calls(int n) { draw_calls_ += n; }
    int draw_calls() const { return draw_calls_; }

private:
    // body_colour.glsl's uniforms, in both body programs.
    struct ColourUniforms {
        GLint source = -1;
        GLint inv_speed_scale = -1;
    };
    struct CircleProgram {
        GlProgram program;
        GLint view_proj = -1;
        GLint world_per_pixel = -1;
        GLint points = -1;  // u_points (circle.vert and circle.frag share it)
        ColourUniforms colour;
    };
    struct SphereProgram {
        GlProgram program;
        GLint view = -1;
        GLint proj = -1;
        GLint viewport_height = -1;
        GLint points = -1;
        GLint inv_proj = -1;
        GLint viewport = -1;
        ColourUniforms colour;
    };
    struct LineProgram {
        GlProgram program;
        GLint view_proj = -1;
    };
    struct DotProgram {
        GlProgram program;
        GLint origin = -1;
        GLint width = -1;
        ColourUniforms colour;
    };

    void upload_instances(std::span<const Instance> instances);
    // Points the GPU world's vertex array at `bodies`' buffers and sets the colour uniforms.
    void bind_gpu_bodies(const GpuBodies& bodies, ColorMode mode, const ColourUniforms& colour,
                         bool vertex_per_body = false);
    // Whether discs up to `max_radius` fit the largest point sprite (kVertexPerBody).
    bool sprite_fits(float max_radius, float world_per_pixel) const;
    // The instance layout's attributes per instance (1) or per vertex (0: kVertexPerBody).
    void set_instance_divisor(GLuint divisor);
    // body_colour.glsl's uniforms for `mode` (speed or id) in the program in use.
    static void set_colour(const ColourUniforms& colour, ColorMode mode, float speed_scale);
    void circle_state(const glm::mat4& view_proj, float world_per_pixel, bool points);
    void sphere_state(const glm::mat4& view, const glm::mat4& proj, SphereDetail detail);
    const SphereProgram& sphere_program(SphereDetail detail) const;
    void end_spheres();
    // Draws `bodies` (2D) as dots: the splat marks a pixel per body, and one triangle over the
    // view colours the marked pixels. False where the splat cannot run (no OpenGL 4.3, or more
    // bodies than a buffer texture holds); the caller then draws point sprites.
    bool draw_dots(const GpuBodies& bodies, ColorMode mode, const glm::mat4& view_proj);
    void draw_vertices(GLenum mode, std::span<const LineVertex> vertices,
                       const glm::mat4& view_proj, bool depth_test);

    CircleProgram circles_;
    SphereProgram spheres_;
    SphereProgram sphere_points_;  // the POINT_SPRITES build of sphere.frag
    SphereProgram sphere_flat_;    // the FLAT_DEPTH build
    LineProgram lines_;
    DotProgram dots_;
    GlVertexArray dots_vao_ =
        make_vertex_array();  // no attributes: the triangle comes from gl_VertexID
    GlTexture dot_pixels_ = make_texture(), dot_velocity_ = make_texture(),
              dot_inv_mass_ = make_texture();
    std::unique_ptr<collide::gpu::DotSplat> dot_splat_;
    bool dot_splat_tried_ = false;
    float max_point_px_ = 1.0f;  // the largest point sprite this GL draws, in pixels
    std::size_t max_texels_ = 0;  // GL_MAX_TEXTURE_BUFFER_SIZE: the most bodies dots can draw
    bool dot_limit_told_ = false;
    GlVertexArray instance_vao_;
    StreamBuffer instance_buffer_;
    GlVertexArray gpu_bodies_vao_;
    StreamBuffer body_pos_, body_vel_;  // upload_bodies()'
    GlBuffer body_radius_ = make_buffer(), body_mass_ = make_buffer();
    std::uint64_t uploaded_shape_ = 0;
    std::uint64_t uploaded_revision_ = 0;  // of the positions and velocities uploaded
    std::uint64_t uploaded_mass_revision_ = 0;
    GlVertexArray line_vao_;
    StreamBuffer line_buffer_;
    glm::ivec2 framebuffer_{1, 1};
    glm::ivec2 viewport_{1, 1};  // the size drawn into: the framebuffer, or a pane
    glm::ivec2 viewport_origin_{0, 0};
    bool multisampled_ = false;
    int draw_calls_ = 0;
};

}  // namespace collidoscope
