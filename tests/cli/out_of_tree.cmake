# A user's own kernel, outside the repository: examples/my_kernel copied to a
# fresh folder under the system's temporary folder, configured with
# find_package(tklab) against this build folder (simulator only, for speed),
# built, and run. Checks that the program runs its kernel and the check
# passes, that it offers its kernel and no built-in one, that its trace reads
# back, that compile_commands.json is written, and that the two mistakes a
# user makes first (a wrong tklab_DIR, a missing source) are messages that
# name the fix. The same program by add_subdirectory(tklab) is configured and
# its kernel compiled.
#   cmake -DEXAMPLE=<examples/my_kernel> -DTKLAB_BUILD=<tklab's build folder> -DGENERATOR=<generator>
#         [-DCXX=<compiler>] [-DLAUNCHER=<ccache>] -P out_of_tree.cmake
foreach(v EXAMPLE TKLAB_BUILD GENERATOR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "out_of_tree.cmake needs -D${v}=...")
  endif()
endforeach()
set(tmp "$ENV{TMPDIR}")
if(NOT tmp OR NOT IS_DIRECTORY "${tmp}")
  set(tmp /tmp)
endif()
string(RANDOM LENGTH 8 suffix)
set(work ${tmp}/tklab-out-of-tree-${suffix})
get_filename_component(repo ${EXAMPLE}/../.. ABSOLUTE)
string(FIND "${work}/" "${repo}/" inside)
if(inside EQUAL 0)
  message(FATAL_ERROR "the test folder ${work} is inside the repository ${repo}; set TMPDIR to a folder outside it")
