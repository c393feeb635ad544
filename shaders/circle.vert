// Instanced circle quads for the 2D view. Each instance is one body; the quad is sized in
// pixels around it so the fragment shader has room for its antialiased edge, and bodies
// smaller than a pixel are drawn a pixel wide so a million-body scene stays visible.
#version 330 core

layout(location = 0) in vec3 a_centre;
layout(location = 1) in float a_radius;
layout(location = 2) in vec4 a_color;

uniform mat4 u_view_proj;
uniform float u_world_per_pixel;

out vec2 v_local;       // position relative to the centre, in units of the drawn radius
out float v_radius_px;  // drawn radius in pixels, to size the outline
flat out vec4 v_color;

void main() {
    vec2 corner = vec2((gl_VertexID & 1) != 0 ? 1.0 : -1.0, (gl_VertexID & 2) != 0 ? 1.0 : -1.0);
    float radius_px = max(a_radius / u_world_per_pixel, 0.75);
    // 1.5 pixels of margin so the coverage ramp is never cut off by the quad's edge.
    float half_px = radius_px + 1.5;
    v_local = corner * (half_px / radius_px);
    v_radius_px = radius_px;
    v_color = a_color;
    vec2 p = a_centre.xy + corner * half_px * u_world_per_pixel;
    gl_Position = u_view_proj * vec4(p, 0.0, 1.0);
}
