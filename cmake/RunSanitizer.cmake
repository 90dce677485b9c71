# Runs one compute-sanitizer check as a CTest test (see SANITIZER_CHECKS in CudaLab.cmake).
#
#   cmake -DSANITIZER=<path or empty> -DTOOL=racecheck|synccheck|memcheck|initcheck
#         -DEXE=<driver> -DCASE=<argument> -DEXPECT=clean|flagged [-DNAME=<Sanitizer.tool_case>]
#         -P RunSanitizer.cmake
#
# The driver runs one kernel for CASE (it prints "[ CUDALAB  ] skipped: ..." and exits 0 without
# a GPU). "clean" passes when the sanitizer reports no error or hazard; "flagged" passes when it
# reports at least one (the exhibit proving the check can fail). Missing compute-sanitizer, no
# GPU, or a GPU the sanitizer does not support: the test prints a skip line (SKIP_REGULAR_EXPRESSION).
#
# Time budget: CUDALAB_KERNEL_TIMEOUT seconds (environment, set by CTest; 0: none). A "clean"
# check runs the student's kernel: if it does not finish in time, the lab is recorded as hung
# (CUDALAB_STATE_DIR/lab-hung.txt, as the test binaries' watchdog does) and the lab's later GPU
# tests fail at once. A clean check of a lab that already hung in this ctest run fails at once;
# an exhibit (test-side code, no points) is skipped then.
#
# Result record: when GTEST_OUTPUT (environment, set by CTest) is json:<file>, the check writes
# its result there in the shape of GoogleTest's JSON output (one test: suite and name from NAME,
# "result" COMPLETED or SKIPPED, a "failures" entry when it failed, the one-line reason as
# "cudalab_reason"), as the test binaries do; tools/grade.py reads it (docs/grading.md). A record
# of an earlier run is removed first. The "[ CUDALAB  ]" lines are printed as before.
string(TIMESTAMP start "%s" UTC)
if(NOT NAME)
  set(NAME "Sanitizer.${TOOL}_${CASE}")
endif()
set(record "")
if("$ENV{GTEST_OUTPUT}" MATCHES "^json:(.+)$")
  set(record "${CMAKE_MATCH_1}")
  file(REMOVE "${record}")
endif()
unset(ENV{GTEST_OUTPUT})  # not for the driver, which is no GoogleTest program

# _json_string(<text> <out-var>): <text> as a JSON string literal, quotes included.
function(_json_string text out)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n" text "${text}")
  string(REPLACE "\r" "\\r" text "${text}")
  string(REPLACE "\t" "\\t" text "${text}")
  foreach(code RANGE 1 31)  # other control characters: a blank
    string(ASCII ${code} c)
    string(REPLACE "${c}" " " text "${text}")
  endforeach()
  set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()

# finish(<passed|failed|skipped> <reason>): prints the reason line (failed: "reason:", skipped:
# "skipped:"), writes the record, and for a failure ends the script with an error (the caller
# returns after the other two).
function(finish result why)
  if(result STREQUAL "failed")
    message("[ CUDALAB  ] reason: ${why}")
  elseif(result STREQUAL "skipped")
    message("[ CUDALAB  ] skipped: ${why}")
  endif()
  if(record)
    string(REGEX REPLACE "[.].*$" "" suite "${NAME}")
    string(REGEX REPLACE "^[^.]*[.]" "" case "${NAME}")
    _json_string("${suite}" suite)
    _json_string("${case}" case)
    _json_string("${why}" reason)
    set(outcome COMPLETED)
    if(result STREQUAL "skipped")
      set(outcome SKIPPED)
    endif()
    set(test "{\"name\": ${case}, \"status\": \"RUN\", \"result\": \"${outcome}\", \"classname\": ${suite}}")
    if(NOT why STREQUAL "")
      string(JSON test SET "${test}" cudalab_reason "${reason}")
    endif()
    set(failures 0)
    if(result STREQUAL "failed")
      set(failures 1)
      string(JSON test SET "${test}" failures "[{\"failure\": ${reason}, \"type\": \"\"}]")
    endif()
    set(json "{\"tests\": 1, \"failures\": ${failures}, \"name\": \"AllTests\", \"testsuites\": []}")
    string(JSON json SET "${json}" testsuites 0
           "{\"name\": ${suite}, \"tests\": 1, \"failures\": ${failures}, \"testsuite\": [${test}]}")
    get_filename_component(dir "${record}" DIRECTORY)
    file(MAKE_DIRECTORY "${dir}")
    file(WRITE "${record}.tmp" "${json}\n")
    file(RENAME "${record}.tmp" "${record}")
  endif()
  if(result STREQUAL "failed")
    message(FATAL_ERROR "sanitizer check failed")
  endif()
