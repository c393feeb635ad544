// The instance inputs circles and spheres share, and their colour: given per instance (the
// CPU world's cost colours), else body_colour.glsl's from the arrays. Prepended, after
// body_colour.glsl, to circle.vert and sphere.vert; the renderer defines kDotRadiusPx
// (Renderer::kDotRadiusPx) just before it.
layout(location = 0) in vec3 a_centre;
layout(location = 1) in float a_radius;
layout(location = 2) in vec4 a_color;
layout(location = 3) in vec3 a_velocity;
layout(location = 4) in float a_inv_mass;  // 0 = static

vec4 body_colour() {
    if (u_colour_source == 0) return a_color;
    return colour_of(a_velocity, a_inv_mass, uint(gl_InstanceID));
}
