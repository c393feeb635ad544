// Signed-distance circle: a filled disc with a darker outline, antialiased with fwidth so
// the edge is one pixel soft at any zoom.
#version 330 core

in vec2 v_local;
in float v_radius_px;
flat in vec4 v_color;
flat in float v_point_scale;
uniform int u_points;  // circle.vert's: a point sprite's coordinate stands for v_local

out vec4 frag_color;

void main() {
    if (u_points != 0 && v_point_scale == 0.0) {  // a dot: the pixel is the body
        frag_color = v_color;
        return;
    }
    vec2 local = u_points != 0 ? (gl_PointCoord * 2.0 - 1.0) * v_point_scale : v_local;
    float d = length(local) - 1.0;       // signed distance to the rim, in radii
    float aa = max(fwidth(d), 1e-6);     // radii per pixel
    float coverage = clamp(0.5 - d / aa, 0.0, 1.0);
    if (coverage <= 0.0) discard;

    // Small discs get no outline: it would swallow the fill colour.
    float outline_px = v_radius_px > 3.0 ? clamp(v_radius_px * 0.12, 1.0, 2.5) : 0.0;
    float in_outline = outline_px > 0.0 ? clamp(0.5 + d / aa + outline_px, 0.0, 1.0) : 0.0;
    vec3 rgb = mix(v_color.rgb, v_color.rgb * 0.45, in_outline);
    frag_color = vec4(rgb, v_color.a * coverage);
}
