# Helpers for building one kernel source two ways. tklab's own build includes
# this file, and so does a user's project: through find_package(tklab)
# (tklabConfig.cmake, generated into tklab's build folder) or through
# add_subdirectory(path/to/tklab tklab). The functions name tklab's own
# folders by CMAKE_CURRENT_FUNCTION_LIST_DIR (this file's folder, whoever
# calls them) and the caller's by PROJECT_/CMAKE_CURRENT_ SOURCE_DIR/BINARY_DIR.

# tklab_find_cuda(): switches the GPU targets on where nvcc is found, in the
# directory that calls it (a macro: a language is enabled in a directory, not
# a function). TKLAB_CUDA (cache): AUTO (when nvcc is found), ON or OFF. Sets
# TKLAB_WITH_CUDA. tklab's CMakeLists.txt calls it, tklabConfig.cmake calls
# it for find_package(tklab), and a project that adds tklab by
# add_subdirectory calls it itself after that, for its own GPU programs.
macro(tklab_find_cuda)
  set(TKLAB_CUDA AUTO CACHE STRING "Build the GPU targets: AUTO (when nvcc is found), ON or OFF")
  set_property(CACHE TKLAB_CUDA PROPERTY STRINGS AUTO ON OFF)
  set(TKLAB_WITH_CUDA OFF)
  if(NOT TKLAB_CUDA STREQUAL "OFF")
    include(CheckLanguage)
    if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
      set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
    endif()
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
      enable_language(CUDA)
      find_package(CUDAToolkit REQUIRED)
      set(TKLAB_WITH_CUDA ON)
    elseif(TKLAB_CUDA STREQUAL "ON")
      message(FATAL_ERROR "TKLAB_CUDA=ON but no CUDA compiler was found; install the CUDA toolkit or configure with -DTKLAB_CUDA=OFF")
    endif()
  endif()
  if(TKLAB_WITH_CUDA)
    # CMake 3.25's nvcc support stops at C++17; nvcc 12+ takes -std=c++20.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    # sm_80 for the mma.sync/cp.async path; sm_90a for Hopper. Spelled as gencodes:
    # -arch=sm_90a also runs a plain sm_90 pass that rejects sm_90a-only instructions.
    set(TKLAB_CUDA_ARCHS "80;90a" CACHE STRING "GPU architectures to build")
    set(CMAKE_CUDA_ARCHITECTURES ${TKLAB_CUDA_ARCHS})
  endif()
endmacro()

