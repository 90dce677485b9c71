# The launcher of every compile of a lab's sources and of every link of a program that uses them
# (CUDA_COMPILER_LAUNCHER, *_LINKER_LAUNCHER; set by cudalab_add_lab in cmake/CudaLab.cmake):
#
#   cmake -DMODE=compile|link -DSTATE=<lab's build dir> -DSOURCES=<source>|<source>... [-DMARKER=<file name>]
#         -P LabBuild.cmake -- <command...>
#
# A grade is of the code on disk, or it is not given, and one broken lab must not stop the others:
#  - compile: a lab source that does not compile is reported (the compiler's whole output, here in
#    the build), its first error is kept in <STATE>/lab-build-error.txt, and an empty object is
#    compiled in its place so that the build goes on with the other labs. The programs that use
#    the lab then fail to link (below).
#  - link: a program that does not link is removed (never the previous build's program), with its
#    first error in <program>.build-problem.txt; one that links gets <program>.built-from, the
#    SHA-256 of the lab's sources it was built from.
# Both end with status 0 in those cases: the build succeeds, and when ctest starts
# (cudalab_program_problem in cmake/DiscoverTests.cmake) a program that is missing, or that was
# built from other sources than those on disk, is replaced by one failing row with the reason, so
# the lab scores 0 of its points and no earlier build's result is ever shown.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" SOURCES "${SOURCES}")  # joined with | on the command line
if(NOT MARKER)
  set(MARKER lab-build-error.txt)
endif()
set(command "")
set(started FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(started)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(started TRUE)
  endif()
endforeach()
if(NOT command OR NOT MODE MATCHES "^(compile|link)$" OR NOT STATE)
  message(FATAL_ERROR "usage: cmake -DMODE=compile|link -DSTATE=<dir> -DSOURCES=<files> -P LabBuild.cmake -- <command>")
endif()

# The file after -o in the command.
set(output "")
set(take FALSE)
foreach(arg IN LISTS command)
  if(take)
    set(output "${arg}")
    break()
  elseif(arg STREQUAL "-o")
    set(take TRUE)
  endif()
endforeach()

# _first_error(<text> <out-var>): the compiler's or linker's first line that says what is wrong.
function(_first_error text out)
  string(REPLACE "\r" "" text "${text}")
  string(ASCII 1 semicolon)  # kept through the list below
  string(REPLACE ";" "${semicolon}" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(first "")
  foreach(line IN LISTS lines)
    if(line MATCHES "(^|[: ])([Ee]rror|undefined reference|multiple definition)")
      set(first "${line}")
      break()
    endif()
  endforeach()
  if(NOT first)
    foreach(line IN LISTS lines)
      if(NOT line STREQUAL "")
        set(first "${line}")
        break()
      endif()
    endforeach()
  endif()
  string(STRIP "${first}" first)
  string(REPLACE "${semicolon}" ";" first "${first}")
  set(${out} "${first}" PARENT_SCOPE)
endfunction()

# grading.json "forbidden_in_source" (cmake/CudaLab.cmake): a lab source that uses one of these names
# outside its comments does not build, with the reason as its error.
set(refused "")
if(MODE STREQUAL "compile" AND FORBIDDEN)
  string(REPLACE "," ";" FORBIDDEN "${FORBIDDEN}")
  foreach(source IN LISTS SOURCES)
    if(NOT source IN_LIST command OR NOT EXISTS "${source}")
      continue()
    endif()
    file(READ "${source}" code)
    string(REGEX REPLACE "//[^\n]*" "" code "${code}")
    while(code MATCHES "/[*]")  # block comments, one at a time (CMake's regex has no lazy match)
      string(FIND "${code}" "/*" open)
      string(SUBSTRING "${code}" 0 ${open} head)
      string(SUBSTRING "${code}" ${open} -1 rest)
      string(FIND "${rest}" "*/" close)
      if(close EQUAL -1)  # never closed: the compiler says so
        set(code "${head}")
        break()
      endif()
      math(EXPR after "${close} + 2")
      string(SUBSTRING "${rest}" ${after} -1 tail)
      set(code "${head} ${tail}")
    endwhile()
    foreach(name IN LISTS FORBIDDEN)
      string(FIND "${code}" "${name}" at)
      if(NOT at EQUAL -1)
        set(refused "${source}: error: uses ${name} (cmake/LabBuild.cmake, grading.json forbidden_in_source): ${FORBIDDEN_WHY}")
        break()
      endif()
    endforeach()
  endforeach()
endif()
if(refused)
  set(rc 1)
  set(text "${refused}\n")
else()
  execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(text "${out}${err}")
endif()
if(NOT text STREQUAL "")
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo_append "${text}")
endif()

if(MODE STREQUAL "compile")
  set(marker "${STATE}/${MARKER}")
  if(rc EQUAL 0)
    file(REMOVE "${marker}")
    return()
  endif()
  _first_error("${text}" first)
  file(WRITE "${marker}" "${first}\n${text}")
  # The same command, for an empty source in place of the lab's, so the build goes on.
  set(empty "${STATE}/did_not_compile.cu")
  file(WRITE "${empty}" "// Compiled in place of a lab source that does not compile (cmake/LabBuild.cmake).\n")
  set(fallback "")
  foreach(arg IN LISTS command)
    set(replaced FALSE)
    foreach(source IN LISTS SOURCES)
      if(arg STREQUAL source)
        set(replaced TRUE)
      endif()
    endforeach()
    if(replaced)
      list(APPEND fallback "${empty}")
    else()
      list(APPEND fallback "${arg}")
    endif()
  endforeach()
  execute_process(COMMAND ${fallback} RESULT_VARIABLE frc OUTPUT_QUIET ERROR_QUIET)
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo
    "cuda-labs: the lab's code does not compile (above): its tests will not run and it scores 0; the other labs build and grade.")
  if(NOT frc EQUAL 0)
    message(FATAL_ERROR "cuda-labs: could not build the stand-in for a source that does not compile")
  endif()
  return()
endif()

# link
if(output STREQUAL "")
  message(FATAL_ERROR "cuda-labs: LabBuild.cmake: the link command names no -o <file>")
endif()
if(rc EQUAL 0)
  set(hashes "")
  foreach(source IN LISTS SOURCES)
    file(SHA256 "${source}" h)
    string(APPEND hashes "${h} ${source}\n")
  endforeach()
  file(WRITE "${output}.built-from" "${hashes}")
  file(REMOVE "${output}.build-problem.txt")
  return()
endif()
_first_error("${text}" first)
file(REMOVE "${output}" "${output}.built-from")
file(WRITE "${output}.build-problem.txt" "${first}\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E echo
  "cuda-labs: ${output} could not be linked (above): its tests will not run; the other labs build and grade.")
