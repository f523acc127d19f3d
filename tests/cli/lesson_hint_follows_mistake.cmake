# The hint follows the mistake: `tklab lesson check 7` on the shipped exercise
# diagnoses a known mistake (the consumers do not wait on "full") and says
# the next hint is about it; `tklab lesson hint 7` then gives that mistake's
# hint from hints.md, then the general hints from the first; after --reset,
# the mistake's hint again.
set(progress ${WORKDIR}/lesson_hint_follows_mistake.json)
file(REMOVE ${progress})
function(run_tool want_rc want)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TKLAB_LESSON_PROGRESS=${progress} ${TOOL} ${ARGN}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL want_rc)
    message(FATAL_ERROR "`tklab ${ARGN}` exited ${rc}, expected ${want_rc}:\n${out}\n${err}")
  endif()
  string(FIND "${out}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "`tklab ${ARGN}`: expected \"${want}\" in:\n${out}")
  endif()
endfunction()
run_tool(1 "likely mistake: the consumers load the slot without waiting" lesson check 7 --no-build)
run_tool(1 "`tklab lesson hint 7` gives a hint on that mistake" lesson check 7 --no-build)
run_tool(0 "HOLE 4: before the two loads" lesson hint 7)
run_tool(0 "Hint 1 of 4 for lesson 7:" lesson hint 7)
run_tool(0 "start again" lesson hint 7 --reset)
run_tool(0 "A hint on the mistake your last check found (consumers_do_not_wait) for lesson 7:" lesson hint 7)
file(REMOVE ${progress})