# Writes to <out> a .cpp defining, in namespace <ns>, `const char* <fn>(const
# std::string& name)`: the text of file i for names[i], else nullptr (and
# <extra>, more code after it, inside the namespace).
function(_tklab_embed_texts out ns fn names files extra)
  set(body "#include <string>\nnamespace ${ns} {\nconst char* ${fn}(const std::string& name) {\n")
  foreach(n f IN ZIP_LISTS names files)
    file(READ ${f} text)
    string(APPEND body "    if (name == \"${n}\") return R\"tkembed(${text})tkembed\";\n")
  endforeach()
  string(APPEND body "    return nullptr;\n}\n${extra}}\n")
  file(GENERATE OUTPUT ${out} CONTENT "${body}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${files})
endfunction()

# Writes a .cpp that embeds every sim/arch/*.json, so binaries need no data files.
function(tklab_embed_arch_data out)
  get_filename_component(root ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/.. ABSOLUTE)
  file(GLOB jsons CONFIGURE_DEPENDS ${root}/sim/arch/*.json)
  set(names "")
  foreach(j ${jsons})
    get_filename_component(n ${j} NAME_WE)
    list(APPEND names ${n})
  endforeach()
  list(JOIN names ", " listed)
  _tklab_embed_texts(${out} tklab::sim builtin_arch_json "${names}" "${jsons}"
                     "const char* builtin_arch_names() { return \"${listed}\"; }\n")
endfunction()

# tklab_embed_fidelity_reports(<out.cpp>): the committed timing fidelity
# report of each built-in cost model (results/fidelity_timing_NAME.txt),
# for trace/fidelity_summary.h: a simulated trace's report says how far the
# simulator's time was from that GPU's on the same kernels.
function(tklab_embed_fidelity_reports out)
  get_filename_component(root ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/.. ABSOLUTE)
  file(GLOB jsons CONFIGURE_DEPENDS ${root}/sim/arch/*.json)
  set(names "")
  set(reports "")
  foreach(j ${jsons})
    get_filename_component(n ${j} NAME_WE)
    if(EXISTS ${root}/results/fidelity_timing_${n}.txt)
      list(APPEND names ${n})
      list(APPEND reports ${root}/results/fidelity_timing_${n}.txt)
    endif()
  endforeach()
  _tklab_embed_texts(${out} tklab::trace builtin_fidelity_report "${names}" "${reports}" "")
endfunction()

# tklab_sim_sources(<var> <file.cu>...): for each CUDA source, a generated .cpp
# that includes it, so the same file compiles as C++ for the simulator. The
# .cpp lands in the calling project's build folder, under sim_sources/ and
# the source's path in the project (a source outside the project: under
# sim_sources/outside/, by a hash of its folder).
function(tklab_sim_sources var)
  set(result)
  foreach(src ${ARGN})
    get_filename_component(abs ${src} ABSOLUTE)
    if(abs MATCHES "\\.cu$")
      file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${abs})
      if(rel MATCHES "^\\.\\./" OR IS_ABSOLUTE "${rel}")
        get_filename_component(dir ${abs} DIRECTORY)
        get_filename_component(file ${abs} NAME)
        string(MD5 hash "${dir}")
        string(SUBSTRING "${hash}" 0 12 hash)
        set(rel outside/${hash}/${file})
      endif()
      set(out ${PROJECT_BINARY_DIR}/sim_sources/${rel}.cpp)
      file(GENERATE OUTPUT ${out} CONTENT "// Generated: compiles ${abs} for the simulator.\n#include \"${abs}\"\n")
      set_source_files_properties(${out} PROPERTIES OBJECT_DEPENDS ${abs})
      list(APPEND result ${out})
    else()
      list(APPEND result ${abs})
    endif()
  endforeach()
  set(${var} ${result} PARENT_SCOPE)
endfunction()

# tklab_ptxas_figures(<target> <folder> <file.cu>...): when nvcc is here,
# each source compiled for sm_90a with `ptxas -v` into <folder>/<its path in
# the project>.txt (cmake/ptxas_figures.cmake), and <target> depends on them:
# a simulated launch shows ptxas's registers, stack frame and spills beside
# its own estimate (sim/compiler_figures.h). The program names <folder> by
# tklab::sim::set_compiler_figures_dir before its first launch.
function(tklab_ptxas_figures target dir)
  get_filename_component(root ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/.. ABSOLUTE)
  set(reports)
  foreach(src ${ARGN})
    get_filename_component(abs ${src} ABSOLUTE)
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${abs})
    if(rel MATCHES "^\\.\\./" OR IS_ABSOLUTE "${rel}")
      get_filename_component(rel ${abs} NAME)
    endif()
    set(out ${dir}/${rel})
    add_custom_command(
      OUTPUT ${out}.cubin ${out}.txt
      COMMAND ${CMAKE_COMMAND} -DNVCC=${CMAKE_CUDA_COMPILER} -DNVCC_VERSION=${CMAKE_CUDA_COMPILER_VERSION}
              -DSOURCE=${abs} -DINCLUDE=${root} -DARCH=sm_90a -DCUBIN=${out}.cubin
              -DDEPFILE=${out}.d -DREPORT=${out}.txt -P ${root}/cmake/ptxas_figures.cmake
      DEPENDS ${abs} ${root}/cmake/ptxas_figures.cmake
      DEPFILE ${out}.d
      COMMENT "ptxas figures for ${rel}"
      VERBATIM)
    list(APPEND reports ${out}.txt)
  endforeach()
  add_custom_target(${target}_compiler_figures_reports DEPENDS ${reports})
  add_dependencies(${target} ${target}_compiler_figures_reports)
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

# tklab_add_kernel(<name> SOURCES <file.cu>... [LIBS <libs>...]): a program of
# one's own kernels, from one's own folder. Each source registers its kernels
# by name (TKLAB_PROGRAM, tk/host/registry.h), as tklab's kernels do; <name>
# is tklab's command line with those kernels and no others:
#   <name> run KERNEL [--size ..] [--seed ..] [--trace ..]   in the simulator
#   <name> list | report | export | view | --help
#   <name>_gpu run KERNEL   (built when nvcc is found), or <name> run KERNEL --gpu
# Sources ending in .cu compile as C++ for the simulator and with nvcc for the
# GPU; other sources (.cpp) go into both programs as they are.
function(tklab_add_kernel name)
  cmake_parse_arguments(A "" "" "SOURCES;LIBS" ${ARGN})
  set(where "tklab_add_kernel(${name}) in ${CMAKE_CURRENT_LIST_FILE}")
  if(A_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${where}: unexpected arguments: ${A_UNPARSED_ARGUMENTS}.\n"
                        "Fix: name the kernel's files after SOURCES, e.g. tklab_add_kernel(${name} SOURCES ${name}.cu)")
  endif()
  if(NOT A_SOURCES)
    message(FATAL_ERROR "${where}: no sources.\n"
                        "Fix: name the kernel's files after SOURCES, e.g. tklab_add_kernel(${name} SOURCES ${name}.cu)")
  endif()
  if(NOT TARGET tklab::tklab_cli_sim)
    message(FATAL_ERROR "${where}: tklab's simulator libraries are not here (tklab::tklab_cli_sim is not a target).\n"
                        "Fix: call find_package(tklab REQUIRED) or add_subdirectory(path/to/tklab tklab) first, with a "
                        "tklab built with its simulator (TKLAB_BUILD_SIM=ON, the default).")
  endif()
  set(sources)
  foreach(src ${A_SOURCES})
    get_filename_component(abs ${src} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    if(NOT EXISTS ${abs} OR IS_DIRECTORY ${abs})
      message(FATAL_ERROR "${where}: the source ${src} does not exist (looked for ${abs}).\n"
                          "Fix: name a file that is there; a relative path is read from ${CMAKE_CURRENT_SOURCE_DIR}.")
    endif()
    list(APPEND sources ${abs})
  endforeach()

  # The GPU program: where tklab has its GPU targets and this directory has
  # CUDA switched on (find_package(tklab) does it; after add_subdirectory,
  # tklab_find_cuda() does).
  set(gpu OFF)
  if(TARGET tklab::tklab_cli_gpu)
    if(NOT DEFINED TKLAB_WITH_CUDA)
      message(WARNING "${where}: tklab has its GPU targets, but CUDA is not switched on in ${CMAKE_CURRENT_SOURCE_DIR}, "
                      "so ${name}_gpu is not built (only ${name}, for the simulator).\n"
                      "Fix: call tklab_find_cuda() after add_subdirectory(path/to/tklab ...), in the same CMakeLists.txt, "
                      "before tklab_add_kernel (or configure tklab with -DTKLAB_CUDA=OFF).")
    elseif(TKLAB_WITH_CUDA)
      set(gpu ON)
    endif()
  endif()

  # main(): tklab's command line (cli/main.cpp, in tklab_cli_sim and
  # tklab_cli_gpu) named after this program, with this project's kernels.
  set(gen ${CMAKE_CURRENT_BINARY_DIR}/tklab_generated)
  set(viewer "")
  if(TARGET tklab::tklab_view)
    set(viewer "$<TARGET_FILE:tklab::tklab_view>")
  endif()
  set(gpu_program "")
  if(gpu)
    set(gpu_program "$<TARGET_FILE:${name}_gpu>")
  endif()
  set(head "// Generated by ${where}:\n// tklab's command line with this project's kernels.\n#include \"cli/common.h\"\n")
  set(setup "    auto& tool = tklab::cli::tool();\n    tool.name = \"${name}\";\n    tool.lessons = false;\n")
  string(APPEND setup "    tool.gpu_program = \"${gpu_program}\";\n    tool.viewer = \"${viewer}\";\n")
  string(APPEND setup "    tool.source_dirs = {\"${CMAKE_CURRENT_SOURCE_DIR}\"};\n")
  # The simulator names this project's files relative to its folder, as it does tklab's (sim/kernel_source.h).
  set(sim_head "#include \"sim/kernel_source.h\"\n")
  set(sim_setup "    tklab::sim::add_source_root(\"${CMAKE_CURRENT_SOURCE_DIR}\");\n")
  if(gpu)
    string(APPEND sim_head "#include \"sim/compiler_figures.h\"\n")
    string(APPEND sim_setup "    tklab::sim::set_compiler_figures_dir(\"${CMAKE_CURRENT_BINARY_DIR}/${name}_compiler_figures\");\n")
  endif()
  set(call "    return tklab::cli::run_main(argc, argv);\n}\n")
  file(GENERATE OUTPUT ${gen}/${name}_main.cpp CONTENT "${head}${sim_head}\nint main(int argc, char** argv) {\n${setup}${sim_setup}${call}")

  tklab_sim_sources(sim_sources ${sources})
  add_executable(${name} ${sim_sources} ${gen}/${name}_main.cpp)
  target_link_libraries(${name} PRIVATE tklab::tklab_cli_sim ${A_LIBS})
  set(targets ${name})
  if(gpu)
    file(GENERATE OUTPUT ${gen}/${name}_gpu_main.cpp
         CONTENT "${head}\nint main(int argc, char** argv) {\n${setup}    tool.name = \"${name}_gpu\";\n${call}")
    add_executable(${name}_gpu ${sources} ${gen}/${name}_gpu_main.cpp)
    target_link_libraries(${name}_gpu PRIVATE tklab::tklab_cli_gpu ${A_LIBS})
    target_compile_options(${name}_gpu PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -lineinfo>)
    set_target_properties(${name}_gpu PROPERTIES CUDA_ARCHITECTURES "${TKLAB_CUDA_ARCHS}" CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON)
    list(APPEND targets ${name}_gpu)
    set(cu_sources ${sources})
    list(FILTER cu_sources INCLUDE REGEX "\\.cu$")
    if(cu_sources)
      tklab_ptxas_figures(${name} ${CMAKE_CURRENT_BINARY_DIR}/${name}_compiler_figures ${cu_sources})
    endif()
  endif()
  foreach(t ${targets})
    # C++20 as tklab is built; GCC's note on the ABI of 64-byte-aligned
    # parameters (tensor maps) says nothing when one compiler builds it all;
    # compile_commands.json for clangd and other tools.
    set_target_properties(${t} PROPERTIES CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF EXPORT_COMPILE_COMMANDS ON)
    target_compile_options(${t} PRIVATE $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-psabi>)
  endforeach()
endfunction()
