# Helpers for building one kernel source two ways.

# Writes a .cpp that embeds every sim/arch/*.json, so binaries need no data files.
function(tklab_embed_arch_data out)
  file(GLOB jsons CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/sim/arch/*.json)
  set(body "#include <cstring>\n#include <string>\nnamespace tklab::sim {\nconst char* builtin_arch_json(const std::string& name) {\n")
  foreach(j ${jsons})
    get_filename_component(n ${j} NAME_WE)
    file(READ ${j} text)
    string(APPEND body "    if (name == \"${n}\") return R\"tkjson(${text})tkjson\";\n")
  endforeach()
  string(APPEND body "    return nullptr;\n}\n}\n")
  file(GENERATE OUTPUT ${out} CONTENT "${body}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${jsons})
endfunction()

# tklab_sim_sources(<var> <file.cu>...): for each CUDA source, a generated .cpp
# that includes it, so the same file compiles as C++ for the simulator.
function(tklab_sim_sources var)
  set(result)
  foreach(src ${ARGN})
    get_filename_component(abs ${src} ABSOLUTE)
    if(abs MATCHES "\\.cu$")
      file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${abs})
      set(out ${PROJECT_BINARY_DIR}/sim_sources/${rel}.cpp)
      file(GENERATE OUTPUT ${out} CONTENT "// Generated: compiles ${rel} for the simulator.\n#include \"${abs}\"\n")
      set_source_files_properties(${out} PROPERTIES OBJECT_DEPENDS ${abs})
      list(APPEND result ${out})
    else()
      list(APPEND result ${abs})
    endif()
  endforeach()
  set(${var} ${result} PARENT_SCOPE)
endfunction()

# tklab_add_program(<name> SOURCES <files> [LIBS <libs>]): <name>_sim always;
# <name>_gpu when the GPU targets are on. Sources ending in .cu build both ways.
function(tklab_add_program name)
  cmake_parse_arguments(A "" "" "SOURCES;LIBS;SIM_SOURCES;GPU_SOURCES" ${ARGN})
  if(TKLAB_BUILD_SIM)
    tklab_sim_sources(sim_srcs ${A_SOURCES})
    add_executable(${name}_sim ${sim_srcs} ${A_SIM_SOURCES})
    target_link_libraries(${name}_sim PRIVATE tk tklab_sim ${A_LIBS})
    target_compile_options(${name}_sim PRIVATE -Wall -Wextra)
  endif()
  if(TKLAB_WITH_CUDA)
    add_executable(${name}_gpu ${A_SOURCES} ${A_GPU_SOURCES})
    target_link_libraries(${name}_gpu PRIVATE tk CUDA::cudart ${A_LIBS})
    target_compile_options(${name}_gpu PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -lineinfo>)
  endif()
endfunction()

# tklab_add_runnable(<file.cu>...): sources that register kernels or lessons
# by name; cli/ builds them into `tklab` (simulator) and `tklab_gpu`.
function(tklab_add_runnable)
  foreach(src ${ARGN})
    get_filename_component(abs ${src} ABSOLUTE)
    set_property(GLOBAL APPEND PROPERTY TKLAB_RUNNABLE_SOURCES ${abs})
  endforeach()
endfunction()