endfunction()
set(budget "$ENV{CUDALAB_KERNEL_TIMEOUT}")
if(NOT budget MATCHES "^[0-9]+$")
  set(budget 120)
endif()
set(marker "")
if(NOT "$ENV{CUDALAB_STATE_DIR}" STREQUAL "")
  set(marker "$ENV{CUDALAB_STATE_DIR}/lab-hung.txt")
endif()

if(marker AND EXISTS "${marker}")
  file(STRINGS "${marker}" hung LIMIT_COUNT 2)
  list(LENGTH hung n)
  set(secs "?")
  set(which "unknown test")
  if(n GREATER 0)
    list(GET hung 0 secs)
  endif()
  if(n GREATER 1)
    list(GET hung 1 which)
  endif()
  set(why "not run: an earlier test of this lab did not finish in ${secs} s (${which}); the lab is marked as hung for the rest of this ctest run")
  if(EXPECT STREQUAL "flagged")
    finish(skipped "${why}")
    return()
  endif()
  finish(failed "${why}")
endif()

if(NOT SANITIZER OR NOT EXISTS "${SANITIZER}")
  finish(skipped "compute-sanitizer not found (it ships with the CUDA Toolkit, in <cuda>/bin)")
  return()
endif()
execute_process(COMMAND "${EXE}" --probe OUTPUT_VARIABLE probe ERROR_VARIABLE probe RESULT_VARIABLE probe_rc
                TIMEOUT 60)
if(probe MATCHES "\\[ CUDALAB  \\] skipped: ([^\n]*)")
  finish(skipped "${CMAKE_MATCH_1}")
  return()
endif()

set(flags --tool ${TOOL} --error-exitcode 86)
if(TOOL STREQUAL "racecheck")
  list(APPEND flags --racecheck-report all)
endif()
set(command "${SANITIZER}" ${flags} "${EXE}" ${CASE})
set(limit "")
if(budget GREATER 0)
  # What is left of the budget after the probe.
  string(TIMESTAMP now "%s" UTC)
  math(EXPR left "${budget} - (${now} - ${start})")
  if(left LESS 1)
    set(left 1)
  endif()
  # timeout(1) puts compute-sanitizer and the program it checks into a process group of their own
  # and signals the whole group: the checked program, whose kernel may never finish, ends too
  # (execute_process's own TIMEOUT would stop compute-sanitizer only). Without timeout(1) (not
  # Linux), execute_process's TIMEOUT is the limit.
  find_program(CUDALAB_TIMEOUT_PROGRAM timeout)
  if(CUDALAB_TIMEOUT_PROGRAM)
    set(command "${CUDALAB_TIMEOUT_PROGRAM}" --kill-after=5 ${left} ${command})
  else()
    set(limit TIMEOUT ${left})
  endif()
endif()
execute_process(COMMAND ${command} OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc ${limit})
message("${out}")
if(budget GREATER 0 AND (rc STREQUAL "124" OR rc STREQUAL "137" OR rc MATCHES "timeout"))
  if(EXPECT STREQUAL "clean")
    if(marker)
      file(WRITE "${marker}.tmp" "${budget}\n${NAME}\n")
      file(RENAME "${marker}.tmp" "${marker}")
    endif()
    finish(failed "kernel did not finish in ${budget} s under compute-sanitizer --tool ${TOOL} ('${CASE}', ${NAME}): an endless loop, a deadlock (a __syncthreads() some threads never reach?) or a very slow kernel; it was stopped, and this lab's remaining GPU tests are not run")
  else()
    finish(failed "the exhibit '${CASE}' did not finish in ${budget} s under compute-sanitizer --tool ${TOOL}: make it smaller, or raise the lab's PERF_TIMEOUT")
  endif()
endif()
if(out MATCHES "Device not supported|Unable to find injection library|Failed to initialize")
  finish(skipped "compute-sanitizer cannot run on this GPU/driver")
  return()
endif()
string(REGEX MATCH "(RACECHECK|SYNCCHECK|ERROR) SUMMARY: [0-9]+[^\n]*" summary "${out}")
if(NOT summary)
  set(summary "no summary line")
endif()
if(EXPECT STREQUAL "clean")
  if(NOT rc EQUAL 0)
    finish(failed "compute-sanitizer --tool ${TOOL} found problems in '${CASE}' (${summary}, exit code ${rc}); see the report above for the kernel and line")
  endif()
  message("compute-sanitizer --tool ${TOOL} '${CASE}': clean (${summary})")
  finish(passed "")
else()
  if(rc EQUAL 0)
    finish(failed "compute-sanitizer --tool ${TOOL} did not flag the exhibit '${CASE}' (${summary}); this check could not fail")
  endif()
  message("compute-sanitizer --tool ${TOOL} '${CASE}': flagged as expected (${summary}, exit code ${rc})")
  finish(passed "")
endif()
