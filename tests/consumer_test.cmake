# install.consumer (tests/CMakeLists.txt): install the engine into a fresh prefix, then
# configure, build and run tests/consumer against it as a project outside this tree would.
#   cmake -DBUILD_DIR=... -DCONFIG=... -DWORK_DIR=... -DCONSUMER_DIR=... -DGENERATOR=...
#         -DMAKE_PROGRAM=... -DCXX_COMPILER=... [-Dglm_DIR=... -DTBB_DIR=...] -P consumer_test.cmake
foreach(var BUILD_DIR CONFIG WORK_DIR CONSUMER_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "consumer_test.cmake: -D${var}=... is missing")
  endif()
endforeach()

# Runs one step; any non-zero exit fails the test with the step's output.
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install.consumer: ${what} failed (${rc})")
  endif()
endfunction()

# Start empty each time, so a file left by an earlier run cannot stand in for a missing rule.
set(prefix ${WORK_DIR}/prefix)
set(build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${prefix} ${build})

step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --config ${CONFIG}
     --prefix ${prefix} --component collide_engine)

# The same compiler, generator and build type as the engine; glm and oneTBB as it found them.
set(args -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=${CONFIG}
    -DCMAKE_PREFIX_PATH=${prefix})
if(MAKE_PROGRAM)
  list(APPEND args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()
foreach(var glm_DIR TBB_DIR)
  if(${var})
    list(APPEND args -D${var}=${${var}})
  endif()
endforeach()
step("configuring the consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${build} ${args})
step("building the consumer" ${CMAKE_COMMAND} --build ${build} --config ${CONFIG})

find_program(consumer consumer PATHS ${build} ${build}/${CONFIG} NO_DEFAULT_PATH REQUIRED)
step("running the consumer" ${consumer})
