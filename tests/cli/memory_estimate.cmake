# The memory a run estimates before it simulates covers the peak it then
# reaches, and is not far above it, for kernels whose data dominates: an
# element-wise kernel, one with float tables, and a lesson's transpose.
set(ENV{TKLAB_SIM_THREADS} 1)
foreach(run "layernorm;--size;rows=4096,D=2048" "rotary;--size;B=4,H=16,N=1024,D=128"
            "lesson04;--variant;solution;--size;M=2048,N=2048")
  execute_process(COMMAND ${TOOL} run ${run} --timeline-blocks none --color never
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${run} exited ${rc}:\n${out}${err}")
  endif()
  if(NOT err MATCHES "memory peak ([0-9]+)\\.[0-9] MB \\(estimated ([0-9]+)\\.[0-9] MB\\)")
    message(FATAL_ERROR "${run}: no 'memory peak N MB (estimated M MB)' line:\n${err}")
  endif()
  set(peak ${CMAKE_MATCH_1})
  set(estimate ${CMAKE_MATCH_2})
  math(EXPR ceiling "${peak} * 3 / 2")
  if(estimate LESS peak OR estimate GREATER ceiling)
    message(FATAL_ERROR "${run}: estimated ${estimate} MB against a peak of ${peak} MB; the estimate should lie between "
                        "the peak and 1.5 times it (cli/backend_sim.cpp, estimate_run_memory)")
  endif()
  message(STATUS "${run}: peak ${peak} MB, estimated ${estimate} MB")
endforeach()
