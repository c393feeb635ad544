# collide_embed_shaders(OUT_HEADERS GENERATED_DIR file...): each GLSL file under shaders/
# becomes GENERATED_DIR/shaders/<file>.hpp holding a raw string named k<Base><Stage>
# (circle.vert -> kCircleVert, gpu/grid_pairs.comp -> kGridPairsComp); the header is rebuilt
# when the GLSL changes. OUT_HEADERS receives the headers, to list as sources.
function(collide_embed_shaders out_headers generated_dir)
  set(headers)
  foreach(shader IN LISTS ARGN)
    get_filename_component(base ${shader} NAME_WE)
    get_filename_component(stage ${shader} LAST_EXT)
    string(SUBSTRING ${stage} 1 -1 stage)
    set(symbol "k")
    string(REPLACE "_" ";" words "${base};${stage}")
    foreach(word IN LISTS words)
      string(SUBSTRING ${word} 0 1 first)
      string(SUBSTRING ${word} 1 -1 rest)
      string(TOUPPER ${first} first)
      string(APPEND symbol ${first}${rest})
    endforeach()
    set(input ${PROJECT_SOURCE_DIR}/shaders/${shader})
    set(output ${generated_dir}/shaders/${shader}.hpp)
    add_custom_command(
      OUTPUT ${output}
      COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${output} -DNAME=${symbol}
              -P ${PROJECT_SOURCE_DIR}/cmake/embed_shader.cmake
      DEPENDS ${input} ${PROJECT_SOURCE_DIR}/cmake/embed_shader.cmake
      COMMENT "Embedding shaders/${shader}"
      VERBATIM)
    list(APPEND headers ${output})
  endforeach()
  set(${out_headers} ${headers} PARENT_SCOPE)
endfunction()
