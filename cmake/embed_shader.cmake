# Turns one GLSL file into a C++ header holding it as a raw string literal, so the app
# and the GPU library carry their shaders inside their binaries and never look for files.
# Usage: cmake -DINPUT=file.glsl -DOUTPUT=file.hpp -DNAME=kSymbol -P embed_shader.cmake
if(NOT INPUT OR NOT OUTPUT OR NOT NAME)
  message(FATAL_ERROR "embed_shader.cmake needs INPUT, OUTPUT and NAME")
endif()

file(READ "${INPUT}" source)
set(delimiter "glsl")
string(FIND "${source}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains ')${delimiter}\"', which would end the raw string early")
endif()

get_filename_component(file_name "${INPUT}" NAME)
set(header "// Generated from ${INPUT} by cmake/embed_shader.cmake. Do not edit.\n")
string(APPEND header "#pragma once\n\nnamespace collidoscope::shaders {\n\n")
string(APPEND header "inline constexpr const char ${NAME}[] = R\"${delimiter}(${source})${delimiter}\";\n\n")
string(APPEND header "}  // namespace collidoscope::shaders\n")
file(WRITE "${OUTPUT}" "${header}")
