#version 330 core
// The instance inputs circles and spheres share, and their colour: given per instance (the
// CPU world fills it), or computed here from the GPU world's buffers: speed on the ramp of
// collide::ramp_color, or a hue hashed from the body's id as the CPU world does; static
// bodies grey. Prepended to circle.vert and sphere.vert.
layout(location = 0) in vec3 a_centre;
layout(location = 1) in float a_radius;
layout(location = 2) in vec4 a_color;
layout(location = 3) in vec3 a_velocity;
layout(location = 4) in float a_inv_mass;  // 0 = static

uniform int u_colour_source;  // 0: a_color; 1: speed; 2: id
uniform float u_inv_speed_scale;

uint mix_bits(uint x) {
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    x ^= x >> 16u;
    return x;
}

vec3 hue(float h) {
    const float s = 0.6;
    const float v = 0.95;
    float f = h * 6.0;
    int sector = int(f) % 6;
    float frac = f - floor(f);
    float p = v * (1.0 - s), q = v * (1.0 - s * frac), t = v * (1.0 - s * (1.0 - frac));
    if (sector == 0) return vec3(v, t, p);
    if (sector == 1) return vec3(q, v, p);
    if (sector == 2) return vec3(p, v, t);
    if (sector == 3) return vec3(p, q, v);
    if (sector == 4) return vec3(t, p, v);
    return vec3(v, p, q);
}

vec3 ramp(float t) {
    const vec3 stops[4] = vec3[4](vec3(0.15, 0.35, 0.95), vec3(0.15, 0.80, 0.35),
                                  vec3(0.95, 0.85, 0.15), vec3(0.95, 0.20, 0.15));
    t = clamp(t, 0.0, 1.0) * 3.0;
    int i = min(int(t), 2);
    return mix(stops[i], stops[i + 1], t - float(i));
}

vec4 body_colour() {
    if (u_colour_source == 0) return a_color;
    if (a_inv_mass == 0.0) return vec4(vec3(140.0 / 255.0), 1.0);
    if (u_colour_source == 1) {
        float t = length(a_velocity) * u_inv_speed_scale;
        return vec4(ramp(t < 1.0 ? t : 1.0), 1.0);  // NaN reads as the fastest
    }
    return vec4(hue(float(mix_bits(uint(gl_InstanceID)) >> 8u) / 16777216.0), 1.0);
}
