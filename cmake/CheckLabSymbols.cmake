# cmake -DARCHIVE=<lib> -DNM=<nm> -DSOURCE_DIR=<dir of the lab's sources> -P CheckLabSymbols.cmake
#
# Run after a lab's library is built: the student's code may define its own functions and kernels,
# but not functions of the CUDA runtime or driver, of the tests (cudalab::, GoogleTest's testing::),
# main() or the launch recorder's wrappers, and it may not call GoogleTest: a static link would
# let such a definition replace the real one inside the tests (a cudaMemcpy that fakes results, an
# expect_speedup that never fails, a GTEST_SKIP that hides a test). A violation fails the build of
# that lab, with the file and the symbol, so the lab scores "did not build" and no test can pass.
execute_process(COMMAND ${NM} -C -g ${ARCHIVE} OUTPUT_VARIABLE listing RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(WARNING "cuda-labs: ${NM} could not read ${ARCHIVE} (${err}); its symbols were not checked")
  return()
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(member "")
set(problems "")
foreach(line IN LISTS lines)
  if(line MATCHES "^(.+)\\.o:$")
    set(member "${CMAKE_MATCH_1}")  # CMake names objects <source>.o
    continue()
  endif()
  if(NOT line MATCHES "^[0-9a-fA-F ]* ([A-Za-z]) (.+)$")
    continue()
  endif()
  set(type "${CMAKE_MATCH_1}")
  set(name "${CMAKE_MATCH_2}")
  if(type STREQUAL "U")
    if(name MATCHES "^testing::")
      list(APPEND problems "${SOURCE_DIR}/${member}: error: uses GoogleTest (${name}): the lab's code must not call the test framework")
    endif()
  elseif(type MATCHES "^[TDBRC]$")
    # strong definitions (weak template instantiations such as std:: helpers are fine)
    if(name MATCHES "^(cuda[A-Z_]|__cuda|cu[A-Z]|__wrap_|__real_|cudalab::|testing::|main$|main\\()")
      list(APPEND problems "${SOURCE_DIR}/${member}: error: defines ${name}, which belongs to the CUDA runtime or to the tests: rename it")
    endif()
  endif()
endforeach()
if(problems)
  list(REMOVE_DUPLICATES problems)
  foreach(p IN LISTS problems)
    execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${p}")
  endforeach()
  file(REMOVE "${ARCHIVE}")  # so that the next build checks again instead of finding it up to date
  message(FATAL_ERROR "the lab's code defines or uses symbols it must not (listed above)")
endif()
