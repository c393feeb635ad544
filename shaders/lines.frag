// Overlay lines are drawn with their own colour; alpha blending does the rest.
#version 330 core

in vec4 v_color;

out vec4 frag_color;

void main() { frag_color = v_color; }
