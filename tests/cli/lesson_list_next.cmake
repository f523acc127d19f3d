# `tklab lesson list` ends by naming the next lesson not passed: lesson 1 on a
# fresh progress file, lesson 3 once 1 and 2 are passed.
set(progress ${WORKDIR}/lesson_list_next_progress.json)
function(list_with json want)
  file(WRITE ${progress} "${json}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TKLAB_LESSON_PROGRESS=${progress} ${TOOL} lesson list
                  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tklab lesson list exited ${rc}:\n${out}")
  endif()
  string(FIND "${out}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "with progress ${json}, expected \"${want}\" in:\n${out}")
  endif()
endfunction()
list_with("{}" "Start with `tklab lesson run 1`")
list_with("{\"passed\": {\"1\": true, \"2\": true}}" "Next: `tklab lesson run 3`")
file(REMOVE ${progress})
