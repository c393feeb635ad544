// The instance inputs circles and spheres share, and their colour: given per instance (the
// CPU world's cost colours), else body_colour.glsl's from the arrays. Prepended, after
// body_colour.glsl, to circle.vert and sphere.vert; the renderer defines kDotRadiusPx
// (Renderer::kDotRadiusPx) just before it.
layout(location = 0) in vec3 a_centre;
layout(location = 1) in float a_radius;
layout(location = 2) in vec4 a_color;
layout(location = 3) in vec3 a_velocity;
layout(location = 4) in float a_inv_mass;  // 0 = static, < 0 asleep, -2 no body

// An empty slot (a removed body): a radius < 0 per instance, or an inverse mass of -2 in the
// arrays. Its vertices go outside the clip volume, so nothing is drawn.
bool no_body() {
    return a_radius < 0.0 || (u_colour_source != 0 && a_inv_mass < -1.5);
}

// The body this vertex draws: its instance, or, for point sprites drawn a vertex per body
// (the browser's, see Renderer::kVertexPerBody), its vertex; the other is then 0.
uint body_index(bool points) {
    return uint(points ? gl_InstanceID + gl_VertexID : gl_InstanceID);
}

vec4 body_colour(uint body) {
    if (u_colour_source == 0) return VERTEX_COLOUR(a_color);
    return colour_of(a_velocity, a_inv_mass, body);
}
