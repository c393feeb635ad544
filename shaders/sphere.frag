// Ray-cast sphere: intersects the eye ray with the sphere, shades the hit with ambient,
// Lambert and a little Blinn-Phong specular, and writes the true depth so spheres cut each
// other (and the overlays) correctly. The rim's coverage goes out as alpha. Built again with
// POINT_SPRITES for spheres a few pixels wide, which keep their centre's depth.
// The quad lies on the plane touching the sphere's nearest point (sphere.vert), so the true
// depth is never nearer than the quad's: declared (depth_greater), the GPU keeps its early
// depth test and skips the shading of spheres hidden behind others, where a plain write of
// gl_FragDepth would shade every one of the million-deep stack.
#version 330 core
#extension GL_ARB_conservative_depth : enable
// FLAT_DEPTH (small spheres) writes no depth at all: the quad's own is kept.
#if defined(POINT_SPRITES) || defined(FLAT_DEPTH)
#define WRITES_DEPTH 0
#else
#define WRITES_DEPTH 1
#endif
#if defined(GL_ARB_conservative_depth) && WRITES_DEPTH
layout(depth_greater) out float gl_FragDepth;
#endif

in vec3 v_ray;
flat in vec3 v_centre;
flat in float v_radius;
flat in vec4 v_color;
flat in int v_dot;

uniform mat4 u_proj;
uniform int u_points;      // sphere.vert's: the eye ray is rebuilt from the fragment
uniform mat4 u_inv_proj;
uniform vec4 u_viewport;   // x, y, width, height in framebuffer pixels

out vec4 frag_color;

const vec3 kLight = vec3(-0.45, 0.75, 0.5);  // view space: from the upper left, towards the eye

// Ambient and Lambert (darkened by `rim`) and specular at the surface point with normal n,
// seen along rd.
vec3 shade(vec3 n, vec3 rd, float rim) {
    vec3 l = normalize(kLight);
    float diffuse = max(dot(n, l), 0.0);
    vec3 half_vector = normalize(l - rd);
    float specular = pow(max(dot(n, half_vector), 0.0), 48.0) * 0.35;
    return v_color.rgb * (0.22 + 0.78 * diffuse) * rim + vec3(specular);
}

void main() {
    if (u_points != 0 && v_dot != 0) {  // a dot: lit as the point facing the eye
        vec3 rd = normalize(v_centre);
        frag_color = vec4(shade(-rd, rd, 1.0), v_color.a);
        return;
    }
    vec3 ray = v_ray;
    if (u_points != 0) {
        vec2 ndc = (gl_FragCoord.xy - u_viewport.xy) / u_viewport.zw * 2.0 - 1.0;
        vec4 near = u_inv_proj * vec4(ndc, -1.0, 1.0);
        ray = near.xyz / near.w;
    }
    vec3 rd = normalize(ray);
    float b = dot(rd, v_centre);
    // How far inside the silhouette the ray passes, turned into pixels by fwidth, gives an
    // antialiased edge (as alpha, which becomes coverage when multisampling is on).
    float miss = sqrt(max(dot(v_centre, v_centre) - b * b, 0.0));
    float inside = v_radius - miss;
    float coverage = clamp(inside / max(fwidth(inside), 1e-7) + 0.5, 0.0, 1.0);
    if (coverage <= 0.0) discard;
    // Rays that graze past the rim still shade the nearest point of the rim.
    float h = max(v_radius * v_radius - miss * miss, 0.0);
    float t = b - sqrt(h);
    vec3 p = rd * t;
    vec3 n = normalize(p - v_centre);

    // A darker rim separates touching spheres of the same colour.
    float facing = max(dot(n, -rd), 0.0);
    float rim = smoothstep(0.0, 0.35, facing);
    vec3 rgb = shade(n, rd, mix(0.45, 1.0, rim));
    frag_color = vec4(rgb, v_color.a * coverage);

#if WRITES_DEPTH
    vec4 clip = u_proj * vec4(p, 1.0);
    gl_FragDepth = clamp(clip.z / clip.w * 0.5 + 0.5, 0.0, 1.0);
#endif
}
