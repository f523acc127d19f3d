# One short, seeded fuzzing run for the test suite: FUZZER from its SEEDS for
# SECONDS, new inputs into a fresh WORK folder (never the source tree). Fails
# naming the input it kept when the fuzzer finds something.
#   cmake -DFUZZER=... -DSEEDS=... -DWORK=... -DSECONDS=... [-DDICT=...] -P run_fuzzer.cmake
if(NOT EXISTS ${FUZZER})
  message(FATAL_ERROR "${FUZZER} is not built: build the target tklab_fuzzers (the default build does)")
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/artifacts)
set(args -seed=1 -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
         -artifact_prefix=${WORK}/artifacts/)
if(DICT)
  list(APPEND args -dict=${DICT})
endif()
execute_process(COMMAND ${FUZZER} ${args} ${WORK}/corpus ${SEEDS} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(GLOB found ${WORK}/artifacts/*)
  get_filename_component(target ${FUZZER} NAME)
  message(FATAL_ERROR "${target} found a problem (exit status ${rc}); the input: ${found}\n"
                      "Reproduce it with `${FUZZER} INPUT`. Fix the cause, then copy INPUT to "
                      "fuzz/regressions/${target}/ (a test replays it from then on).")
endif()
