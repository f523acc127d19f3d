# One compile-failure test: compiling SRC must FAIL, and the compiler's output
# must contain the text SRC names on its first line:
#   // expect: <text of the static_assert message>
# Usage (tests/CMakeLists.txt adds one CTest test per file):
#   cmake -DCXX=<c++ compiler> -DSRC=<file.cpp> -DINC=<project root> -P check.cmake
foreach(var CXX SRC INC)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "check.cmake: pass -D${var}=... (CXX: compiler, SRC: source file, INC: project root)")
  endif()
endforeach()

file(READ "${SRC}" text)
string(FIND "${text}" "\n" eol)
if(eol GREATER_EQUAL 0)
  string(SUBSTRING "${text}" 0 ${eol} first_line)
else()
  set(first_line "${text}")
endif()
string(REGEX REPLACE "\r$" "" first_line "${first_line}")
set(prefix "// expect: ")
string(LENGTH "${prefix}" prefix_len)
string(FIND "${first_line}" "${prefix}" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "${SRC}: the first line must be '${prefix}<text the compiler error must contain>'")
endif()
string(SUBSTRING "${first_line}" ${prefix_len} -1 expect)
string(STRIP "${expect}" expect)
if(expect STREQUAL "")
  message(FATAL_ERROR "${SRC}: the '${prefix}' line names no text")
endif()

execute_process(
  COMMAND ${CXX} -std=c++20 -fsyntax-only -I${INC} ${SRC}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE out)

# The compiler's first error line, to show what it said instead.
string(REGEX MATCH "[^\n]*error[^\n]*" first_error "${out}")

if(rc EQUAL 0)
  message(FATAL_ERROR "${SRC} compiled without error, but it must fail with:\n  ${expect}")
endif()
string(FIND "${out}" "${expect}" found)
if(found EQUAL -1)
  if(first_error STREQUAL "")
    set(first_error "(no line with 'error'; exit status ${rc})")
  endif()
  message(FATAL_ERROR "${SRC} failed to compile, but not with the expected message.\n"
                      "  expected: ${expect}\n  first error: ${first_error}")
endif()
message(STATUS "fails as expected: ${first_error}")
