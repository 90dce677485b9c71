# Runs one compute-sanitizer check as a CTest test (see SANITIZER_CHECKS and the SanitizeAll
# checks in CudaLab.cmake).
#
#   cmake -DSANITIZER=<path or empty> -DTOOL=racecheck|synccheck|memcheck|initcheck
#         -DEXE=<driver> -DCASE=<argument> -DEXPECT=clean|flagged [-DNAME=<Sanitizer.tool_case>]
#         -P RunSanitizer.cmake
#   cmake -DSANITIZER=<path or empty> -DTOOL=<tool> -DEXE=<lab's GPU test binary>
#         -DKERNELS=<kernel>,<kernel>,... [-DKERNELS_FILE=<file, one name a line, read instead>]
#         [-DGTEST_FILTER=<filter>] [-DTOTAL=<s>]
#         -DNAME=SanitizeAll.<tool> -P RunSanitizer.cmake
#
# Driver mode (CASE): the driver runs one kernel for CASE (it prints "[ CUDALAB  ] skipped: ..."
# and exits 0 without a GPU). "clean" passes when the sanitizer reports no error or hazard and the
# driver found the result right; "flagged" passes when it reports at least one (the exhibit
# proving the check can fail).
#
# Test-binary mode (KERNELS, the SanitizeAll checks): runs the lab's GoogleTest binary (the tests
# GTEST_FILTER selects) under `compute-sanitizer --tool TOOL`, checking only the student's kernels
# (--kernel-name regex=..., built from KERNELS: the test-side kernels, baselines and library
# kernels such as cuBLAS run unchecked), with CUDALAB_SANITIZING=TOOL in the binary's environment
# (the tests then leave out inputs over cudalab::sanitizer_max_elements()). It passes when the
# sanitizer reports nothing and every selected test passed or skipped. A failure names the tool,
# the kernel and the first error line of the report ("Invalid __global__ read of size 4 bytes",
# "Race reported between ..."), or the first test that failed. Always "clean".
#
# Either mode: missing compute-sanitizer, no GPU, or a GPU the sanitizer does not support: the test
# prints a skip line (SKIP_REGULAR_EXPRESSION).
#
# Time budget: CUDALAB_KERNEL_TIMEOUT seconds (environment, set by CTest; 0: none). A "clean"
# check runs the student's kernel: if it does not finish in time, the lab is recorded as hung
# (CUDALAB_STATE_DIR/lab-hung.txt, as the test binaries' watchdog does) and the lab's later GPU
# tests fail at once. A clean check of a lab that already hung in this ctest run fails at once;
# an exhibit (test-side code, no points) is skipped then. In test-binary mode the budget is TOTAL
# seconds for the whole run (default: 3 x CUDALAB_KERNEL_TIMEOUT), and CUDALAB_KERNEL_TIMEOUT stays
# the binary's own watchdog budget per wait on the GPU: a kernel that never finishes is stopped by
# that watchdog (which marks the lab as hung); a run past TOTAL is slow, not hung, and fails
# without marking the lab.
#
# Result record: when GTEST_OUTPUT (environment, set by CTest) is json:<file>, the check writes
# its result there in the shape of GoogleTest's JSON output (one test: suite and name from NAME,
# "result" COMPLETED or SKIPPED, a "failures" entry when it failed, the one-line reason as
# "cudalab_reason"), as the test binaries do; tools/grade.py reads it (docs/grading.md). A record
# of an earlier run is removed first. The "[ CUDALAB  ]" lines are printed as before. In
# test-binary mode the binary's own GoogleTest output goes to <file>.tests.json (read for the
# first failing test).
string(TIMESTAMP start "%s" UTC)
set(gtest_mode FALSE)
# The lab's kernels as its library was compiled (cmake/KeptPtx.cmake), when grading.json names none.
if(DEFINED KERNELS_FILE AND NOT KERNELS_FILE STREQUAL "")
  set(KERNELS "")
  if(EXISTS "${KERNELS_FILE}")
    file(STRINGS "${KERNELS_FILE}" names)
    list(JOIN names "," KERNELS)
  endif()
endif()
if(DEFINED KERNELS)
  set(gtest_mode TRUE)
  set(EXPECT clean)
