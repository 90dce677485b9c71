# Where a test's result record goes (docs/grading.md, "How results travel").
#
# Every graded CTest test writes one JSON record, <lab build dir>/results/<file>.json: the test
# binaries through GoogleTest's own JSON output (GTEST_OUTPUT=json:<path>, set per test by the
# lab's generated <exe>_labels.cmake), the sanitizer checks through cmake/RunSanitizer.cmake.
# Included by cmake/CudaLab.cmake at configure time and by the generated CTest include files
# when ctest reads the test list.
#
# cudalab_record_file(<test name> <out-var>): <file>.json for the CTest test <test name>. Letters,
# digits, '.', '_' and '-' stay as they are; every other byte, '%' included, becomes %XX (its two
# upper-case hex digits, as in a URL): "ch03_10_reduction_divergence.Reduce/ReduceCorrectness.Interleaved/3"
# -> "ch03_10_reduction_divergence.Reduce%2FReduceCorrectness.Interleaved%2F3.json". Two test names
# never share a file.
function(cudalab_record_file name out)
  set(f "${name}")
  if(f MATCHES "[^A-Za-z0-9._-]")
    string(REPLACE "%" "%25" f "${f}")
    string(REPLACE "/" "%2F" f "${f}")  # the only one in GoogleTest names (TEST_P, TYPED_TEST)
    while(f MATCHES "[^A-Za-z0-9._%-]")
      string(REGEX MATCH "[^A-Za-z0-9._%-]" c "${f}")
      string(HEX "${c}" h)
      string(TOUPPER "${h}" h)
      string(REPLACE "${c}" "%${h}" f "${f}")
    endwhile()
  endif()
  set(${out} "${f}.json" PARENT_SCOPE)
endfunction()