endif()
file(REMOVE_RECURSE ${work})
# The example's sources, not a build folder someone made inside it.
file(GLOB sources ${EXAMPLE}/CMakeLists.txt ${EXAMPLE}/*.cu ${EXAMPLE}/*.cuh ${EXAMPLE}/*.h)
file(COPY ${sources} DESTINATION ${work}/my_kernel)

set(configure_args -G "${GENERATOR}" -DCMAKE_BUILD_TYPE=Release -DTKLAB_CUDA=OFF)
if(CXX)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER=${CXX})
endif()
if(LAUNCHER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (exit ${rc}); the folder is kept: ${work}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

# CMake wraps its messages' lines: compare with runs of blanks as one space.
function(expect text in what)
  string(REGEX REPLACE "[ \n]+" " " flat "${in}")
  string(REGEX REPLACE "[ \n]+" " " text "${text}")
  string(FIND "${flat}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what}: expected \"${text}\" in:\n${in}\n(the folder is kept: ${work})")
  endif()
endfunction()

function(expect_not text in what)
  string(FIND "${in}" "${text}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${what}: did not expect \"${text}\" in:\n${in}\n(the folder is kept: ${work})")
  endif()
endfunction()

# 1. Configure and build against this build folder.
step("configuring ${work}/my_kernel with -Dtklab_DIR=${TKLAB_BUILD}"
     ${CMAKE_COMMAND} -S ${work}/my_kernel -B ${work}/build ${configure_args} -Dtklab_DIR=${TKLAB_BUILD})
step("building ${work}/build" ${CMAKE_COMMAND} --build ${work}/build)
set(program ${work}/build/my_kernel)
if(NOT EXISTS ${work}/build/compile_commands.json)
  message(FATAL_ERROR "no compile_commands.json in ${work}/build")
endif()
file(READ ${work}/build/compile_commands.json commands)
expect("my_kernel.cu" "${commands}" "compile_commands.json")

# 2. The program: its kernel and no built-in one; help under its own name.
step("my_kernel list" ${program} list)
expect("my_kernel" "${out}" "my_kernel list")
expect_not("gemm" "${out}" "my_kernel list (the built-in kernels are tklab's)")
step("my_kernel --help" ${program} --help)
expect("my_kernel: runs tile kernels in the CPU simulator" "${out}" "my_kernel --help")
expect_not("lesson" "${out}" "my_kernel --help (the workshop is tklab's)")

# 3. A run: the kernel in the simulator, checked against its CPU reference, traced.
step("my_kernel run my_kernel" ${program} run my_kernel --size R=48,C=192 --seed 7 --color never --trace ${work}/run.json)
expect("Launch 0: my_kernel grid" "${out}" "my_kernel run")
expect("problem C=192 R=48" "${out}" "my_kernel run")
expect("PASS  out  variant default" "${out}" "my_kernel run")
expect("my_kernel: wrote ${work}/run.json" "${err}" "my_kernel run")
expect("most stalled line my_kernel.cu:" "${out}" "my_kernel run (its files named from its folder)")
set(run_report "${out}")
step("my_kernel report" ${program} report ${work}/run.json --color never)
if(NOT out STREQUAL run_report)
  message(FATAL_ERROR "`my_kernel report` of the saved trace differs from the run's report:\n${out}\n---\n${run_report}")
endif()
# `view` hands over to tklab's visualizer, where tklab's build has one.
if(EXISTS ${TKLAB_BUILD}/tklab_view)
  step("my_kernel view --help" ${program} view --help)
  expect("--screenshot" "${out}" "my_kernel view --help (tklab_view's help)")
else()
  execute_process(COMMAND ${program} view ${work}/run.json RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  expect("my_kernel view: the visualizer was not built (${TKLAB_BUILD}/tklab_view is missing)" "${err}" "my_kernel view")
endif()
# A mistake on its command line is the program's own message.
execute_process(COMMAND ${program} run gemm RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "my_kernel run gemm: expected exit 2, got ${rc}:\n${out}${err}")
endif()
expect("my_kernel: nothing called 'gemm' to run; `my_kernel list` shows" "${err}" "my_kernel run gemm")

# 4. The first mistakes: a tklab_DIR that is no tklab build, and a source that is not there.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${work}/my_kernel -B ${work}/wrong_dir ${configure_args} -Dtklab_DIR=${work}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "configuring with -Dtklab_DIR=${work} (no tklab there) succeeded:\n${out}${err}")
endif()
expect("tklab_DIR" "${err}" "a wrong tklab_DIR")
expect("tklabConfig.cmake" "${err}" "a wrong tklab_DIR")
file(WRITE ${work}/missing/CMakeLists.txt
     "cmake_minimum_required(VERSION 3.25)\nproject(missing LANGUAGES CXX)\nfind_package(tklab REQUIRED)\n"
     "tklab_add_kernel(missing SOURCES no_such_kernel.cu)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${work}/missing -B ${work}/missing/build ${configure_args} -Dtklab_DIR=${TKLAB_BUILD}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "tklab_add_kernel with a missing source configured:\n${out}${err}")
endif()
expect("the source no_such_kernel.cu does not exist (looked for ${work}/missing/no_such_kernel.cu)" "${err}" "a missing source")

# 5. add_subdirectory(path/to/tklab tklab) instead of find_package: configured
#    and the kernel's object compiled (linking would build all of tklab's
#    libraries again; step 1 links and runs the same program).
get_filename_component(tklab_source ${EXAMPLE}/../.. ABSOLUTE)
file(MAKE_DIRECTORY ${work}/sub)
file(COPY ${work}/my_kernel/my_kernel.cu DESTINATION ${work}/sub)
file(WRITE ${work}/sub/CMakeLists.txt
     "cmake_minimum_required(VERSION 3.25)\nproject(my_kernel LANGUAGES CXX)\n"
     "add_subdirectory(${tklab_source} tklab EXCLUDE_FROM_ALL)\ntklab_find_cuda()\n"
     "tklab_add_kernel(my_kernel SOURCES my_kernel.cu)\n")
step("configuring ${work}/sub with add_subdirectory(${tklab_source})"
     ${CMAKE_COMMAND} -S ${work}/sub -B ${work}/sub/build ${configure_args})
expect_not("CMake Warning" "${err}" "configuring with add_subdirectory")
if(NOT EXISTS ${work}/sub/build/compile_commands.json)
  message(FATAL_ERROR "no compile_commands.json in ${work}/sub/build")
endif()
if(GENERATOR MATCHES "Ninja")  # an object file is a target by this name in Ninja's build
  step("compiling my_kernel.cu in ${work}/sub/build"
       ${CMAKE_COMMAND} --build ${work}/sub/build --target CMakeFiles/my_kernel.dir/sim_sources/my_kernel.cu.cpp.o)
endif()

file(REMOVE_RECURSE ${work})
message(STATUS "out of tree: configured, built and ran examples/my_kernel in ${work}")
