# Runs one compute-sanitizer check as a CTest test (see SANITIZER_CHECKS in CudaLab.cmake).
#
#   cmake -DSANITIZER=<path or empty> -DTOOL=racecheck|synccheck|memcheck|initcheck
#         -DEXE=<driver> -DCASE=<argument> -DEXPECT=clean|flagged -P RunSanitizer.cmake
#
# The driver runs one kernel for CASE (it prints "[ CUDALAB  ] skipped: ..." and exits 0 without
# a GPU). "clean" passes when the sanitizer reports no error or hazard; "flagged" passes when it
# reports at least one (the exhibit proving the check can fail). Missing compute-sanitizer, no
# GPU, or a GPU the sanitizer does not support: the test prints a skip line (SKIP_REGULAR_EXPRESSION).
if(NOT SANITIZER OR NOT EXISTS "${SANITIZER}")
  message("[ CUDALAB  ] skipped: compute-sanitizer not found (it ships with the CUDA Toolkit, in <cuda>/bin)")
  return()
endif()
execute_process(COMMAND "${EXE}" --probe OUTPUT_VARIABLE probe ERROR_VARIABLE probe RESULT_VARIABLE probe_rc)
if(probe MATCHES "\\[ CUDALAB  \\] skipped: [^\n]*")
  message("${CMAKE_MATCH_0}")
  return()
endif()
set(flags --tool ${TOOL} --error-exitcode 86)
if(TOOL STREQUAL "racecheck")
  list(APPEND flags --racecheck-report all)
endif()
execute_process(COMMAND "${SANITIZER}" ${flags} "${EXE}" ${CASE}
                OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
message("${out}")
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
