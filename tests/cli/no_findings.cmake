# Every kernel (all variants) and every lesson solution (and its other
# variants but the exercise) runs in the simulator with every bug finder on (the default),
# and none reports anything: the finders have no false positives on them.
# Programs and variants come from `tklab list`, so new ones are covered.
execute_process(COMMAND ${TOOL} list OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tklab list failed")
endif()
string(REPLACE ";" "," listing "${listing}")  # a CMake list separator in the text would split lines
string(REPLACE "\n" ";" lines "${listing}")
set(name "")
set(count 0)
foreach(line IN LISTS lines)
  if(line MATCHES "^  ([a-z0-9_]+) ")
    set(name "${CMAKE_MATCH_1}")
  elseif(name AND line MATCHES "variants ([a-z0-9_|]+),")
    string(REPLACE "|" ";" variants "${CMAKE_MATCH_1}")
    list(REMOVE_ITEM variants exercise)  # a lesson's exercise has holes: it is meant to fail
    foreach(v IN LISTS variants)
      execute_process(COMMAND ${TOOL} run ${name} --variant ${v} --color never
                      OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR "tklab run ${name} --variant ${v} reported a problem (exit ${rc}):\n${out}\n${err}")
      endif()
      math(EXPR count "${count} + 1")
    endforeach()
    set(name "")
  endif()
endforeach()
if(count LESS 20)
  message(FATAL_ERROR "only ${count} program variants found in `tklab list`: the listing's format changed")
endif()
message(STATUS "${count} program variants ran with every bug finder on: no findings")
