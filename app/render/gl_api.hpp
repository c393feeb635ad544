// The OpenGL the app draws with: 3.3 core through glad on the desktop, OpenGL ES 3.0 (WebGL2)
// in the browser. The few calls that differ go through the helpers below, so the drawing
// code reads the same for both.
#pragma once

#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#include <glad/gl.h>
#endif

namespace collidoscope::gl {

#ifdef __EMSCRIPTEN__
inline constexpr bool kEs = true;
// What replaces the shaders' "#version 330 core" line: GLSL ES 3.00 with the precision
// desktop GLSL implies, and VERTEX_COLOUR (see colour_attribute).
inline constexpr const char* kShaderPreamble =
    "#version 300 es\nprecision highp float;\nprecision highp int;\n"
    "#define VERTEX_COLOUR(c) (c).bgra\n";
#else
inline constexpr bool kEs = false;
inline constexpr const char* kShaderPreamble =
    "#version 330 core\n#define VERTEX_COLOUR(c) (c)\n";
#endif

// Per-vertex colours are 0xAARRGGBB words, blue first in memory. Desktop GL reads them as
// BGRA directly; ES reads RGBA, and the shaders swap red and blue (VERTEX_COLOUR).
inline void colour_attribute(GLuint index, GLsizei stride, const void* offset) {
#ifdef __EMSCRIPTEN__
    glVertexAttribPointer(index, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, offset);
#else
    glVertexAttribPointer(index, GL_BGRA, GL_UNSIGNED_BYTE, GL_TRUE, stride, offset);
#endif
}

// Point sprites sized by the vertex shader: switched on in desktop core profiles, always on
// in ES.
inline void program_point_size(bool on) {
#ifndef __EMSCRIPTEN__
    if (on) glEnable(GL_PROGRAM_POINT_SIZE);
    else glDisable(GL_PROGRAM_POINT_SIZE);
#else
    (void)on;
#endif
}

}  // namespace collidoscope::gl
