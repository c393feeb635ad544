#version 330 core
// One triangle over the whole viewport, for dot_composite.frag.
void main() {
    vec2 p = vec2((gl_VertexID & 1) != 0 ? 3.0 : -1.0, (gl_VertexID & 2) != 0 ? 3.0 : -1.0);
    gl_Position = vec4(p, 0.0, 1.0);
}
