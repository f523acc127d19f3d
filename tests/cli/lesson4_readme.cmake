# Lesson 4's README figures are the tool's: the slowest block of the
# unpadded transpose and of the swizzled one (part 1), and of the GEMM as
# shipped and fixed with its shared wavefronts (part 2), each as
# `tklab run` prints it at the default size. Run without the compiler's
# figures, as every reader without nvcc sees it.
file(READ ${README} readme)
string(REPLACE "\n" " " readme "${readme}")  # line breaks as spaces
function(slowest program variant out_var)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TKLAB_COMPILER_FIGURES= ${TOOL} run ${program} --variant ${variant} --color never
                  OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tklab run ${program} --variant ${variant} failed (exit ${rc})")
  endif()
  string(REGEX MATCH "slowest block ([0-9]+) cycles" m "${out}")
  set(${out_var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  string(REGEX MATCH "shared wavefronts +([0-9]+) achieved vs ([0-9]+) ideal" m "${out}")
  set(${out_var}_wavefronts "${CMAKE_MATCH_1}" PARENT_SCOPE)
  set(${out_var}_ideal "${CMAKE_MATCH_2}" PARENT_SCOPE)
endfunction()
# 6554 as "6,554", as the README writes thousands in part 2.
function(commas n out_var)
  string(LENGTH "${n}" len)
  if(len GREATER 3)
    math(EXPR head "${len} - 3")
    string(SUBSTRING "${n}" 0 ${head} a)
    string(SUBSTRING "${n}" ${head} 3 b)
    set(n "${a},${b}")
  endif()
  set(${out_var} "${n}" PARENT_SCOPE)
endfunction()
slowest(lesson04 unpadded unpadded)
slowest(lesson04 solution swizzled)
slowest(lesson04_gemm exercise shipped)
slowest(lesson04_gemm solution fixed)
commas(${shipped} shipped_c)
commas(${fixed} fixed_c)
commas(${shipped_wavefronts} wf_c)
commas(${shipped_ideal} ideal_c)
foreach(want
    "its slowest block takes ${unpadded} cycles"
    "no conflicts and take ${swizzled}."
    "the conflicts cost ${wf_c} shared wavefronts where ${ideal_c} do"
    "the slowest block takes ${shipped_c} cycles instead of ${fixed_c}.")
  string(FIND "${readme}" "${want}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "lessons/04_bank_conflicts/README.md should say \"${want}\" (the runs' figures)")
  endif()
endforeach()
