// Instanced circle quads for the 2D view. Each instance is one body; the quad is sized in
// pixels around it so the fragment shader has room for its antialiased edge. As points,
// bodies under a pixel and a half wide are one-pixel dots, so a million-body scene stays
// visible and costs one fragment a body (a disc's sprite with its rim would cost 12).
// (body_colour.glsl and body_instance.glsl come first: #version, the instance inputs and
// body_colour().)

uniform mat4 u_view_proj;
uniform float u_world_per_pixel;
// 1: each body is one point sprite (small discs: a quarter of the vertices, and much less
// of the rasteriser, which a million sub-pixel quads keep busy); 0: a quad of 4 vertices.
uniform int u_points;

out vec2 v_local;       // position relative to the centre, in units of the drawn radius
out float v_radius_px;  // drawn radius in pixels, to size the outline
flat out vec4 v_color;
flat out float v_point_scale;  // points: the sprite's half side in drawn radii; 0: a dot

void main() {
    if (no_body()) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        return;
    }
    float radius_px = max(a_radius / u_world_per_pixel, kDotRadiusPx);
    // The coverage ramp ends half a pixel past the rim: a pixel of margin never cuts it off,
    // and no more, since a million sub-pixel discs are mostly margin.
    float half_px = radius_px + 1.0;
    v_radius_px = radius_px;
    v_color = body_colour(body_index(u_points != 0));
    v_point_scale = half_px / radius_px;
    if (u_points != 0) {
        v_local = vec2(0.0);
        bool dot = a_radius < kDotRadiusPx * u_world_per_pixel;
        if (dot) v_point_scale = 0.0;
        gl_PointSize = dot ? 1.0 : 2.0 * half_px;
        gl_Position = u_view_proj * vec4(a_centre.xy, 0.0, 1.0);
        return;
    }
    vec2 corner = vec2((gl_VertexID & 1) != 0 ? 1.0 : -1.0, (gl_VertexID & 2) != 0 ? 1.0 : -1.0);
    v_local = corner * v_point_scale;
    vec2 p = a_centre.xy + corner * half_px * u_world_per_pixel;
    gl_Position = u_view_proj * vec4(p, 0.0, 1.0);
}
