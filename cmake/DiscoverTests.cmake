# A test program's GoogleTest cases as CTest tests, read when ctest starts (included by each test
# program's generated <program>_labels.cmake; see _cudalab_test_executable in CudaLab.cmake).
#
# cudalab_discover_tests(<program> <prefix> <list-var> <problem-var>) lists the program's tests
# (--gtest_list_tests, again only after the program was rebuilt: the listing is kept beside it in
# <program>.tests.txt) and adds one CTest test per case, "<prefix><Suite>.<Test>", which runs that
# case alone (--gtest_filter) and counts as skipped when GoogleTest says so. <list-var> gets the
# test names. Where the program cannot list its tests, or lists none, <problem-var> gets the
# reason and no test is added: the lab's code runs before any test can (a global variable whose
# constructor crashes or ends the process), and the caller adds the failing stand-in instead.
# This is what CMake's gtest_discover_tests does, except that a program that cannot list its tests
# stops the whole ctest run there (an error while reading the test list), for every lab.
function(cudalab_discover_tests program prefix list_var problem_var)
  set(${list_var} "" PARENT_SCOPE)
  set(${problem_var} "" PARENT_SCOPE)
  set(cache "${program}.tests.txt")
  set(failed "${program}.tests-problem.txt")
  if(EXISTS "${cache}" AND NOT "${program}" IS_NEWER_THAN "${cache}")
    file(READ "${cache}" listing)
  elseif(EXISTS "${failed}" AND NOT "${program}" IS_NEWER_THAN "${failed}")
    file(READ "${failed}" problem)  # this build could not list its tests before: not again (60 s each)
    set(${problem_var} "${problem}" PARENT_SCOPE)
    return()
  else()
    file(REMOVE "${cache}" "${failed}")
    # The whole list, whatever GTEST_FILTER the caller's environment holds (put back afterwards).
    set(had_filter FALSE)
    if(DEFINED ENV{GTEST_FILTER})
      set(had_filter TRUE)
      set(filter "$ENV{GTEST_FILTER}")
      unset(ENV{GTEST_FILTER})
    endif()
    execute_process(COMMAND "${program}" --gtest_list_tests
                    OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE rc TIMEOUT 60)
    if(had_filter)
      set(ENV{GTEST_FILTER} "${filter}")
    endif()
    if(NOT rc EQUAL 0)
      string(REGEX MATCH "[^\n]+" first "${errors}")
      if(first)
        set(rc "${rc}: ${first}")
      endif()
      set(problem "${program} cannot list its tests (${rc}): does the lab's code crash when the program \
starts (in the constructor of a global variable)?")
      if(rc MATCHES "^[0-9]+(:|$)" OR rc MATCHES "^Subprocess aborted|^Segmentation")
        # a definite outcome of this build (not a timeout or a program that could not start): kept
        file(WRITE "${failed}.tmp" "${problem}")
        file(RENAME "${failed}.tmp" "${failed}")
      endif()
      set(${problem_var} "${problem}" PARENT_SCOPE)
      return()
    endif()
    file(WRITE "${cache}.tmp" "${listing}")
    file(RENAME "${cache}.tmp" "${cache}")
  endif()
  get_filename_component(dir "${program}" DIRECTORY)
  string(REPLACE ";" "" listing "${listing}")  # never in a test name; a list separator here
  string(REPLACE "\n" ";" lines "${listing}")
  set(suite "")
  set(tests "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^([^ #]+)[.]( +#.*)?$")
      set(suite "${CMAKE_MATCH_1}")
    elseif(suite AND line MATCHES "^  ([^ #]+)( +#.*)?$")
      set(test "${CMAKE_MATCH_1}")
      set(name "${prefix}${suite}.${test}")
      add_test("${name}" "${program}" "--gtest_filter=${suite}.${test}" --gtest_also_run_disabled_tests)
      set_tests_properties("${name}" PROPERTIES WORKING_DIRECTORY "${dir}" SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
      if(suite MATCHES "^DISABLED_" OR test MATCHES "^DISABLED_")
        set_tests_properties("${name}" PROPERTIES DISABLED TRUE)  # as gtest_discover_tests: listed, not run
      endif()
      list(APPEND tests "${name}")
    endif()
  endforeach()
  if(NOT tests)
    set(${problem_var} "${program} lists no tests: does the lab's code end the process when the program starts \
(exit() in the constructor of a global variable)?" PARENT_SCOPE)
  endif()
  set(${list_var} "${tests}" PARENT_SCOPE)
endfunction()

# cudalab_program_problem(<program> <state-dir> <build-dir> <out-var> <source>...): why a lab's
# program must not be run when ctest starts, or "" when it may. A grade is of the code on disk: the
# lab's sources do not compile (<state-dir>/lab-build-error.txt, cmake/LabBuild.cmake), the program
# could not be linked or is not built, or it was built from other sources than those on disk now
# (<program>.built-from: the sources were edited, or their last build failed, after it was linked).
function(cudalab_program_problem program state build out)
  set(why "")
  # A ';' of a compiler's message would split the stand-in test's command line (a CMake list):
  # shown as the Greek question mark, which looks the same.
  string(ASCII 59 semicolon)
  set(again "build again (cmake --build ${build}), then run ctest")
  if(EXISTS "${state}/lab-build-error.txt")
    file(READ "${state}/lab-build-error.txt" first)
    string(REGEX REPLACE "\n.*" "" first "${first}")
    string(REPLACE "${semicolon}" ";" first "${first}")
    set(why "the lab's code did not build: ${first} (the build's output has every message). Fix it and ${again}")
  elseif(NOT EXISTS "${program}")
    if(EXISTS "${program}.build-problem.txt")
      file(READ "${program}.build-problem.txt" first)
      string(REGEX REPLACE "\n.*" "" first "${first}")
      string(REPLACE "${semicolon}" ";" first "${first}")
      set(why "the test program could not be linked with the lab's code: ${first}. Fix it and ${again}")
    else()
      set(why "the test program is not built: ${again}")
    endif()
  else()
    _cudalab_source_hashes(hashes ${ARGN})
    set(now "")
    foreach(source h IN ZIP_LISTS ARGN hashes)
      string(APPEND now "${h} ${source}\n")
    endforeach()
    set(then "")
    if(EXISTS "${program}.built-from")
      file(READ "${program}.built-from" then)
    endif()
    if(NOT now STREQUAL then)
      list(JOIN ARGN ", " files)
      set(why "the test program was built from an older version of ${files}: ${again}. No earlier result is shown")
    elseif(NOT "$ENV{CUDALAB_GRADE_SKELETONS}" MATCHES "^(1|ON|on|yes|true)$")
      cudalab_not_started(why "${hashes}" ${ARGN})
    endif()
  endif()
  set(${out} "${why}" PARENT_SCOPE)
endfunction()

# _cudalab_source_hashes(<out-var> <source>...): the SHA-256 of each source, in order ("missing"
# for one that does not exist). Each file is hashed once per ctest start (a global property keeps
# it): every program of a lab, and both checks of cudalab_program_problem, share the hashes.
function(_cudalab_source_hashes out)
  set(hashes "")
  foreach(source IN LISTS ARGN)
    get_property(h GLOBAL PROPERTY "CUDALAB_SHA256:${source}")
    if(NOT h)  # not hashed yet in this ctest run
      if(EXISTS "${source}")
        file(SHA256 "${source}" h)
      else()
        set(h missing)
      endif()
      set_property(GLOBAL PROPERTY "CUDALAB_SHA256:${source}" "${h}")
    endif()
    list(APPEND hashes "${h}")
  endforeach()
  set(${out} "${hashes}" PARENT_SCOPE)
endfunction()

# cudalab_not_started(<out-var> <hashes> <source>...): "not started: ..." when every source of a lab
# is the skeleton as shipped (its SHA-256, the matching entry of the list <hashes>, is the one in
# tests/<lab>/skeleton.sha256, written by tools/stubgen.py), else "". Such a lab scores 0 without
# running a test: every test of an untouched skeleton fails (the course checks it with
# CUDALAB_GRADE_SKELETONS=1, which runs them anyway), and a first grade of the whole workbook then
# costs the build, not some 600 test processes.
function(cudalab_not_started out hashes)
  set(${out} "" PARENT_SCOPE)
  set(files "")
  foreach(source h IN ZIP_LISTS ARGN hashes)
    get_filename_component(dir "${source}" DIRECTORY)
    get_filename_component(lab "${dir}" NAME)
    get_filename_component(root "${dir}/../.." ABSOLUTE)
    get_filename_component(name "${source}" NAME)
    if(NOT EXISTS "${root}/tests/${lab}/skeleton.sha256")
      return()
    endif()
    file(STRINGS "${root}/tests/${lab}/skeleton.sha256" shipped REGEX "^[0-9a-f]+  ")
    list(FIND shipped "${h}  ${name}" at)  # a missing source ("missing") is never listed
    if(at EQUAL -1)
      return()  # this file was edited: the lab is started
    endif()
    list(APPEND files "${name}")
  endforeach()
  if(NOT files)
    return()
  endif()
  list(JOIN files ", " files)
  set(${out} "not started: ${dir} is still the skeleton as shipped (${files}), so its tests are not run (0 points). \
Fill in its TODO(${lab}) parts (its README says how), build again and run ctest" PARENT_SCOPE)
endfunction()
