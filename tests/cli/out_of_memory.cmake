# A run too big for the memory it may use is refused before anything is
# simulated, with the estimate, the memory it had and the fix, and exit 1;
# with the fix it names (--no-check) the same run passes under the same
# limit. Data too big to make at all is a message naming that phase. The
# limit is the process's address space (ulimit -v): layernorm at 8192 x 2048
# holds about 220 MB of data and simulates in about 400 MB of address space;
# its CPU reference needs 600 MB more.
function(run_limited limit_kb out_var rc_var)
  execute_process(COMMAND sh -c "ulimit -v ${limit_kb} && exec \"$0\" \"$@\"" ${TOOL} run layernorm --size rows=8192,D=2048
                          --timeline-blocks none --color never ${ARGN}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  set(${out_var} "${out}${err}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()
# The report wraps its messages: compared with the line breaks made spaces.
function(expect_all out)
  string(REGEX REPLACE "[ \n]+" " " out "${out}")
  foreach(want ${ARGN})
    string(FIND "${out}" "${want}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "the out-of-memory report lacks \"${want}\":\n${out}")
    endif()
  endforeach()
endfunction()
set(ENV{TKLAB_SIM_THREADS} 1)

run_limited(550000 out rc)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit 1 for a run that cannot fit, got ${rc}:\n${out}")
endif()
expect_all("${out}" "run: out of memory" "to check the result against the CPU" "D=2048,rows=8192" "(ulimit -v)"
           "Nothing was simulated" "(--no-check needs" "simulated 0 warp instructions")

run_limited(550000 out rc --no-check)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "with --no-check the run should fit in 550000 KB of address space, but exited ${rc}:\n${out}")
endif()

# A lesson declares no data size: its data too big to make is a message
# naming that phase, without offering --no-check, which cannot help.
execute_process(COMMAND sh -c "ulimit -v 130000 && exec \"$0\" \"$@\"" ${TOOL} run lesson04 --variant solution
                        --size M=4096,N=4096 --color never
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
set(out "${out}${err}")
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit 1 for data that cannot be made, got ${rc}:\n${out}")
endif()
expect_all("${out}" "run: out of memory" "while setting up its data" "(ulimit -v)")
string(FIND "${out}" "--no-check" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "--no-check cannot help when the data does not fit, yet the message offers it:\n${out}")
endif()

# A kernel declares what its data takes (tk::host::data_size): a size whose
# data alone cannot fit is refused before any of it is made.
execute_process(COMMAND sh -c "ulimit -v 550000 && exec \"$0\" \"$@\"" ${TOOL} run gemm --size 16384 --color never
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
set(out "${out}${err}")
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit 1 for gemm at 16384^3 in 550000 KB, got ${rc}:\n${out}")
endif()
expect_all("${out}" "run: out of memory" "M=16384" "for its data and" "Nothing was made or simulated" "in 0.0")
