// Colours the pixels the dot splat marked (collide::gpu::DotSplat): each holds the id + 1 of
// the body in it, whose velocity and inverse mass give its colour. Unmarked pixels are left.
// (body_colour.glsl comes first: #version and colour_of().)

uniform usamplerBuffer u_pixels;
uniform samplerBuffer u_velocity;  // two floats a body
uniform samplerBuffer u_inv_mass;  // its first float
uniform ivec2 u_origin;            // the viewport's, in framebuffer pixels
uniform int u_width;

out vec4 frag_color;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy) - u_origin;
    uint body = texelFetch(u_pixels, p.y * u_width + p.x).r;
    if (body == 0u) discard;
    int id = int(body - 1u);
    vec3 velocity = vec3(texelFetch(u_velocity, id).xy, 0.0);
    frag_color = colour_of(velocity, texelFetch(u_inv_mass, id).r, uint(id));
}
