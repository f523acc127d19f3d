# A run that runs out of memory in host code ends with a message naming the
# phase, the size, the memory it had and the fix, and exit 1; with the fix it
# names (--no-check) the same run passes under the same limit. The limit is
# the process's address space (ulimit -v): about 400 MB is enough to simulate
# layernorm at 8192 x 2048, its CPU reference needs more than 700 MB.
set(limit_kb 550000)
function(run_limited out_var rc_var)
  execute_process(COMMAND sh -c "ulimit -v ${limit_kb} && exec \"$0\" \"$@\"" ${TOOL} run layernorm --size rows=8192,D=2048
                          --timeline-blocks none --color never ${ARGN}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  set(${out_var} "${out}${err}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()
set(ENV{TKLAB_SIM_THREADS} 1)
run_limited(out rc)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit 1 for a run out of memory, got ${rc}:\n${out}")
endif()
# (The report wraps the message: short pieces.)
foreach(want "run: out of memory" "checking the result against the CPU" "D=2048,rows=8192" "(ulimit -v)" "(--no-check)")
  string(FIND "${out}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the out-of-memory report lacks \"${want}\":\n${out}")
  endif()
endforeach()
run_limited(out rc --no-check)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "with --no-check the run should fit in ${limit_kb} KB of address space, but exited ${rc}:\n${out}")
endif()
