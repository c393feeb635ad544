# The browser app: main/browser.cpp (the frame loop the browser drives, downloads, uploads,
# storage), WebGL2 through Emscripten's GLES3, and the site folder the page loads it from.
target_sources(collidoscope PRIVATE main/browser.cpp)
target_link_libraries(collidoscope PRIVATE stb)
set(COLLIDOSCOPE_WEB_SITE_DIR ${CMAKE_BINARY_DIR}/site CACHE PATH "Where the built page goes")
if(COLLIDOSCOPE_WEB_THREADS)
  set(variant threads)
  # Workers started with the page, so that the engine's pool never waits on the browser to
  # start one (the main thread cannot yield to it). At most 8: the engine's lead is in the
  # algorithms, and more workers only cost memory.
  target_link_options(collidoscope PRIVATE "-sPTHREAD_POOL_SIZE=Math.min(navigator.hardwareConcurrency||1,8)"
                      # The heap grows as worlds do; the cost is in JavaScript's view of it,
                      # which the app barely uses.
                      -Wno-pthreads-mem-growth)
else()
  set(variant single)
endif()
set_target_properties(collidoscope PROPERTIES
  OUTPUT_NAME collidoscope-${variant} SUFFIX ".js"
  RUNTIME_OUTPUT_DIRECTORY ${COLLIDOSCOPE_WEB_SITE_DIR})
target_link_options(collidoscope PRIVATE
  -sUSE_WEBGL2=1 -sMIN_WEBGL_VERSION=2 -sMAX_WEBGL_VERSION=2 -sFULL_ES3=1
  -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=64MB
  "-sEXPORTED_RUNTIME_METHODS=['FS','callMain']" -sINVOKE_RUN=0
  # SDL's JavaScript calls these; a response file, since CMake and Ninja both rewrite '$'.
  @${PROJECT_SOURCE_DIR}/web/sdl_link_flags.rsp)
# The page and its loader, copied beside the build's .js and .wasm.
foreach(file index.html loader.js)
  configure_file(${PROJECT_SOURCE_DIR}/web/site/${file} ${COLLIDOSCOPE_WEB_SITE_DIR}/${file} COPYONLY)
endforeach()
