# SDL2 for the browser, compiled from the pinned release tarball's sources (../shared/web) with
# SDL's own Emscripten configuration header (include/SDL_config_emscripten.h, which turns
# threads on where the objects are compiled with -pthread). SDL's CMake configure runs each of
# its ~200 checks through emcc and took over 13 minutes on CI's two cores; these sources
# compile in about a minute, and once a build folder has them they are not compiled again.
# Emscripten's own SDL2 port downloads its sources, which these machines cannot.
function(collidoscope_sdl2_from_source source_dir)
  if(NOT EXISTS ${source_dir}/include/SDL_config_emscripten.h)
    message(FATAL_ERROR "COLLIDOSCOPE_SDL2_SOURCE_DIR=${source_dir} holds no SDL2 source "
                        "(scripts/web unpacks ../shared/web/SDL2-*.tar.gz there)")
  endif()
  set(src ${source_dir}/src)
  # The subsystems SDL_config_emscripten.h turns on, and their Emscripten or dummy drivers.
  set(folders . atomic audio audio/emscripten audio/disk audio/dummy cpuinfo dynapi events file
      filesystem/emscripten haptic haptic/dummy joystick joystick/emscripten loadso/dlopen
      locale locale/emscripten misc misc/emscripten power power/emscripten render
      render/opengles2 render/software sensor sensor/dummy stdlib thread timer timer/unix video
      video/emscripten video/dummy video/yuv2rgb)
  if(COLLIDOSCOPE_WEB_THREADS)
    list(APPEND folders thread/pthread)
  else()
    list(APPEND folders thread/generic)
  endif()
  set(sources)
  foreach(folder IN LISTS folders)
    file(GLOB found CONFIGURE_DEPENDS ${src}/${folder}/*.c)
    list(APPEND sources ${found})
  endforeach()
  add_library(sdl2_web STATIC ${sources})
  target_include_directories(sdl2_web PUBLIC ${source_dir}/include)
  # Emscripten 3.1.6 lacks EM_JS_DEPS, which SDL >= 2.28 uses (../shared/web/README.md).
  target_compile_options(sdl2_web PRIVATE -include ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/em_js_deps.h
                                          -w)
  add_library(SDL2::SDL2 ALIAS sdl2_web)
endfunction()
