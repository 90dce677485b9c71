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
string(TIMESTAMP start "%s" UTC)
if(NOT NAME)
  set(NAME "${TOOL}_${CASE}")
endif()
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
    message("[ CUDALAB  ] skipped: ${why}")
    return()
  endif()
  message("[ CUDALAB  ] reason: ${why}")
  message(FATAL_ERROR "sanitizer check not run")
endif()

if(NOT SANITIZER OR NOT EXISTS "${SANITIZER}")
  message("[ CUDALAB  ] skipped: compute-sanitizer not found (it ships with the CUDA Toolkit, in <cuda>/bin)")
  return()
endif()
execute_process(COMMAND "${EXE}" --probe OUTPUT_VARIABLE probe ERROR_VARIABLE probe RESULT_VARIABLE probe_rc
                TIMEOUT 60)
if(probe MATCHES "\\[ CUDALAB  \\] skipped: [^\n]*")
  message("${CMAKE_MATCH_0}")
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
    message("[ CUDALAB  ] reason: kernel did not finish in ${budget} s under compute-sanitizer --tool ${TOOL} ('${CASE}', ${NAME}): an endless loop, a deadlock (a __syncthreads() some threads never reach?) or a very slow kernel; it was stopped, and this lab's remaining GPU tests are not run")
  else()
    message("[ CUDALAB  ] reason: the exhibit '${CASE}' did not finish in ${budget} s under compute-sanitizer --tool ${TOOL}: make it smaller, or raise the lab's PERF_TIMEOUT")
  endif()
  message(FATAL_ERROR "sanitizer check did not finish")
endif()
if(out MATCHES "Device not supported|Unable to find injection library|Failed to initialize")
  message("[ CUDALAB  ] skipped: compute-sanitizer cannot run on this GPU/driver")
  return()
endif()
string(REGEX MATCH "(RACECHECK|SYNCCHECK|ERROR) SUMMARY: [0-9]+[^\n]*" summary "${out}")
if(NOT summary)
  set(summary "no summary line")
endif()
if(EXPECT STREQUAL "clean")
  if(NOT rc EQUAL 0)
    message("[ CUDALAB  ] reason: compute-sanitizer --tool ${TOOL} found problems in '${CASE}' (${summary}, exit code ${rc}); see the report above for the kernel and line")
    message(FATAL_ERROR "sanitizer check failed")
  endif()
  message("compute-sanitizer --tool ${TOOL} '${CASE}': clean (${summary})")
else()
  if(rc EQUAL 0)
    message("[ CUDALAB  ] reason: compute-sanitizer --tool ${TOOL} did not flag the exhibit '${CASE}' (${summary}); this check could not fail")
    message(FATAL_ERROR "sanitizer check failed")
  endif()
  message("compute-sanitizer --tool ${TOOL} '${CASE}': flagged as expected (${summary}, exit code ${rc})")
endif()
