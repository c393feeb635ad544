# The documentation's tests (issue 26), included from tests/CMakeLists.txt, and the layers
# the architecture page describes.
#  - docs.links: every relative link and image in README.md and docs/**/*.md resolves, #anchors
#    included (scripts/check-links names the file and line of each broken one).
#  - docs.app_reference_current: docs/app-reference.md and docs/bench-reference.md say what this
#    build's `collidoscope --help` and `collidoscope-bench --help` print; when a flag or a key
#    binding changes, it fails with the difference until scripts/gen-app-reference is run.
# Both are Python 3 standard library only. The app reads no settings for --help, but its tests
# get an empty settings folder all the same, as every app test does.
set(DOCS_NO_SETTINGS ENVIRONMENT XDG_CONFIG_HOME=${CMAKE_CURRENT_BINARY_DIR}/no-settings)

add_test(NAME docs.links
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/scripts/check-links
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(docs.links PROPERTIES TIMEOUT 60)

# The layers of docs/architecture.md: the engine includes no SDL, GL or ImGui, ui/ never
# includes main/, and so on down (scripts/check-includes names each include that goes up).
add_test(NAME docs.include_layers
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/scripts/check-includes
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(docs.include_layers PROPERTIES TIMEOUT 60)

if(TARGET collidoscope AND TARGET collidoscope-bench)
  add_test(NAME docs.app_reference_current
           COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/scripts/gen-app-reference --check
                   --app $<TARGET_FILE:collidoscope> --bench $<TARGET_FILE:collidoscope-bench>
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(docs.app_reference_current PROPERTIES TIMEOUT 60
                       ${DOCS_NO_SETTINGS})
endif()