endif()
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
if(gtest_mode)
  if(TOTAL MATCHES "^[0-9]+$")
    set(budget ${TOTAL})
  else()
    math(EXPR budget "3 * ${budget}")
  endif()
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
set(probe_flag --probe)
if(gtest_mode)
  set(probe_flag --cudalab-probe)  # common/testing/main.cpp
endif()
execute_process(COMMAND "${EXE}" ${probe_flag} OUTPUT_VARIABLE probe ERROR_VARIABLE probe RESULT_VARIABLE probe_rc
                TIMEOUT 60)
if(probe MATCHES "\\[ CUDALAB  \\] skipped: ([^\n]*)")
  finish(skipped "${CMAKE_MATCH_1}")
  return()
endif()

set(flags --tool ${TOOL} --error-exitcode 86)
if(TOOL STREQUAL "racecheck")
  list(APPEND flags --racecheck-report all)
endif()
set(tests_json "")
if(gtest_mode)
  # Only the student's kernels: a kernel name is matched in its mangled form (_Z16reduceNeighbored...,
  # the length first, so reduceNeighbored does not match reduceNeighboredLess) or its demangled
  # one (reduceNeighbored(int*, ...), reduceCompleteUnroll<64u>(...)). No ',' may appear: it
  # separates the filter's keys.
  if(KERNELS STREQUAL "")
    finish(failed "no list of the lab's kernels (${KERNELS_FILE}): build the lab again")
    return()
  endif()
  string(REPLACE "," ";" kernel_list "${KERNELS}")
  set(alternatives "")
  foreach(k IN LISTS kernel_list)
    string(LENGTH "${k}" len)
    list(APPEND alternatives "[A-Za-z_]${len}${k}" "(^|[^A-Za-z0-9_])${k}[(<]")
  endforeach()
  list(JOIN alternatives "|" regex)
  # API errors (a launch the tests make fail on purpose, a refused configuration) are the tests'
  # business, not a hazard in a kernel.
  list(APPEND flags --kernel-name "regex=.*(${regex}).*" --report-api-errors no)
  if(TOOL STREQUAL "initcheck")
    # Only reads by the student's kernels: the tests copy back buffers a kernel writes in part
    # (guard regions, unused tails) on purpose.
    list(APPEND flags --check-api-memory-access no)
  endif()
  set(ENV{CUDALAB_SANITIZING} "${TOOL}")
  if(record)
    set(tests_json "${record}.tests.json")
  elseif(NOT "$ENV{CUDALAB_STATE_DIR}" STREQUAL "")
    set(tests_json "$ENV{CUDALAB_STATE_DIR}/${NAME}.tests.json")
  endif()
  if(tests_json)
    file(REMOVE "${tests_json}")
    set(ENV{GTEST_OUTPUT} "json:${tests_json}")
  endif()
  set(args "")
  if(NOT "${GTEST_FILTER}" STREQUAL "")
    set(args "--gtest_filter=${GTEST_FILTER}")
  endif()
  set(command "${SANITIZER}" ${flags} "${EXE}" ${args})
  set(CASE "the lab's GPU tests")
  string(REPLACE ";" " " shown "${command}")
  message("[ CUDALAB  ] running: CUDALAB_SANITIZING=${TOOL} ${shown}")
else()
  set(command "${SANITIZER}" ${flags} "${EXE}" ${CASE})
