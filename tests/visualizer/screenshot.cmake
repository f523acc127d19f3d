# One headless screenshot test: renders with TOOL (`tklab`) under xvfb-run
# (exit status RC),
# then checks the PNG with CHECK (tklab_png_check) and CHECK_ARGS (| separated).
string(REPLACE "|" ";" ARGS "${ARGS}")
string(REPLACE "|" ";" CHECK_ARGS "${CHECK_ARGS}")
file(MAKE_DIRECTORY ${WORKDIR})
# An auth file of our own (-f): without one xvfb-run makes a temporary folder
# and, now and then, fails to remove it, exiting 5 whatever the tool returned.
execute_process(COMMAND xvfb-run -a -f ${WORKDIR}/${PNG}.xauth -s "-screen 0 ${WIDTH}x${HEIGHT}x24"
                        ${TOOL} view ${ARGS} --size ${WIDTH}x${HEIGHT} --screenshot ${PNG}
                WORKING_DIRECTORY ${WORKDIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL RC)  # 1 for a file that cannot be shown: the picture says why
  message(FATAL_ERROR "`tklab view ${ARGS} --screenshot ${PNG}` exited with ${rc}, expected ${RC}\n${out}\n${err}")
endif()
execute_process(COMMAND ${CHECK} ${WORKDIR}/${PNG} ${WIDTH} ${HEIGHT} ${CHECK_ARGS}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PNG}: ${err}")
endif()
