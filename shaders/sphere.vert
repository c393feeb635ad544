// Instanced sphere impostors for the 3D view. Each instance becomes a quad facing the eye
// (perpendicular to the line of sight to the centre, not to the view axis) and sized to the
// sphere's tangent cone, so the quad covers the silhouette exactly at any position on screen.
// (body_colour.glsl and body_instance.glsl come first: #version, the instance inputs and
// body_colour().)

uniform mat4 u_view;
uniform mat4 u_proj;
uniform float u_viewport_height;
// 1: each sphere is one point sprite covering its silhouette (small spheres: see
// circle.vert), its eye rays rebuilt per fragment in sphere.frag; 0: a quad of 4 vertices.
uniform int u_points;

out vec3 v_ray;  // view-space point on the quad: the ray direction from the eye
flat out vec3 v_centre;
flat out float v_radius;
flat out vec4 v_color;
flat out int v_dot;  // points: 1 where the sphere is under a pixel and a half wide

void main() {
    if (no_body()) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        return;
    }
    vec3 c = (u_view * vec4(a_centre, 1.0)).xyz;
    // Never smaller than a pixel, so distant or tiny bodies stay visible.
    float pixel_at_depth = max(-c.z, 1e-4) * 2.0 / (u_proj[1][1] * u_viewport_height);
    float r = max(a_radius, pixel_at_depth);
    float d = length(c);
    v_centre = c;
    v_radius = r;
    v_color = body_colour(body_index(u_points != 0));
    v_dot = 0;
    if (d <= r * 1.001) {
        // The eye is inside this sphere: drop it rather than fill the screen.
        v_ray = vec3(0.0);
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        return;
    }
    if (u_points != 0) {
        // The silhouette's radius in pixels, with a pixel for the antialiased rim.
        float s_px = r * d / sqrt(d * d - r * r) / pixel_at_depth;
        v_ray = c;
        v_dot = a_radius < kDotRadiusPx * pixel_at_depth ? 1 : 0;
        gl_PointSize = v_dot != 0 ? 1.0 : 2.0 * s_px + 2.0;
        gl_Position = u_proj * vec4(c, 1.0);
        return;
    }
    vec3 dir = c / d;
    vec3 hint = abs(dir.y) < 0.99 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0);
    vec3 u = normalize(cross(hint, dir));
    vec3 v = cross(dir, u);
    // The quad lies on the plane that touches the sphere at its nearest point, so every
    // point of the sphere is behind it (sphere.frag's depth_greater), sized to the tangent
    // cone there. Not nearer than the near plane, which would clip it away.
    float near = u_proj[3][2] / (u_proj[2][2] - 1.0);
    float t = max(d - r, 1.001 * near);
    float s = t * r / sqrt(d * d - r * r);
    vec2 corner = vec2((gl_VertexID & 1) != 0 ? 1.0 : -1.0, (gl_VertexID & 2) != 0 ? 1.0 : -1.0);
    vec3 p = dir * t + (corner.x * u + corner.y * v) * s;
    v_ray = p;
    gl_Position = u_proj * vec4(p, 1.0);
}