endif()
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
  if(gtest_mode)
    finish(failed "the lab's GPU tests did not finish in ${budget} s under compute-sanitizer --tool ${TOOL} (${NAME}): no kernel waited past the watchdog's budget, so they are slow rather than hung; run them alone (ctest -R '${NAME}' --output-on-failure) to see which test was running")
  elseif(EXPECT STREQUAL "clean")
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
if(gtest_mode)
  # The watchdog of the test binary stopped a kernel that never finished (and marked the lab).
  if(out MATCHES "\\[ CUDALAB  \\] reason: (kernel did not finish[^\n]*)")
    finish(failed "under compute-sanitizer --tool ${TOOL}: ${CMAKE_MATCH_1}")
  endif()
  set(count 0)
  if(summary MATCHES "SUMMARY: ([0-9]+)")
    set(count ${CMAKE_MATCH_1})
  endif()
  if(rc EQUAL 86 OR count GREATER 0)
    # The first line of the report that is not the banner or a summary, and the kernel it names:
    # "Invalid __global__ write of size 4 bytes" / "at reduceInterleaved(int *, ...)+0x1a0 in
    # reduction.cu:25"; racecheck: "Error: Race reported between Write access at reduceX(...)...".
    string(REPLACE ";" "," text "${out}")
    string(REGEX MATCHALL "========= [^\n]*" lines "${text}")
    set(first "")
    set(after "")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^========= " "" body "${line}")
      if(first STREQUAL "")
        if(body MATCHES "^[A-Za-z]" AND NOT body MATCHES
           "^(COMPUTE-SANITIZER|(ERROR|RACECHECK|SYNCCHECK|INITCHECK|LEAK) SUMMARY|Target application|This tool|Note)")
          string(STRIP "${body}" first)
        endif()
      endif()
      if(NOT first STREQUAL "")
        string(APPEND after "${body}\n")
      endif()
    endforeach()
    set(kernel "")
    if(after MATCHES "at (void )?([A-Za-z_][A-Za-z0-9_:]*(<[^>\n]*>)?)\\(")
      set(kernel "${CMAKE_MATCH_2}")
    else()
      foreach(k IN LISTS kernel_list)
        if(after MATCHES "(^|[^A-Za-z0-9_])${k}([^A-Za-z0-9_]|$)")
          set(kernel "${k}")
          break()
        endif()
      endforeach()
    endif()
    string(REGEX REPLACE " +:$" "" first "${first}")
    set(where "")
    if(kernel)
      set(where " in ${kernel}")
    endif()
    if(first STREQUAL "")
      set(first "see the report above")
    endif()
    finish(failed "compute-sanitizer --tool ${TOOL} found problems in your kernels (${summary}): first${where}: ${first}; the report above has the line and the thread")
  endif()
  if(NOT rc EQUAL 0)
    # No finding, but not every selected test passed (or the sanitizer itself did not run).
    set(why "")
    if(tests_json AND EXISTS "${tests_json}")
      file(READ "${tests_json}" results)
      string(JSON nsuites ERROR_VARIABLE err LENGTH "${results}" testsuites)
      if(NOT err AND nsuites GREATER 0)
        math(EXPR last_suite "${nsuites} - 1")
        foreach(i RANGE ${last_suite})
          string(JSON ntests ERROR_VARIABLE err LENGTH "${results}" testsuites ${i} testsuite)
          if(err OR ntests EQUAL 0)
            continue()
          endif()
          math(EXPR last_test "${ntests} - 1")
          foreach(j RANGE ${last_test})
            string(JSON failures ERROR_VARIABLE err GET "${results}" testsuites ${i} testsuite ${j} failures)
            if(NOT err)
              string(JSON suite GET "${results}" testsuites ${i} name)
              string(JSON tname GET "${results}" testsuites ${i} testsuite ${j} name)
              string(JSON reason ERROR_VARIABLE err GET "${results}" testsuites ${i} testsuite ${j} cudalab_reason)
              if(err)
                set(reason "see the output above")
              endif()
              set(why "${suite}.${tname} failed: ${reason}")
              break()
            endif()
          endforeach()
          if(why)
            break()
          endif()
        endforeach()
      endif()
    endif()
    if(why STREQUAL "")
      string(REGEX MATCH "[^\n]*[^\n ][^\n]*" head "${out}")
      set(why "exit code ${rc}, no test result (${summary}; first output line: ${head})")
    endif()
    finish(failed "compute-sanitizer --tool ${TOOL} found nothing, but the lab's GPU tests did not all pass under it: ${why}; this check needs correct kernels (the lab's correctness tests say more)")
  endif()
  # Exit code 0 is not enough: the tests must have run and written their results (a process that
  # the lab's code ends with status 0 before or during them writes none).
  if(tests_json)
    set(ran 0)
    if(EXISTS "${tests_json}")
      file(READ "${tests_json}" results)
      string(JSON ran ERROR_VARIABLE err GET "${results}" tests)
      if(err OR NOT ran MATCHES "^[0-9]+$")
        set(ran 0)
      endif()
    endif()
    if(ran EQUAL 0)
      finish(failed "compute-sanitizer --tool ${TOOL} found nothing, but the lab's GPU tests wrote no results under it \
(exit code 0 before they ended: is exit() called from the lab's code?); this check needs the tests to run")
    endif()
  endif()
  message("compute-sanitizer --tool ${TOOL}, kernels ${KERNELS}: clean (${summary})")
  finish(passed "")
  return()
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
