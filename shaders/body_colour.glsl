#version 330 core
// A body's colour from the body arrays: speed on the ramp of collide::ramp_color, or a hue
// hashed from the body's id as the CPU world does; static bodies grey, sleeping ones dimmed
// (kAsleepBrightness in app/common/palette.hpp). Prepended to the body shaders (with
// body_instance.glsl) and to dot_composite.frag.
uniform int u_colour_source;  // 0: each instance's own (body_instance.glsl); 1: speed; 2: id
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

// Colour sources 1 and 2 (inv_mass 0 = static, < 0 = asleep).
vec4 colour_of(vec3 velocity, float inv_mass, uint id) {
    if (inv_mass == 0.0) return vec4(vec3(140.0 / 255.0), 1.0);
    vec3 c;
    if (u_colour_source == 1) {
        float t = length(velocity) * u_inv_speed_scale;
        c = ramp(t < 1.0 ? t : 1.0);  // NaN reads as the fastest
    } else {
        c = hue(float(mix_bits(id) >> 8u) / 16777216.0);
    }
    return vec4(inv_mass < 0.0 ? c * 0.4 : c, 1.0);
}
