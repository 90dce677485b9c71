# cudalab_add_lab(): the one function that adds a lab.
#
#   cudalab_add_lab(<lab>
#     SOURCES <file>...        the files the student edits; taken from solutions/<lab>/ when the
#                              reference is selected (CUDALAB_USE_SOLUTIONS or CUDALAB_SOLUTIONS)
#                              and present, otherwise from labs/<lab>/
#     [DEMO <file>]            a demo program in labs/<lab>/ (built as <lab>_demo, not a test)
#     [DEMO_USES <lab>...]     earlier labs whose (student) kernels the demo also runs; without
#                              them in the build (CUDALAB_LABS) the demo is left out
#     [HOST_TESTS <file>...]   GoogleTest sources that need no GPU    labels: <lab> correctness host
#     [GPU_TESTS <file>...]    correctness tests on the GPU           labels: <lab> correctness gpu
#     [PERF_TESTS <file>...]   performance tests on the GPU           labels: <lab> performance gpu
#     [TEST_SOURCES <file>...] test-side helpers (baselines, exhibits) linked into every test binary
#     [LIBRARIES <target>...]  extra libraries for the lab and its tests (CUDA::cublas, ...)
#     [SEPARABLE]              relocatable device code + cudadevrt (dynamic parallelism)
#     [REFERENCE_KERNELS]      the timed tests time the student's kernels against the reference
#                              solution's, compiled from SOURCES into the test programs (see
#                              "Reference kernels" below, cudalab/reference_kernels.hpp)
#     [SANITIZER_DRIVER <file>]  a test-side program: `driver <case>` runs one kernel,
#                              `driver --probe` prints a skip line when there is no GPU
#     [SANITIZER_CHECKS <tool>:<case>:clean|flagged ...]  one CTest test each, named
#                              <lab>.Sanitizer.<tool>_<case> (clean: graded) or
#                              <lab>.SanitizerExhibit.<tool>_<case> (flagged: 0 points, proves the
#                              check can fail), labels <lab> correctness gpu sanitizer
#     [SERIAL_TESTS <Suite>|<Suite.Test>...]  correctness tests that must have the GPU to
#                              themselves (RUN_SERIAL, label "serial", the larger budget): those
#                              that time kernels, compare a measured figure with a threshold, count
#                              with Nsight Compute or size their data from the free GPU memory.
#                              Performance tests always do. Configuring fails when a test source
#                              calls such a function in a suite or test not declared here.
#     [HOST_IN_PROCESS <function>...]  functions of the lab's header that the tests call in
#                              the test program itself (launchers that write device buffers; in the
#                              GPU tests every function given a device buffer is); every other host
#                              function of the header they call runs in a process of its own
#                              (cudalab/apart.hpp, <lab>_apart.hpp below)
#     [TIMEOUT <s>]            watchdog budget of a correctness test (default CUDALAB_KERNEL_TIMEOUT)
#     [PERF_TIMEOUT <s>]       budget of the tests that run alone: timed, Nsight Compute and
#                              compute-sanitizer tests, and those sized from the free GPU memory
#                              (default 6 x TIMEOUT)
#
# Called from tests/<lab>/CMakeLists.txt. Test sources are relative to that directory, which also
# holds grading.json (points and thresholds, see docs/grading.md). Every GoogleTest case becomes
# its own CTest test (cmake/DiscoverTests.cmake), so a crash costs that test only. Each test writes one
# result record, <build>/tests/<lab>/results/<test>.json (GoogleTest's JSON output, named by
# GTEST_OUTPUT in the test's environment; cmake/TestRecords.cmake), which tools/grade.py reads.
#
# Hangs: a GPU test whose wait on the GPU (a synchronising CUDA call) has lasted its budget is
# stopped by the watchdog in the test binary (common/testing/watchdog.cpp; RunSanitizer.cmake
# stops a sanitizer check after its budget in all), which prints "kernel did not finish in N s"
# and writes <build>/tests/<lab>/lab-hung.txt; the lab's later GPU tests then fail at once ("not
# run: an earlier test of this lab did not finish ..."), other labs are graded normally. A slow
# test that keeps finishing its waits (a shared GPU, a slow CPU) runs up to 6 budgets; the CTest
# TIMEOUT is a backstop 15 s above that. The marker is
# removed when ctest reads the lab's test list, once at the start of every ctest run.
# Order: the lab's tests that run alone (RUN_SERIAL: timed, ncu, big-memory) and its sanitizer
# checks DEPEND on its other GPU correctness tests, so a hang is usually met first by a test with
# the short budget. Correctness tests may share the GPU (`ctest -j`); a sanitizer check (the
# exhibits and SanitizeAll: they time nothing) shares it too and counts as 2 of the -j slots
# (PROCESSORS 2).

set(CUDALAB_ROOT ${CMAKE_CURRENT_LIST_DIR}/..)
cmake_path(NORMAL_PATH CUDALAB_ROOT)
set(CUDALAB_KERNEL_TIMEOUT 20 CACHE STRING
    "Seconds one wait on the GPU may last before the watchdog stops the test and marks its lab as hung (a GPU test runs at most 6 x this in all; tests that run alone: 6 x both; 0: no watchdog)")
if(NOT CUDALAB_KERNEL_TIMEOUT MATCHES "^[0-9]+$")
  message(FATAL_ERROR "cuda-labs: CUDALAB_KERNEL_TIMEOUT is '${CUDALAB_KERNEL_TIMEOUT}': a whole number of seconds is required")
endif()
set(CUDALAB_LABS_DIR ${CUDALAB_ROOT}labs)
set(CUDALAB_SOLUTIONS_DIR ${CUDALAB_ROOT}solutions)

if(CUDALAB_USE_SOLUTIONS AND NOT EXISTS ${CUDALAB_SOLUTIONS_DIR})
  message(WARNING "cuda-labs: CUDALAB_USE_SOLUTIONS is ON but ${CUDALAB_SOLUTIONS_DIR} does not "
                  "exist (student release): building the skeletons in labs/")
endif()

# The student's host code (launchers, validators, models) runs under the cheap checks of the
# undefined-behaviour sanitizer, as compute-sanitizer watches the kernels: an index past a fixed
# array, a signed overflow, a shift past the width, a division by zero, a function that ends
# without its return. Such code may still give the right values on one compiler; here the test
# that reaches it stops with the file, the line and what was wrong ("runtime error: ...").
# Only the lab's own sources are instrumented (the tests and the CUDA runtime are not); GCC and
# Clang host compilers with their sanitizer runtime (libubsan) only, else a note and no checks.
set(CUDALAB_HOST_UB_CHECKS "bounds,signed-integer-overflow,shift,integer-divide-by-zero,return,vla-bound,unreachable")
option(CUDALAB_HOST_UBSAN "Check the labs' host code for undefined behaviour (GCC/Clang: -fsanitize=${CUDALAB_HOST_UB_CHECKS})" ON)
get_property(_cudalab_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
list(FIND _cudalab_languages CXX _cudalab_cxx)  # not enabled where this file is read as a script (tools/test_cmake.py)
if(CUDALAB_HOST_UBSAN AND _cudalab_cxx GREATER -1 AND NOT DEFINED CACHE{CUDALAB_HOST_UBSAN_WORKS})
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "-fsanitize=${CUDALAB_HOST_UB_CHECKS} -fno-sanitize-recover=${CUDALAB_HOST_UB_CHECKS}")
  set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=${CUDALAB_HOST_UB_CHECKS}")
  set(CMAKE_REQUIRED_QUIET ON)
  check_cxx_source_compiles("int f(int a, int s) { int w[4] = {a, a, a, a}; return w[s & 3] << s; }\nint main(int c, char **) { return f(c, 1) > 100; }"
                            CUDALAB_HOST_UBSAN_WORKS)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  unset(CMAKE_REQUIRED_QUIET)
  if(NOT CUDALAB_HOST_UBSAN_WORKS)
    message(STATUS "cuda-labs: the host compiler cannot build with -fsanitize=${CUDALAB_HOST_UB_CHECKS} "
                   "(no libubsan?): the labs' host code is not checked for undefined behaviour")
  endif()
endif()

# CUDA 13 gives kernels hidden visibility by default (nvcc -device-entity-has-hidden-visibility):
# a lab's kernels live in its shared library and the tests launch them, so kernels keep default
# visibility in every CUDA target (the lab's version script still exports only its header's
# names). Older nvcc has no such flag and gives them default visibility anyway.
if(_cudalab_cxx GREATER -1 AND NOT DEFINED CACHE{CUDALAB_CUDA_KERNELS_VISIBLE_FLAG})
  include(CheckCompilerFlag)
  check_compiler_flag(CUDA "-device-entity-has-hidden-visibility=false" CUDALAB_NVCC_HAS_VISIBILITY_FLAG)
  set(flag "")
  if(CUDALAB_NVCC_HAS_VISIBILITY_FLAG)
    set(flag "-device-entity-has-hidden-visibility=false")
  endif()
  set(CUDALAB_CUDA_KERNELS_VISIBLE_FLAG "${flag}" CACHE INTERNAL "")
endif()

# cudalab_host_ub_checks(<target>): the checks above for the target's sources, and their runtime
# on its link (a library: on the link of every program that uses it).
function(cudalab_host_ub_checks target)
  if(NOT CUDALAB_HOST_UBSAN OR NOT CUDALAB_HOST_UBSAN_WORKS)
    return()
  endif()
  # One flag per check: nvcc splits an -Xcompiler value at its commas.
  string(REPLACE "," ";" checks "${CUDALAB_HOST_UB_CHECKS}")
  get_target_property(type ${target} TYPE)
  set(scope INTERFACE)  # a library: every program that links it gets the runtime
  if(type STREQUAL "EXECUTABLE")
    set(scope PRIVATE)
  endif()
  foreach(c IN LISTS checks)
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-Xcompiler -fsanitize=${c}>"
      "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-Xcompiler -fno-sanitize-recover=${c}>"
      "$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${c};-fno-sanitize-recover=${c}>")
    # The host link only (the host compiler links CUDA programs too); a separable lab's device
    # link (nvcc -dlink) needs no sanitizer runtime.
    target_link_options(${target} ${scope} "$<HOST_LINK:-fsanitize=${c}>")
  endforeach()
endfunction()

# Common settings for every target that holds CUDA code.
function(cudalab_cuda_target target)
  set_target_properties(${target} PROPERTIES
    CUDA_RUNTIME_LIBRARY Shared        # one runtime for everything: shared cudart (CUDA::cudart)
    CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
    CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -lineinfo ${CUDALAB_CUDA_KERNELS_VISIBLE_FLAG}>)
endfunction()

# _cudalab_read_json(<file> <out-var> <errors-var>): the text of a JSON file, checked as strictly as
# Python's json module reads it (tools/grade.py): CMake's own parser accepts trailing commas,
# comments and text after the value, which Python rejects. Problems are appended to <errors-var>
# as "<file>: line L, column C: <what>".
function(_cudalab_read_json file out errors)
  set(errs "${${errors}}")
  file(READ "${file}" text)
  set(${out} "${text}" PARENT_SCOPE)
  string(JSON type ERROR_VARIABLE err TYPE "${text}")
  if(err)
    # "failed parsing json string: * Line 2, Column 2\n  Missing ',' or '}' in object declaration"
    string(REGEX REPLACE "^[^*]*\\* *Line ([0-9]+), Column ([0-9]+)[ \t\r\n]*" "line \\1, column \\2: " err "${err}")
    string(REGEX REPLACE "[ \t\r\n]+" " " err "${err}")
    string(STRIP "${err}" err)
    list(APPEND errs "${file}: ${err}")
    set(${errors} "${errs}" PARENT_SCOPE)
    return()
  endif()
  # One token per string, structural character, run of blanks or run of other characters. List
  # separators and brackets in the text are replaced by one control character each first, so the
  # tokens' lengths still give line and column.
  string(ASCII 1 semi)
  string(ASCII 2 lb)
  string(ASCII 3 rb)
  string(ASCII 4 bs)
  string(REPLACE ";" "${semi}" t "${text}")
  string(REPLACE "[" "${lb}" t "${t}")
  string(REPLACE "]" "${rb}" t "${t}")
  string(REPLACE "\\" "${bs}" t "${t}")
  string(REGEX MATCHALL "\"([^\"${bs}]|${bs}.)*\"|[{}${lb}${rb},/]|[ \t\r\n]+|[^ \t\r\n\"{}${lb}${rb},/]+|." tokens "${t}")
  set(line 1)
  set(col 1)
  set(depth 0)
  set(prev "")
  set(done FALSE)
  foreach(tok IN LISTS tokens)
    if(tok MATCHES "^[ \t\r\n]+$")
      if(tok MATCHES "\n")
        string(REGEX MATCHALL "\n" nl "${tok}")
        list(LENGTH nl n)
        math(EXPR line "${line} + ${n}")
        string(REGEX REPLACE "^.*\n" "" tok "${tok}")
        set(col 1)
      endif()
    else()
      set(what "")
      if(done)
        set(what "text after the end of the JSON value")
      elseif(tok STREQUAL "/")
        set(what "a comment: JSON has none")
      elseif((tok STREQUAL "}" OR tok STREQUAL rb) AND prev STREQUAL ",")
        set(line ${comma_line})
        set(col ${comma_col})
        set(what "a comma before the closing bracket (JSON allows none there)")
      endif()
      if(what)
        list(APPEND errs "${file}: line ${line}, column ${col}: ${what}")
        set(${errors} "${errs}" PARENT_SCOPE)
        return()
      endif()
      if(tok STREQUAL ",")
        set(comma_line ${line})
        set(comma_col ${col})
      elseif(tok STREQUAL "{" OR tok STREQUAL lb)
        math(EXPR depth "${depth} + 1")
      elseif(tok STREQUAL "}" OR tok STREQUAL rb)
        math(EXPR depth "${depth} - 1")
      endif()
      if(depth EQUAL 0)
        set(done TRUE)
      endif()
      set(prev "${tok}")
    endif()
    string(LENGTH "${tok}" n)
    math(EXPR col "${col} + ${n}")
  endforeach()
endfunction()

# _cudalab_json_expect(<json> <errors-var> <where> <type> <optional> <member>...): appends an error
# unless the member path has the JSON type (NUMBER, STRING, OBJECT, ARRAY); a missing optional
# member is no error. Sets _cudalab_json_ok in the caller: TRUE when present with that type.
function(_cudalab_json_expect json errors where type optional)
  string(JSON got ERROR_VARIABLE err TYPE "${json}" ${ARGN})
  set(ok TRUE)
  if(err)
    set(ok FALSE)
    if(NOT optional)
      list(APPEND ${errors} "${where}: missing (${type} required)")
    endif()
  elseif(NOT got STREQUAL type)
    list(APPEND ${errors} "${where}: ${got} found, ${type} required")
    set(ok FALSE)
  endif()
  set(${errors} "${${errors}}" PARENT_SCOPE)
  set(_cudalab_json_ok ${ok} PARENT_SCOPE)
endfunction()

# _cudalab_milli(<number> <out-var>): a JSON number >= 0 in thousandths, rounded ("2.2999999999999998"
# -> 2300); empty for anything else (a negative number, an exponent).
function(_cudalab_milli number out)
  set(milli "")
  if(number MATCHES "^([0-9]+)(\\.([0-9]*))?$")
    string(SUBSTRING "${CMAKE_MATCH_3}0000" 0 4 frac)
    math(EXPR milli "(${CMAKE_MATCH_1} * 10000 + 1${frac} - 10000 + 5) / 10")
  endif()
  set(${out} "${milli}" PARENT_SCOPE)
endfunction()

# _cudalab_check_grading(<lab> <file> <json> <errors-var>): the fields tools/grade.py and the
# generated thresholds table read, with their types (docs/grading.md). Points are given per
# matching test, so the exact total needs the test list (CI compares it after a run); what can be
# known here: every rule matches at least one test, so total_points >= the sum of the rules' points.
function(_cudalab_check_grading lab file json errors)
  set(errs "${${errors}}")
  _cudalab_json_expect("${json}" errs "${file}" OBJECT FALSE)
  if(NOT _cudalab_json_ok)
    set(${errors} "${errs}" PARENT_SCOPE)
    return()
  endif()
  _cudalab_json_expect("${json}" errs "${file}: \"lab\"" STRING FALSE lab)
  if(_cudalab_json_ok)
    string(JSON name GET "${json}" lab)
    if(NOT name STREQUAL lab)
      list(APPEND errs "${file}: \"lab\" is \"${name}\", expected \"${lab}\"")
    endif()
  endif()
  _cudalab_json_expect("${json}" errs "${file}: \"default_points\"" NUMBER TRUE default_points)
  _cudalab_json_expect("${json}" errs "${file}: \"total_points\"" NUMBER FALSE total_points)
  set(total "")
  if(_cudalab_json_ok)
    string(JSON total GET "${json}" total_points)
    if(NOT total GREATER 0)
      list(APPEND errs "${file}: \"total_points\" is ${total}, a positive number required")
    endif()
  endif()
  _cudalab_json_expect("${json}" errs "${file}: \"points\"" ARRAY FALSE points)
  if(_cudalab_json_ok)
    string(JSON n LENGTH "${json}" points)
    set(sum 0)
    set(sum_ok TRUE)
    if(n GREATER 0)
      math(EXPR last "${n} - 1")
      foreach(i RANGE ${last})
        set(where "${file}: \"points\"[${i}]")
        _cudalab_json_expect("${json}" errs "${where}" OBJECT FALSE points ${i})
        if(NOT _cudalab_json_ok)
          set(sum_ok FALSE)
          continue()
        endif()
        _cudalab_json_expect("${json}" errs "${where}.match" STRING FALSE points ${i} match)
        _cudalab_json_expect("${json}" errs "${where}.points" NUMBER FALSE points ${i} points)
        if(_cudalab_json_ok)
          string(JSON p GET "${json}" points ${i} points)
          if(p LESS 0)
            list(APPEND errs "${where}.points is ${p}, a number >= 0 required")
          endif()
          _cudalab_milli("${p}" milli)  # math() has integers only
          if(milli STREQUAL "")
            set(sum_ok FALSE)
          else()
            math(EXPR sum "${sum} + ${milli}")
          endif()
        else()
          set(sum_ok FALSE)
        endif()
      endforeach()
    endif()
    _cudalab_milli("${total}" total_milli)
    if(sum_ok AND NOT total_milli STREQUAL "")
      if(total_milli LESS sum)
        math(EXPR whole "${sum} / 1000")
        math(EXPR rest "${sum} % 1000")
        set(shown ${whole})
        if(rest)
          math(EXPR rest "${rest} + 1000")  # 50 -> 1050 -> ".05"
          string(SUBSTRING "${rest}" 1 3 rest)
          string(REGEX REPLACE "0+$" "" rest "${rest}")
          set(shown "${whole}.${rest}")
        endif()
        list(APPEND errs "${file}: \"total_points\" is ${total}, less than the ${shown} points of its rules "
                         "taken once each (every rule matches at least one test)")
      endif()
    endif()
  endif()
  # "reports_errors": [{"function": "<name>", "reports": ["launch", "kernel"]}, ...] -- the lab's
  # functions that promise to report errors (tests/support/fault_injection.cuh).
  _cudalab_json_expect("${json}" errs "${file}: \"reports_errors\"" ARRAY TRUE reports_errors)
  if(_cudalab_json_ok)
    string(JSON n LENGTH "${json}" reports_errors)
    if(n GREATER 0)
      math(EXPR last "${n} - 1")
      foreach(i RANGE ${last})
        set(where "${file}: \"reports_errors\"[${i}]")
        _cudalab_json_expect("${json}" errs "${where}" OBJECT FALSE reports_errors ${i})
        if(NOT _cudalab_json_ok)
          continue()
        endif()
        _cudalab_json_expect("${json}" errs "${where}.function" STRING FALSE reports_errors ${i} function)
        if(_cudalab_json_ok)
          string(JSON fn GET "${json}" reports_errors ${i} function)
          if(NOT fn MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
            list(APPEND errs "${where}.function is '${fn}': a C++ function name is required")
          endif()
        endif()
        _cudalab_json_expect("${json}" errs "${where}.reports" ARRAY FALSE reports_errors ${i} reports)
        if(_cudalab_json_ok)
          string(JSON nr LENGTH "${json}" reports_errors ${i} reports)
          if(nr EQUAL 0)
            list(APPEND errs "${where}.reports is empty: \"launch\", \"kernel\" or both required")
          else()
            math(EXPR rlast "${nr} - 1")
            foreach(j RANGE ${rlast})
              string(JSON what GET "${json}" reports_errors ${i} reports ${j})
              if(NOT what MATCHES "^(launch|kernel)$")
                list(APPEND errs "${where}.reports[${j}] is '${what}': \"launch\" or \"kernel\" required")
              endif()
            endforeach()
          endif()
        endif()
      endforeach()
    endif()
  endif()
  # "forbidden_in_source": {"names": ["cuda_occupancy", ...], "why": "<reason>"} -- names the lab's
  # sources may not use outside comments (cmake/LabBuild.cmake).
  set(where "${file}: \"forbidden_in_source\"")
  _cudalab_json_expect("${json}" errs "${where}" OBJECT TRUE forbidden_in_source)
  if(_cudalab_json_ok)
    _cudalab_json_expect("${json}" errs "${where}.why" STRING FALSE forbidden_in_source why)
    _cudalab_json_expect("${json}" errs "${where}.names" ARRAY FALSE forbidden_in_source names)
    if(_cudalab_json_ok)
      string(JSON n LENGTH "${json}" forbidden_in_source names)
      if(n EQUAL 0)
        list(APPEND errs "${where}.names is empty: at least one name required")
      else()
        math(EXPR last "${n} - 1")
        foreach(i RANGE ${last})
          _cudalab_json_expect("${json}" errs "${where}.names[${i}]" STRING FALSE forbidden_in_source names ${i})
          if(_cudalab_json_ok)
            string(JSON name GET "${json}" forbidden_in_source names ${i})
            if(NOT name MATCHES "^[A-Za-z0-9_.]+$")
              list(APPEND errs "${where}.names[${i}] is '${name}': letters, digits, _ and . only")
            endif()
          endif()
        endforeach()
      endif()
    endif()
  endif()
  _cudalab_json_expect("${json}" errs "${file}: \"thresholds\"" OBJECT TRUE thresholds)
  if(_cudalab_json_ok)
    string(JSON n LENGTH "${json}" thresholds)
    if(n GREATER 0)
      math(EXPR last "${n} - 1")
      foreach(i RANGE ${last})
        string(JSON key MEMBER "${json}" thresholds ${i})
        set(where "${file}: \"thresholds\".${key}")
        if(NOT key MATCHES "^[A-Za-z0-9_]+$")
          list(APPEND errs "${where}: a key has letters, digits and _ only (it names $CUDALAB_THRESHOLD_<KEY>)")
        endif()
        _cudalab_json_expect("${json}" errs "${where}" OBJECT FALSE thresholds ${key})
        if(_cudalab_json_ok)
          _cudalab_json_expect("${json}" errs "${where}.value" NUMBER FALSE thresholds ${key} value)
          _cudalab_json_expect("${json}" errs "${where}.about" STRING FALSE thresholds ${key} about)
          _cudalab_json_expect("${json}" errs "${where}.calibrated" STRING FALSE thresholds ${key} calibrated)
        endif()
      endforeach()
    endif()
  endif()
  set(${errors} "${errs}" PARENT_SCOPE)
endfunction()

# _cudalab_threshold_overrides(<lab> <grading-json> <rows-var>): the device rows of the lab from
# the per-GPU override file (tools/calibrate.py --write-overrides): CUDALAB_THRESHOLD_OVERRIDES, or
# <source>/thresholds-overrides.json when that is empty and the file exists. Format:
#   {"devices": {"NVIDIA H200": {"<lab>": {"<key>": {"value": 0.7, "calibrated": "..."}}}}}
# Appends C++ rows {"key", value, "device"} to <rows-var>; a malformed file is a configure error.
function(_cudalab_threshold_overrides lab grading_json rows_var)
  set(file "${CUDALAB_THRESHOLD_OVERRIDES}")
  if(file STREQUAL "" AND EXISTS "${CUDALAB_ROOT}thresholds-overrides.json")
    set(file "${CUDALAB_ROOT}thresholds-overrides.json")
  endif()
  if(file STREQUAL "")
    return()
  endif()
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "cuda-labs: CUDALAB_THRESHOLD_OVERRIDES is ${file}, which does not exist "
                        "(empty: use <source>/thresholds-overrides.json if there is one)")
  endif()
  if(NOT CMAKE_SCRIPT_MODE_FILE)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
  endif()
  set_property(GLOBAL PROPERTY CUDALAB_THRESHOLD_OVERRIDES_FILE "${file}")
  set(errs "")
  _cudalab_read_json("${file}" json errs)
  if(NOT errs)
    _cudalab_json_expect("${json}" errs "${file}" OBJECT FALSE)
  endif()
  if(NOT errs)
    _cudalab_json_expect("${json}" errs "${file}: \"devices\"" OBJECT FALSE devices)
  endif()
  set(rows "")
  if(NOT errs)
    string(JSON nd LENGTH "${json}" devices)
    set(device_indices "")
    if(nd GREATER 0)
      math(EXPR last "${nd} - 1")
      foreach(i RANGE ${last})
        list(APPEND device_indices ${i})
      endforeach()
    endif()
    foreach(di IN LISTS device_indices)
      string(JSON device MEMBER "${json}" devices ${di})
      _cudalab_json_expect("${json}" errs "${file}: \"devices\".\"${device}\"" OBJECT FALSE devices "${device}")
      if(NOT _cudalab_json_ok)
        continue()
      endif()
      string(JSON type ERROR_VARIABLE missing TYPE "${json}" devices "${device}" ${lab})
      if(missing)
        continue()  # nothing for this lab on this GPU
      endif()
      set(where "${file}: \"devices\".\"${device}\".${lab}")
      _cudalab_json_expect("${json}" errs "${where}" OBJECT FALSE devices "${device}" ${lab})
      if(NOT _cudalab_json_ok)
        continue()
      endif()
      string(JSON nk LENGTH "${json}" devices "${device}" ${lab})
      set(key_indices "")
      if(nk GREATER 0)
        math(EXPR last "${nk} - 1")
        foreach(i RANGE ${last})
          list(APPEND key_indices ${i})
        endforeach()
      endif()
      foreach(ki IN LISTS key_indices)
        string(JSON key MEMBER "${json}" devices "${device}" ${lab} ${ki})
        _cudalab_json_expect("${json}" errs "${where}.${key}" OBJECT FALSE devices "${device}" ${lab} ${key})
        if(NOT _cudalab_json_ok)
          continue()
        endif()
        _cudalab_json_expect("${json}" errs "${where}.${key}.value" NUMBER FALSE devices "${device}" ${lab} ${key} value)
        set(value_ok ${_cudalab_json_ok})
        _cudalab_json_expect("${json}" errs "${where}.${key}.calibrated" STRING FALSE
                             devices "${device}" ${lab} ${key} calibrated)
        string(JSON known ERROR_VARIABLE unknown TYPE "${grading_json}" thresholds ${key})
        if(unknown)
          list(APPEND errs "${where}.${key}: tests/${lab}/grading.json has no threshold \"${key}\"")
        elseif(value_ok)
          string(JSON value GET "${json}" devices "${device}" ${lab} ${key} value)
          string(REPLACE "\\" "\\\\" cdevice "${device}")
          string(REPLACE "\"" "\\\"" cdevice "${cdevice}")
          string(APPEND rows "    {\"${key}\", ${value}, \"${cdevice}\"},\n")
          set_property(GLOBAL APPEND PROPERTY CUDALAB_THRESHOLD_OVERRIDE_ROWS "${lab}|${device}|${key}|${value}")
        endif()
      endforeach()
    endforeach()
  endif()
  if(errs)
    list(JOIN errs "\n  " text)
    message(FATAL_ERROR "cuda-labs: the threshold override file is not valid:\n  ${text}")
  endif()
  set(${rows_var} "${${rows_var}}${rows}" PARENT_SCOPE)
endfunction()

# _cudalab_grading(<lab> <grading.json> <out-var>): the text of the lab's grading.json, read once
# and checked (_cudalab_check_grading): a missing or malformed file is a configure error naming the
# file and the position or the field. Everything cudalab_add_lab takes from it reads this text.
function(_cudalab_grading lab grading out)
  if(NOT EXISTS ${grading})
    message(FATAL_ERROR "cuda-labs: ${grading} is missing: every lab needs one (docs/grading.md)")
  endif()
  set(errs "")
  _cudalab_read_json(${grading} json errs)
  if(NOT errs)
    _cudalab_check_grading(${lab} ${grading} "${json}" errs)
  endif()
  if(errs)
    list(JOIN errs "\n  " text)
    message(FATAL_ERROR "cuda-labs: ${lab}: grading.json is not valid (docs/grading.md):\n  ${text}")
  endif()
  set(${out} "${json}" PARENT_SCOPE)
endfunction()

# _cudalab_thresholds(<lab> <json>): writes the generated thresholds table of a lab from the text
# of its grading.json (checked by _cudalab_grading) and the per-GPU override file.
function(_cudalab_thresholds lab json)
  set(entries "")
  _cudalab_threshold_overrides(${lab} "${json}" entries)
  string(JSON n ERROR_VARIABLE none LENGTH "${json}" thresholds)
  if(none)
    set(n 0)
  endif()
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON key MEMBER "${json}" thresholds ${i})
      string(JSON value GET "${json}" thresholds ${key} value)
      string(APPEND entries "    {\"${key}\", ${value}, nullptr},\n")
    endforeach()
  endif()
  # The functions that promise to report errors ("reports_errors"): FaultInjection.* tests.
  set(promises "")
  string(JSON n ERROR_VARIABLE none LENGTH "${json}" reports_errors)
  if(NOT none AND n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON fn GET "${json}" reports_errors ${i} function)
      string(JSON reports GET "${json}" reports_errors ${i} reports)
      set(launch false)
      set(kernel false)
      if(reports MATCHES "\"launch\"")
        set(launch true)
      endif()
      if(reports MATCHES "\"kernel\"")
        set(kernel true)
      endif()
      string(APPEND promises "    {\"${fn}\", ${launch}, ${kernel}},\n")
    endforeach()
  endif()
  get_property(overrides GLOBAL PROPERTY CUDALAB_THRESHOLD_OVERRIDES_FILE)
  get_filename_component(overrides "${overrides}" NAME)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${lab}_thresholds.cpp)
  file(CONFIGURE OUTPUT ${out} CONTENT [=[
// Generated by cmake/CudaLab.cmake from tests/@lab@/grading.json -- do not edit.
#include "cudalab/launch_checks.hpp"
#include "cudalab/thresholds.hpp"
namespace cudalab::testing::detail {
const ErrorPromise kErrorPromises[] = {
@promises@    {nullptr, false, false}};
}  // namespace cudalab::testing::detail
namespace cudalab::detail {
const char *const kLabName = "@lab@";
const char *const kThresholdOverrides = "@overrides@";
const ThresholdEntry kThresholds[] = {
@entries@    {nullptr, 0.0, nullptr}};
}  // namespace cudalab::detail
]=] @ONLY)
endfunction()

# _cudalab_serial_suites(<out-var> <suites-var> <source>...): the GoogleTest tests of these sources
# that call a function that needs the GPU alone (below: timing, thresholds, Nsight Compute, sizes
# from the free GPU memory), and in <suites-var> every suite the sources define. A call counts for
# the TEST it appears in ("Suite.Test"), one in a fixture class for the whole suite ("Suite"), and
# one in a helper function, or anywhere else, for every suite of the file. The lab declares such
# tests (SERIAL_TESTS); this finds the ones it forgot.
set(_CUDALAB_SERIAL_CALLS
    "CUDALAB_RUN_NCU|threshold\\(|time_kernel\\(|compare_kernels\\(|measured_copy_bandwidth_gbs\\(|cudaMemGetInfo\\(|plan_huge_matrix\\(|CUDALAB_REQUIRE_FREE_MEMORY|free_device_memory\\(|lacks_free_memory\\(")
function(_cudalab_serial_suites out suites_out)
  set(head_test "^TEST(_F|_P)?\\(([A-Za-z0-9_]+), *([A-Za-z0-9_]+)")
  set(head_class "^(class|struct) ([A-Za-z0-9_]+)")
  set(head_function "^[A-Za-z_][A-Za-z0-9_:<>,*& ]* [*&]?[A-Za-z_][A-Za-z0-9_:]*\\(")
  set(result "")
  set(all_suites "")
  foreach(src IN LISTS ARGN)
    get_filename_component(src ${src} ABSOLUTE)
    file(STRINGS ${src} lines REGEX "${head_test}|${head_class}|${head_function}|${_CUDALAB_SERIAL_CALLS}")
    set(suites "")
    set(hits "")
    set(owner "*")
    foreach(line IN LISTS lines)
      if(line MATCHES "${head_test}")
        set(owner "${CMAKE_MATCH_2}.${CMAKE_MATCH_3}")
        list(APPEND suites "${CMAKE_MATCH_2}")
      elseif(line MATCHES "${head_class}")
        set(owner "${CMAKE_MATCH_2}")
      elseif(line MATCHES "${head_function}")
        set(owner "*")
      endif()
      if(line MATCHES "${_CUDALAB_SERIAL_CALLS}")
        list(APPEND hits "${owner}")
      endif()
    endforeach()
    foreach(hit IN LISTS hits)
      string(REGEX REPLACE "[.].*" "" suite "${hit}")
      if(suite IN_LIST suites)
        list(APPEND result "${hit}")
      else()
        list(APPEND result ${suites})  # a helper or a class that is no suite: the whole file
      endif()
    endforeach()
    list(APPEND all_suites ${suites})
  endforeach()
  list(REMOVE_DUPLICATES result)
  list(REMOVE_DUPLICATES all_suites)
  set(${out} "${result}" PARENT_SCOPE)
  set(${suites_out} "${all_suites}" PARENT_SCOPE)
endfunction()

# _cudalab_serial_for(<out-var> <lab> <exe> <source>...): the lab's declared SERIAL_TESTS
# (_cudalab_declared_serial, set by cudalab_add_lab) whose suite these sources define, each noted
# in the global property CUDALAB_SERIAL_USED. A test the source scan (_cudalab_serial_suites) finds
# that nobody declared stops the configure with the line to add.
function(_cudalab_serial_for out lab exe)
  _cudalab_serial_suites(found defined ${ARGN})
  set(suites "")
  foreach(entry IN LISTS _cudalab_declared_serial)
    string(REGEX REPLACE "[.].*" "" suite "${entry}")
    if(suite IN_LIST defined)
      list(APPEND suites "${entry}")
      set_property(GLOBAL APPEND PROPERTY CUDALAB_SERIAL_USED "${entry}")
    endif()
  endforeach()
  foreach(hit IN LISTS found)
    string(REGEX REPLACE "[.].*" "" suite "${hit}")
    if(NOT hit IN_LIST suites AND NOT suite IN_LIST suites)
      string(REPLACE "\\(" "" calls "${_CUDALAB_SERIAL_CALLS}")
      string(REPLACE "|" ", " calls "${calls}")
      message(FATAL_ERROR "cuda-labs: ${lab}: ${hit} (in ${exe}) calls one of ${calls}: it times kernels, "
                          "compares a measurement with a threshold, runs Nsight Compute or sizes its data "
                          "from the free GPU memory, so it must have the GPU to itself. Add ${hit} to "
                          "SERIAL_TESTS in tests/${lab}/CMakeLists.txt")
    endif()
  endforeach()
  set(${out} "${suites}" PARENT_SCOPE)
endfunction()

# The tools of the SanitizeAll checks (docs/grading.md, "The sanitizer over every kernel"):
# compute-sanitizer's four, and globalrace, the kernel tracer's race check on global memory
# (tools/tracer/hazards.hpp), which racecheck does not look at.
set(CUDALAB_SANITIZE_ALL_TOOLS memcheck racecheck synccheck initcheck globalrace)
# Where tools/tracer (added after the labs) puts the tracer, or the reason it is not built.
set(CUDALAB_TRACER_DIR ${CMAKE_BINARY_DIR}/tools/tracer)

# _cudalab_student_kernels(<out-var> <lab> <source>...): the names of the kernels the student
# writes: every __global__ function declared in the lab's headers (labs/<lab>/*.cuh, *.h, *.hpp:
# the course's copy, the same for every submission) and defined in the student's sources (a
# kernel of their own). Line comments are ignored; __launch_bounds__(...) and template heads may
# stand between __global__ and the name.
function(_cudalab_student_kernels out lab)
  file(GLOB headers ${CUDALAB_LABS_DIR}/${lab}/*.cuh ${CUDALAB_LABS_DIR}/${lab}/*.h ${CUDALAB_LABS_DIR}/${lab}/*.hpp)
  set(names "")
  foreach(f IN LISTS headers ARGN)
    file(READ ${f} text)
    string(REPLACE ";" " " text "${text}")
    string(REGEX REPLACE "//[^\n]*" "" text "${text}")
    string(REGEX REPLACE "__launch_bounds__[ \t\n]*\\([^)]*\\)" " " text "${text}")
    string(REGEX MATCHALL "__global__[^;{}()]*[ \t\n*&]([A-Za-z_][A-Za-z0-9_]*)[ \t\n]*\\(" decls "${text}")
    foreach(d IN LISTS decls)
      if(d MATCHES "([A-Za-z_][A-Za-z0-9_]*)[ \t\n]*\\($")
        list(APPEND names ${CMAKE_MATCH_1})
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES names)
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

# The CTest TIMEOUT of a test with watchdog budget <budget>: a backstop a little above the longest
# the watchdog lets a GPU test run (6 budgets, see cudalab/watchdog.hpp; the budget starts when
# the test does, after the process and CUDA have started).
function(_cudalab_backstop budget out)
  if(budget EQUAL 0)
    set(${out} 1500 PARENT_SCOPE)  # no watchdog: CTest's own default
  else()
    math(EXPR t "${budget} * 6 + 15")
    set(${out} ${t} PARENT_SCOPE)
  endif()
endfunction()

# _cudalab_thresholds_objects(<lab> <out-var>): the lab's generated thresholds table
# (<lab>_thresholds.cpp), compiled once for all of the lab's programs: <out-var> is its object file,
# to list among a program's sources (cudalab::testing refers to the table, so it goes into each
# program itself, not into a library the linker may skip).
function(_cudalab_thresholds_objects lab out)
  if(NOT TARGET ${lab}_thresholds)
    add_library(${lab}_thresholds OBJECT ${CMAKE_CURRENT_BINARY_DIR}/${lab}_thresholds.cpp
                                         ${CMAKE_CURRENT_BINARY_DIR}/${lab}_reference.cpp)
    cudalab_cuda_target(${lab}_thresholds)
    target_link_libraries(${lab}_thresholds PRIVATE cudalab::testing)
  endif()
  set(${out} $<TARGET_OBJECTS:${lab}_thresholds> PARENT_SCOPE)
endfunction()

# Reference kernels (cudalab/reference_kernels.hpp, docs/reference-kernels-design.md): a lab
# declared with REFERENCE_KERNELS gets its solution's files compiled to fatbins (SASS only, no
# -lineinfo), embedded in its test programs, so that its timed tests time the student's kernel
# against the reference kernel on the student's own GPU. From solutions/<lab>/ in a full tree, from
# reference/<lab>/ in a release (tools/staff/make_release.sh builds them for
# CUDALAB_REFERENCE_RELEASE_ARCHITECTURES); none with CUDALAB_REFERENCE=OFF, and then (or on a GPU
# the images have no code for) those tests grade against their baselines as before.
set(CUDALAB_REFERENCE AUTO CACHE STRING
    "Reference kernels in the timed tests: AUTO (from solutions/, else the release's reference/) or OFF")
set_property(CACHE CUDALAB_REFERENCE PROPERTY STRINGS AUTO OFF)
set(CUDALAB_REFERENCE_NVCC "" CACHE FILEPATH
    "The nvcc that compiles the reference images (default: the project's CUDA compiler)")
set(CUDALAB_REFERENCE_SOLUTIONS "${CUDALAB_SOLUTIONS_DIR}" CACHE PATH
    "Where the reference images are compiled from (<dir>/<lab>/<file>): solutions/, or the instructor's copy when a submission is graded in a tree without it (tools/grade_submission.py)")
set(CUDALAB_REFERENCE_RELEASE_ARCHITECTURES "75;80;86;89;90;100;120" CACHE STRING
    "Architectures (SASS) of the reference images a release ships (target cudalab_reference_release)")

# _cudalab_reference_fatbin(<lab> <file> <out> <architectures>): the command that compiles
# solutions/<lab>/<file> into the fatbin <out> for <architectures> (CMAKE_CUDA_ARCHITECTURES form).
# _cudalab_reference_nvcc(<out-var>): the nvcc that compiles the reference images.
function(_cudalab_reference_nvcc out)
  if(CUDALAB_REFERENCE_NVCC)
    set(${out} "${CUDALAB_REFERENCE_NVCC}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_CUDA_COMPILER}" PARENT_SCOPE)
  endif()
endfunction()

function(_cudalab_reference_fatbin lab file out archs)
  _cudalab_reference_nvcc(nvcc)
  set(flags "")
  foreach(a IN LISTS archs)
    if(a MATCHES "^(native|all|all-major)$")
      list(APPEND flags -arch=${a})
    elseif(a MATCHES "^([0-9]+[af]?)-virtual$")
      list(APPEND flags -gencode arch=compute_${CMAKE_MATCH_1},code=compute_${CMAKE_MATCH_1})
    elseif(a MATCHES "^([0-9]+[af]?)(-real)?$")
      list(APPEND flags -gencode arch=compute_${CMAKE_MATCH_1},code=sm_${CMAKE_MATCH_1})
    else()
      set(${out}_ok FALSE PARENT_SCOPE)
      set(${out}_why "no reference images for the CUDA architectures '${archs}'" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  if(NOT flags)
    set(${out}_ok FALSE PARENT_SCOPE)
    set(${out}_why "no reference images without CUDA architectures (CMAKE_CUDA_ARCHITECTURES is '${archs}')" PARENT_SCOPE)
    return()
  endif()
  if(CMAKE_CUDA_HOST_COMPILER)
    list(APPEND flags -ccbin ${CMAKE_CUDA_HOST_COMPILER})
  endif()
  separate_arguments(user_flags UNIX_COMMAND "${CMAKE_CUDA_FLAGS}")  # -allow-unsupported-compiler and the like
  list(APPEND flags -no-compress -std=c++17 --expt-relaxed-constexpr ${user_flags}
       -I${CUDALAB_LABS_DIR}/${lab} -I${CUDALAB_ROOT}common/include)
  get_filename_component(dir "${out}" DIRECTORY)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${CMAKE_COMMAND} -DNVCC=${nvcc} -DSOURCE=${CUDALAB_REFERENCE_SOLUTIONS}/${lab}/${file} -DFATBIN=${out}
            "-DFLAGS=${flags}" -P ${CUDALAB_ROOT}cmake/ReferenceImage.cmake
    DEPENDS ${CUDALAB_REFERENCE_SOLUTIONS}/${lab}/${file} ${CUDALAB_ROOT}cmake/ReferenceImage.cmake
    DEPFILE ${out}.d
    COMMENT "Reference image of ${lab}/${file}"
    VERBATIM)
  set(${out}_ok TRUE PARENT_SCOPE)
endfunction()

# _cudalab_reference_source(<lab> <wanted> <out-var> <file>...): generates <lab>_reference.cpp
# (cmake/ReferenceImage.cmake), which every test program of the lab links; <out-var> is its path.
# <wanted>: the lab's tests time against its reference (REFERENCE_KERNELS).
function(_cudalab_reference_source lab wanted out)
  set(cpp ${CMAKE_CURRENT_BINARY_DIR}/${lab}_reference.cpp)
  set(images "")  # <file>=<fatbin> each
  if(NOT wanted)
    set(origin "${lab}'s timed tests are not graded against reference kernels")
  elseif(CUDALAB_REFERENCE STREQUAL "OFF")
    set(origin "this build leaves the reference kernels out (CUDALAB_REFERENCE=OFF)")
  elseif(EXISTS ${CUDALAB_REFERENCE_SOLUTIONS}/${lab})
    if(CUDALAB_REFERENCE_RELEASE_ARCHITECTURES MATCHES "virtual|all|native")
      message(FATAL_ERROR "cuda-labs: CUDALAB_REFERENCE_RELEASE_ARCHITECTURES must list real architectures "
                          "(SASS only, e.g. 75;80;86;89;90;100;120), not '${CUDALAB_REFERENCE_RELEASE_ARCHITECTURES}'")
    endif()
    _cudalab_reference_nvcc(nvcc)
    set(origin "compiled from ${CUDALAB_REFERENCE_SOLUTIONS}/${lab} for CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} by ${nvcc}")
    set(shipped_all "")
    foreach(f IN LISTS ARGN)
      set(fatbin ${CMAKE_CURRENT_BINARY_DIR}/reference/${f}.fatbin)
      _cudalab_reference_fatbin(${lab} ${f} ${fatbin} "${CMAKE_CUDA_ARCHITECTURES}")
      if(NOT ${fatbin}_ok)
        set(origin "${${fatbin}_why}")
        set(images "")
        break()
      endif()
      list(APPEND images "${f}=${fatbin}")
      # The release's copy, for the architectures a release supports (tools/staff/make_release.sh).
      set(shipped ${CMAKE_BINARY_DIR}/reference-release/${lab}/${f}.fatbin)
      _cudalab_reference_fatbin(${lab} ${f} ${shipped} "${CUDALAB_REFERENCE_RELEASE_ARCHITECTURES}")
      list(APPEND shipped_all ${shipped})
    endforeach()
    add_custom_target(${lab}_reference_release DEPENDS ${shipped_all})
    if(NOT TARGET cudalab_reference_release)
      add_custom_target(cudalab_reference_release)
    endif()
    add_dependencies(cudalab_reference_release ${lab}_reference_release)
  else()
    set(origin "the reference kernels that came with this release (reference/${lab}/)")
    foreach(f IN LISTS ARGN)
      set(fatbin ${CUDALAB_ROOT}reference/${lab}/${f}.fatbin)
      if(NOT EXISTS ${fatbin})
        set(origin "this release has no reference kernels for ${lab} (reference/${lab}/${f}.fatbin is missing)")
        set(images "")
        break()
      endif()
      list(APPEND images "${f}=${fatbin}")
    endforeach()
  endif()
  list(TRANSFORM images REPLACE "^[^=]*=" "" OUTPUT_VARIABLE depends)
  add_custom_command(OUTPUT ${cpp}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${cpp} "-DIMAGES=${images}" "-DORIGIN=${origin}"
            -P ${CUDALAB_ROOT}cmake/ReferenceImage.cmake
    DEPENDS ${depends} ${CUDALAB_ROOT}cmake/ReferenceImage.cmake
    COMMENT "Reference kernels of ${lab}"
    VERBATIM)
  set(${out} ${cpp} PARENT_SCOPE)
endfunction()

# _cudalab_test_executable(<lab> <kind> <where> <budget> <heavy-budget> <source>...)
function(_cudalab_test_executable lab kind where budget heavy)
  set(exe ${lab}_${kind}_${where})
  _cudalab_thresholds_objects(${lab} thresholds)
  add_executable(${exe} ${ARGN} ${thresholds})
  cudalab_cuda_target(${exe})
  _cudalab_build_through_launcher(${lab} ${exe})
  # The host-only test files (.cpp: GoogleTest bodies, set-up, small loops) build about 30 % faster
  # at -O1 than at -O3. The lab's code, the checkers and CPU references in <lab>_tests_support
  # (where the heavy host work is), and all device code keep the build type's flags.
  target_compile_options(${exe} PRIVATE $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CONFIG:Release>>:-O1>)
  target_link_libraries(${exe} PRIVATE ${lab}_tests_support cudalab::testing)
  get_property(separable GLOBAL PROPERTY CUDALAB_CURRENT_SEPARABLE)
  if(separable)
    set_target_properties(${exe} PROPERTIES CUDA_SEPARABLE_COMPILATION ON CUDA_RESOLVE_DEVICE_SYMBOLS ON)
  endif()
  _cudalab_backstop(${budget} light_timeout)
  _cudalab_backstop(${heavy} heavy_timeout)
  # Its GoogleTest cases become CTest tests when ctest starts (cmake/DiscoverTests.cmake, in the
  # generated <exe>_labels.cmake below), with their labels, budgets and result records.
  set(labels "${lab};${kind};${where}")
  set(state "CUDALAB_STATE_DIR=${CMAKE_CURRENT_BINARY_DIR}")
  # Each test's result record (cmake/TestRecords.cmake): GoogleTest writes its JSON output there
  # when the test ends; the test binary's main() removes an earlier run's record first.
  set(results "${CMAKE_CURRENT_BINARY_DIR}/results")
  # Tests that time kernels, count them with Nsight Compute or size their data from the free GPU
  # memory run alone (RUN_SERIAL) even under `ctest -j N`, with the larger budget: correctness
  # tests may share the GPU, measurements may not. They carry the label "serial" too, for a tool
  # that runs several ctest at once (tools/staff/mutants.py) and must give them the GPU alone.
  set(serial "")
  if(kind STREQUAL "performance")
    set(serial ".")
  else()
    _cudalab_serial_for(suites ${lab} ${exe} ${ARGN})
    if(where STREQUAL "gpu")
      # The SanitizeAll checks run this binary without its tests that must run alone: as GoogleTest
      # negative patterns, "Suite" -> Suite.* and */Suite.* (TEST_P instances), "Suite.Test" ->
      # Suite.Test, Suite.Test/*, */Suite.Test, */Suite.Test/*.
      set(patterns "")
      foreach(entry IN LISTS suites)
        if(entry MATCHES "[.]")
          list(APPEND patterns "${entry}" "${entry}/*" "*/${entry}" "*/${entry}/*")
        else()
          list(APPEND patterns "${entry}.*" "*/${entry}.*")
        endif()
      endforeach()
      set_property(GLOBAL PROPERTY CUDALAB_SERIAL_GTEST_${lab} "${patterns}")
    endif()
    if(suites)
      # "Suite" -> "Suite[.]", "Suite.Test" -> "Suite[.]Test(/|$)" (TEST_P names end in /<param>)
      list(TRANSFORM suites REPLACE "^([A-Za-z0-9_]+)$" "\\1[.]")
      list(TRANSFORM suites REPLACE "^([A-Za-z0-9_]+)[.]([A-Za-z0-9_]+)$" "\\1[.]\\2(/|$)")
      list(JOIN suites "|" alternatives)
      set(serial "^${lab}[.]([A-Za-z0-9_]+/)?(${alternatives})")
    endif()
  endif()
  set(late "")
  if(serial)
    set(late "\
      if(t MATCHES \"${serial}\")
        set_tests_properties(\${t} PROPERTIES RUN_SERIAL TRUE TIMEOUT ${heavy_timeout} LABELS \"${labels};serial\"
                             ENVIRONMENT \"${state};CUDALAB_KERNEL_TIMEOUT=${heavy};GTEST_OUTPUT=json:${results}/\${record}\")
        list(APPEND cudalab_late_${lab} \"\${t}\")
        continue()
      endif()
")
  endif()
  # The GPU correctness tests that share the GPU get shared memory poisoned before every launch
  # (cudalab/launch_checks.hpp); the tests that run alone time kernels and must not pay for it.
  set(poison "")
  if(kind STREQUAL "correctness" AND where STREQUAL "gpu")
    set(poison ";CUDALAB_POISON_SHARED=1")
  endif()
  set(early "")
  if(where STREQUAL "gpu")
    set(early "      list(APPEND cudalab_early_${lab} \"\${t}\")\n")
  endif()
  file(MAKE_DIRECTORY ${results})
  set(source_args "")
  foreach(source IN LISTS _cudalab_lab_sources)
    string(APPEND source_args " [==[${source}]==]")
  endforeach()
  file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/${exe}_labels.cmake CONTENT "\
include([==[${CUDALAB_ROOT}cmake/DiscoverTests.cmake]==])
cudalab_program_problem([==[$<TARGET_FILE:${exe}>]==] [==[${CMAKE_CURRENT_BINARY_DIR}]==] [==[${CMAKE_BINARY_DIR}]==] problem${source_args})
set(${exe}_TESTS \"\")
if(NOT problem)
  cudalab_discover_tests([==[$<TARGET_FILE:${exe}>]==] \"${lab}.\" ${exe}_TESTS problem)
endif()
if(NOT problem)
  if(${exe}_TESTS)
    include([==[${CUDALAB_ROOT}cmake/TestRecords.cmake]==])
    set_tests_properties(\${${exe}_TESTS} PROPERTIES LABELS \"${labels}\" TIMEOUT ${light_timeout})
    foreach(t IN LISTS ${exe}_TESTS)
      cudalab_record_file(\"\${t}\" record)
${late}      set_tests_properties(\${t} PROPERTIES ENVIRONMENT \"${state};CUDALAB_KERNEL_TIMEOUT=${budget}${poison};GTEST_OUTPUT=json:${results}/\${record}\")
${early}    endforeach()
  endif()
endif()
if(problem)
  add_test(${exe}_NOT_BUILT [==[${CMAKE_COMMAND}]==] \"-DWHY=\${problem}\" -P [==[${CUDALAB_ROOT}cmake/NoTests.cmake]==])
  set_tests_properties(${exe}_NOT_BUILT PROPERTIES LABELS \"${labels}\")
endif()
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES
               ${CMAKE_CURRENT_BINARY_DIR}/${exe}_labels.cmake)
endfunction()

# _cudalab_header_code(<header> <semicolon> <out>): the text of a lab's header as its declarations
# are read here (the export map, the apart macros): comments, string contents and preprocessor
# lines taken out, each ";" written as <semicolon> (CMake's list separator).
function(_cudalab_header_code header semicolon out)
  file(READ ${header} text)
  string(REPLACE ";" "${semicolon}" text "${text}")
  string(REGEX REPLACE "/[*]([^*]|[*]+[^*/])*[*]+/" " " text "${text}")
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")
  string(REGEX REPLACE "\"([^\"\\\\]|\\\\.)*\"" "\"\"" text "${text}")
  string(REGEX REPLACE "(^|\n)[ \t]*#[^\n]*" "\\1" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# _cudalab_apart_on_gpu(<program>): a program of the lab's directory that uses the GPU (its GPU
# tests, sanitizer driver, profile target) calls the lab's host functions as the host tests do,
# in the worker (cudalab/apart.hpp), where the runtime functions a lab's model or device query
# asks are the program's own (common/testing/apart_runtime.cpp); a function given device buffers
# (a launcher) is still called directly.
# With -DCUDALAB_APART_LAUNCHERS=ON the launchers run in the worker too, their launches, copies,
# waits and allocations carried out by the program (common/testing/apart_launchers.cpp).
function(_cudalab_apart_on_gpu program)
  target_include_directories(${program} PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/apart)
  target_compile_definitions(${program} PRIVATE CUDALAB_APART_GPU=1)
  target_link_libraries(${program} PRIVATE $<TARGET_OBJECTS:cudalab_apart_runtime>)
  add_dependencies(${program} cudalab_apart_runtime)
  if(CUDALAB_APART_LAUNCHERS)
    target_compile_definitions(${program} PRIVATE CUDALAB_APART_LAUNCHERS=1)
    set(served cudalab_apart_launchers)
  else()
    set(served cudalab_apart_served)  # a model's waits and frees in the worker; launchers in the program
  endif()
  target_link_libraries(${program} PRIVATE $<TARGET_OBJECTS:${served}>)
  add_dependencies(${program} ${served})
endfunction()

# _cudalab_apart_header(<lab> <dir> <in-process functions>): for each header of labs/<lab>/,
# <dir>/cudalab_apart_<header>.hpp, which the header includes at its end where it exists (only the
# test programs' and their helper libraries' include paths have <dir>). It defines for each host function f the header
# declares a macro that makes every later call `f(...)` a call of
# `cudalab::apart::Apart<&::f>{"f"}`: the function runs in a child process that can do nothing but
# answer (cudalab/apart.hpp). Left out: kernels, inline, constexpr and template functions (the
# course's own code in the header), functions with default arguments (a pointer to the function
# does not know them) and <in-process functions> (HOST_IN_PROCESS). The headers are read as
# _cudalab_export_map reads them; a header with such functions that does not end with the include
# stops the configuration.
function(_cudalab_apart_header lab dir in_process)
  foreach(fn IN LISTS in_process)
    if(NOT fn MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
      message(FATAL_ERROR "cuda-labs: ${lab}: HOST_IN_PROCESS names '${fn}', which is not a function name")
    endif()
  endforeach()
  file(GLOB headers ${CUDALAB_LABS_DIR}/${lab}/*.cuh ${CUDALAB_LABS_DIR}/${lab}/*.h ${CUDALAB_LABS_DIR}/${lab}/*.hpp)
  foreach(h IN LISTS headers)
    get_filename_component(stem "${h}" NAME_WE)
    file(READ ${h} original)
    _cudalab_header_code(${h} "@" text)  # ";" as "@": the end of each declaration, as bodies below
    # Bodies end declarations: a function defined in the header is one declaration, like a struct.
    while(text MATCHES "{[^{}]*}")
      string(REGEX REPLACE "{[^{}]*}" " @ " text "${text}")
    endwhile()
    string(REPLACE "@" ";" declarations "${text}")
    string(REPLACE "\n" " " declarations "${declarations}")
    string(REPLACE "\t" " " declarations "${declarations}")
    set(macros "")
    foreach(d IN LISTS declarations)
      string(STRIP "${d}" d)
      if(d MATCHES "(^| )(__global__|inline|constexpr|template|typedef|using|operator|static|struct|class|enum|union)([ (<]|$)")
        continue()
      endif()
      if(NOT d MATCHES "[ *&]([A-Za-z_][A-Za-z0-9_]*) *[(](.*)[)]( *const)?$")
        continue()
      endif()
      set(fn "${CMAKE_MATCH_1}")
      if(CMAKE_MATCH_2 MATCHES "=" OR fn IN_LIST in_process OR fn MATCHES "^(__|cuda|cu[A-Z])")
        continue()
      endif()
      string(APPEND macros "#define ${fn}(...) ::cudalab::apart::Apart<&::${fn}>{\"${fn}\"}(__VA_ARGS__)\n")
    endforeach()
    set(hook "cudalab_apart_${stem}.hpp")
    if(macros AND NOT original MATCHES "#if __has_include[(]\"${hook}\"[)]\n#include \"${hook}\"\n#endif\n$")
      message(FATAL_ERROR "cuda-labs: ${h} declares host functions that the host tests run in a process of their "
                          "own (cudalab/apart.hpp), and must end with\n#if __has_include(\"${hook}\")\n"
                          "#include \"${hook}\"\n#endif")
    endif()
    set(codecs "")
    if(macros AND EXISTS ${CUDALAB_ROOT}tests/${lab}/apart_codecs.hpp)
      set(codecs "#include \"${CUDALAB_ROOT}tests/${lab}/apart_codecs.hpp\"\n")
    endif()
    file(CONFIGURE OUTPUT ${dir}/${hook} CONTENT "\
// Generated by cmake/CudaLab.cmake from labs/${lab}/${stem}'s declarations -- do not edit. Included
// at the end of that header in the lab's host test program only: each later call of a host
// function of the lab runs in a process of its own (cudalab/apart.hpp).
#pragma once
#include \"cudalab/apart.hpp\"
${codecs}
${macros}")
  endforeach()
endfunction()

# _cudalab_export_map(<lab> <map-file> <patterns-var>): the version script of the lab's shared
# library: global are the names that labs/<lab>/'s headers declare (functions and kernels with
# their overloads and template instances, the members of the structs and classes they declare,
# variables), as mangled-name patterns ("_Z16reduceNeighbored*"), everything else local. The
# headers are the course's; their declarations are read with comments, strings, preprocessor
# lines and every {...} body taken out. <patterns-var>: the patterns, for CheckLabSymbols.cmake.
function(_cudalab_export_map lab map out)
  file(GLOB headers ${CUDALAB_LABS_DIR}/${lab}/*.cuh ${CUDALAB_LABS_DIR}/${lab}/*.h ${CUDALAB_LABS_DIR}/${lab}/*.hpp)
  set(keywords alignas alignof asm auto bool char const constexpr decltype default delete do double else
      enum explicit extern float for if inline int long noexcept operator register return short signed
      sizeof static static_assert static_cast reinterpret_cast const_cast dynamic_cast struct switch template
      this throw typedef typename union unsigned using virtual void volatile while dim3 size_t)
  set(functions "")
  set(types "")
  foreach(h IN LISTS headers)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${h})
    _cudalab_header_code(${h} " " text)
    string(REGEX MATCHALL "(struct|class)[ \t\n]+[A-Za-z_][A-Za-z0-9_]*" declared "${text}")
    foreach(d IN LISTS declared)
      string(REGEX REPLACE "^(struct|class)[ \t\n]+" "" d "${d}")
      list(APPEND types ${d})
    endforeach()
    while(text MATCHES "{[^{}]*}")
      string(REGEX REPLACE "{[^{}]*}" " " text "${text}")
    endwhile()
    string(REGEX MATCHALL "[A-Za-z_][A-Za-z0-9_]*[ \t\n]*[(]" called "${text}")
    string(REGEX MATCHALL "extern[^(=]*[ *&]([A-Za-z_][A-Za-z0-9_]*)[ \t\n]*[[=]" variables "${text}")
    foreach(c IN LISTS called variables)
      string(REGEX MATCH "([A-Za-z_][A-Za-z0-9_]*)[ \t\n]*[[(=]$" c "${c}")
      list(APPEND functions ${CMAKE_MATCH_1})
    endforeach()
  endforeach()
  set(patterns "")
  foreach(name IN LISTS functions types)
    if(name IN_LIST keywords OR name MATCHES "^(__|_[A-Z]|cuda|cu[A-Z]|std$|main$|testing$|cudalab$)")
      continue()
    endif()
    string(LENGTH "${name}" n)
    if(name IN_LIST types)
      list(APPEND patterns "_ZN${n}${name}*" "_ZNK${n}${name}*")
    else()
      list(APPEND patterns "_Z${n}${name}*" "${name}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES patterns)
  list(SORT patterns)
  list(JOIN patterns ";\n    " lines)
  file(CONFIGURE OUTPUT ${map} CONTENT "\
/* Generated by cmake/CudaLab.cmake from labs/${lab}/'s headers -- do not edit.
   What the lab's shared library exports: the names its header declares, nothing else. */
{
  global:
    ${lines};
  local: *;
};
")
  set(${out} "${patterns}" PARENT_SCOPE)
endfunction()

# _cudalab_build_through_launcher(<lab> <target>): <target> compiles (the lab's library) or links
# (a program or shared library that uses the lab) through cmake/LabBuild.cmake.
function(_cudalab_build_through_launcher lab target)
  get_property(args GLOBAL PROPERTY CUDALAB_BUILD_LAUNCHER_${lab})
  get_target_property(type ${target} TYPE)
  if(target STREQUAL lab)  # a compiler launcher of the build's own (ccache) runs inside ours
    set(launcher ${CMAKE_COMMAND} -DMODE=compile ${args})
    if(CMAKE_CUDA_COMPILER_LAUNCHER)
      list(APPEND launcher ${CMAKE_CUDA_COMPILER_LAUNCHER})
    endif()
    set_target_properties(${target} PROPERTIES CUDA_COMPILER_LAUNCHER "${launcher}")
  endif()
  if(NOT type STREQUAL "STATIC_LIBRARY" AND NOT type STREQUAL "OBJECT_LIBRARY")
    set_target_properties(${target} PROPERTIES CUDA_LINKER_LAUNCHER "${CMAKE_COMMAND};-DMODE=link;${args}"
                                               CXX_LINKER_LAUNCHER "${CMAKE_COMMAND};-DMODE=link;${args}")
  endif()
endfunction()

function(cudalab_add_lab lab)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "SEPARABLE;REFERENCE_KERNELS" "DEMO;TIMEOUT;PERF_TIMEOUT;SANITIZER_DRIVER"
                        "SOURCES;HOST_TESTS;GPU_TESTS;PERF_TESTS;TEST_SOURCES;LIBRARIES;SANITIZER_CHECKS;DEMO_USES;SERIAL_TESTS;HOST_IN_PROCESS")
  foreach(entry IN LISTS ARG_SERIAL_TESTS)
    if(NOT entry MATCHES "^[A-Za-z0-9_]+([.][A-Za-z0-9_]+)?$")
      message(FATAL_ERROR "cuda-labs: ${lab}: SERIAL_TESTS entry '${entry}' is not Suite or Suite.Test")
    endif()
  endforeach()
  set(_cudalab_declared_serial ${ARG_SERIAL_TESTS})  # read by _cudalab_test_executable
  set_property(GLOBAL PROPERTY CUDALAB_SERIAL_GTEST_${lab} "")  # set by _cudalab_test_executable
  set_property(GLOBAL PROPERTY CUDALAB_SERIAL_USED "")
  # Watchdog budgets (see "Hangs" above): correctness tests, and the tests that run alone.
  if(NOT DEFINED ARG_TIMEOUT)
    set(ARG_TIMEOUT ${CUDALAB_KERNEL_TIMEOUT})
  endif()
  if(NOT DEFINED ARG_PERF_TIMEOUT)
    math(EXPR ARG_PERF_TIMEOUT "6 * ${ARG_TIMEOUT}")
  endif()

  # Skeleton or reference?
  set(variant labs)
  if((CUDALAB_USE_SOLUTIONS OR lab IN_LIST CUDALAB_SOLUTIONS) AND EXISTS ${CUDALAB_SOLUTIONS_DIR}/${lab})
    set(variant solutions)
  elseif(lab IN_LIST CUDALAB_SOLUTIONS)
    message(WARNING "cuda-labs: ${lab} is listed in CUDALAB_SOLUTIONS but solutions/${lab} is missing")
  endif()
  set(sources "")
  foreach(f IN LISTS ARG_SOURCES)
    if(variant STREQUAL "solutions" AND EXISTS ${CUDALAB_SOLUTIONS_DIR}/${lab}/${f})
      list(APPEND sources ${CUDALAB_SOLUTIONS_DIR}/${lab}/${f})
    else()
      list(APPEND sources ${CUDALAB_LABS_DIR}/${lab}/${f})
    endif()
  endforeach()
  message(STATUS "cuda-labs: ${lab}: ${variant}")

  # A grade is of the code on disk (cmake/LabBuild.cmake): the lab's sources compile through a
  # launcher that lets the build go on past a compile error, and every program that uses the lab
  # links through one that removes a program that does not link and stamps one that does with the
  # sources it was built from. When ctest starts, a program that is missing or was built from
  # other sources is replaced by a failing row with the reason (cudalab_program_problem).
  list(JOIN sources "|" joined)
  set(_cudalab_lab_sources ${sources})  # read by _cudalab_test_executable
  # The lab's grading.json, read and checked once: points, thresholds, forbidden names, technique
  # manifest and sanitizer settings below all come from this text.
  set(grading ${CMAKE_CURRENT_SOURCE_DIR}/grading.json)
  _cudalab_grading(${lab} ${grading} grading_json)
  # grading.json "forbidden_in_source" (checked by _cudalab_grading): names the lab's sources may
  # not use (outside comments), such as the toolkit's own answer to the lab (cuda_occupancy.h's
  # calculator in ch03_05): such a source does not build (cmake/LabBuild.cmake).
  set(forbidden "")
  string(JSON names ERROR_VARIABLE none GET "${grading_json}" forbidden_in_source names)
  if(NOT none)
    string(JSON forbidden_why GET "${grading_json}" forbidden_in_source why)
    string(JSON n LENGTH "${grading_json}" forbidden_in_source names)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON name GET "${grading_json}" forbidden_in_source names ${i})
      list(APPEND forbidden "${name}")
    endforeach()
    list(JOIN forbidden "," forbidden)
    string(REPLACE ";" "," forbidden_why "${forbidden_why}")
    set(forbidden "-DFORBIDDEN=${forbidden}" "-DFORBIDDEN_WHY=${forbidden_why}")
  endif()
  set_property(GLOBAL PROPERTY CUDALAB_BUILD_LAUNCHER_${lab} -DSTATE=${CMAKE_CURRENT_BINARY_DIR} "-DSOURCES=${joined}"
               ${forbidden} -P ${CUDALAB_ROOT}cmake/LabBuild.cmake --)
  set_property(GLOBAL PROPERTY CUDALAB_SOURCES_${lab} ${sources})

  # The student's code: one shared library per lab, its header directory public. It exports the
  # names its header declares and nothing else (a version script): whatever else the lab's code
  # defines, weak or strong, stays inside it, so the tests, GoogleTest, libc and the CUDA runtime
  # always reach their own functions (cmake/CheckLabSymbols.cmake checks the rest). Its calls of the
  # runtime's launch and wait entry points go through the test program's wrappers, as the tests' own.
  add_library(${lab} SHARED ${sources})
  _cudalab_build_through_launcher(${lab} ${lab})
  cudalab_cuda_target(${lab})
  cudalab_host_ub_checks(${lab})
  _cudalab_export_map(${lab} ${CMAKE_CURRENT_BINARY_DIR}/${lab}.exports.map exports)
  set_target_properties(${lab} PROPERTIES POSITION_INDEPENDENT_CODE ON  # its checks run again when they change
    LINK_DEPENDS "${CMAKE_CURRENT_BINARY_DIR}/${lab}.exports.map;${CUDALAB_ROOT}cmake/CheckLabSymbols.cmake;${CUDALAB_ROOT}cmake/KeptPtx.cmake")
  target_link_options(${lab} PRIVATE "LINKER:--version-script=${CMAKE_CURRENT_BINARY_DIR}/${lab}.exports.map"
                      ${CUDALAB_WRAP_OPTIONS})
  # The checks of the compiled code read the code that runs: nvcc keeps the PTX of this very
  # compile (cmake/KeptPtx.cmake), where the technique and barrier checks and the list of the
  # lab's kernels (the SanitizeAll checks) find it.
  set(kept ${CMAKE_CURRENT_BINARY_DIR}/${lab}_compiled)
  file(MAKE_DIRECTORY ${kept})
  target_compile_options(${lab} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-keep -keep-dir ${kept}>")
  set_property(GLOBAL PROPERTY CUDALAB_KEPT_${lab} ${kept})
  set(stems "")
  foreach(source IN LISTS sources)
    get_filename_component(stem ${source} NAME_WE)
    list(APPEND stems ${stem})
  endforeach()
  list(JOIN stems "|" stems)
  add_custom_command(TARGET ${lab} POST_BUILD VERBATIM
    BYPRODUCTS ${CMAKE_CURRENT_BINARY_DIR}/${lab}_kernels.txt
    COMMAND ${CMAKE_COMMAND} -DKEPT=${kept} "-DSTEMS=${stems}" -DKERNELS_OUT=${CMAKE_CURRENT_BINARY_DIR}/${lab}_kernels.txt
            -P ${CUDALAB_ROOT}cmake/KeptPtx.cmake)
  if(CMAKE_NM)  # what the lab's code may not do inside the tests (cmake/CheckLabSymbols.cmake)
    list(JOIN exports "|" exports)
    # Where the libraries the lab's library links (libc, libstdc++, the CUDA runtime) are found: what
    # it may use from outside itself is what they define.
    set(_cudalab_link_dirs ${CUDAToolkit_LIBRARY_DIR} ${CMAKE_CUDA_IMPLICIT_LINK_DIRECTORIES}
                           ${CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES} /lib64 /usr/lib64 /lib /usr/lib)
    list(REMOVE_DUPLICATES _cudalab_link_dirs)
    list(JOIN _cudalab_link_dirs "|" _cudalab_link_dirs)
    add_custom_command(TARGET ${lab} POST_BUILD VERBATIM
      COMMAND ${CMAKE_COMMAND} "-DOBJECTS=$<JOIN:$<TARGET_OBJECTS:${lab}>,|>" -DLIBRARY=$<TARGET_FILE:${lab}>
              "-DEXPORTS=${exports}" -DNM=${CMAKE_NM} -DOBJDUMP=${CMAKE_OBJDUMP} -DREADELF=${CMAKE_READELF}
              -DSOURCE_DIR=${CUDALAB_ROOT}${variant}/${lab} -DSTATE=${CMAKE_CURRENT_BINARY_DIR}
              "-DLINK_DIRS=${_cudalab_link_dirs}"
              -P ${CUDALAB_ROOT}cmake/CheckLabSymbols.cmake)
  endif()
  target_include_directories(${lab} PUBLIC ${CUDALAB_LABS_DIR}/${lab})
  target_link_libraries(${lab} PUBLIC cudalab::common ${ARG_LIBRARIES})
  if(ARG_SEPARABLE)
    # CMake < 3.27's FindCUDAToolkit defines no CUDA::cudadevrt: make it from libcudadevrt.a.
    if(NOT TARGET CUDA::cudadevrt)
      find_library(CUDALAB_CUDADEVRT_LIBRARY cudadevrt HINTS ${CUDAToolkit_LIBRARY_DIR})
      if(CUDALAB_CUDADEVRT_LIBRARY)
        add_library(CUDA::cudadevrt STATIC IMPORTED)
        set_target_properties(CUDA::cudadevrt PROPERTIES IMPORTED_LOCATION ${CUDALAB_CUDADEVRT_LIBRARY})
      else()
        add_library(CUDA::cudadevrt INTERFACE IMPORTED)  # the device link line adds -lcudadevrt itself
      endif()
    endif()
    set_target_properties(${lab} PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
    target_link_libraries(${lab} PUBLIC CUDA::cudadevrt)
  endif()
  set_property(GLOBAL PROPERTY CUDALAB_CURRENT_SEPARABLE ${ARG_SEPARABLE})

  # Test-side support: the generated thresholds table and any baseline sources.
  _cudalab_thresholds(${lab} "${grading_json}")
  _cudalab_reference_source(${lab} "${ARG_REFERENCE_KERNELS}" reference_cpp ${ARG_SOURCES})
  # tests/support/*.cu (reduce_check, matrix_check) serve several labs: each is compiled once, in a
  # library of its own that every lab using it links, not once per lab.
  set(own_test_sources "")
  set(shared_support "")
  foreach(src IN LISTS ARG_TEST_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(dir "${abs}" DIRECTORY)
    if(dir STREQUAL "${CUDALAB_ROOT}tests/support")
      get_filename_component(name "${abs}" NAME_WE)
      if(NOT TARGET cudalab_support_${name})
        add_library(cudalab_support_${name} STATIC "${abs}")
        cudalab_cuda_target(cudalab_support_${name})
        target_include_directories(cudalab_support_${name} PUBLIC ${CUDALAB_ROOT}tests/support)
        target_link_libraries(cudalab_support_${name} PUBLIC cudalab::testing)
      endif()
      list(APPEND shared_support cudalab_support_${name})
    else()
      list(APPEND own_test_sources "${src}")
    endif()
  endforeach()
  if(own_test_sources)
    add_library(${lab}_tests_support STATIC ${own_test_sources})
    cudalab_cuda_target(${lab}_tests_support)
    # The tests' own helpers call the lab's host functions in the worker too (below); they are
    # linked into the host and the GPU test programs alike, so they are compiled as the host tests
    # are (a GPU-only choice here would give one program two definitions of a call).
    target_include_directories(${lab}_tests_support PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/apart)
    if(ARG_SEPARABLE)
      # Device-link once, in the executables; linked on its own, this library would hide the
      # lab's device-link registration from them.
      set_target_properties(${lab}_tests_support PROPERTIES CUDA_RESOLVE_DEVICE_SYMBOLS OFF)
    endif()
    set(scope PUBLIC)
  else()
    add_library(${lab}_tests_support INTERFACE)
    set(scope INTERFACE)
  endif()
  # tests/support/ holds test helpers shared by several labs (reduce_check for the reductions).
  target_include_directories(${lab}_tests_support ${scope} ${CMAKE_CURRENT_SOURCE_DIR} ${CUDALAB_ROOT}tests/support)
  target_link_libraries(${lab}_tests_support ${scope} ${lab} ${shared_support} cudalab::testing)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/grading.json)

  # The technique manifest and the barrier check (grading.json "technique", "barrier_kernels"):
  # generic host tests over the PTX of the student's sources (tests/support/test_technique.cpp).
  _cudalab_technique(${lab} ${grading} "${grading_json}" technique_declared)
  if(technique_declared)
    list(APPEND ARG_HOST_TESTS ${CMAKE_CURRENT_BINARY_DIR}/${lab}_technique.cpp)
    # The checks themselves are the same for every lab (the lab's manifest and PTX are generated
    # files of its own): compiled once, linked into each lab's host test binary.
    if(NOT TARGET cudalab_technique_checks)
      add_library(cudalab_technique_checks OBJECT EXCLUDE_FROM_ALL ${CUDALAB_ROOT}tests/support/test_technique.cpp)
      target_include_directories(cudalab_technique_checks PRIVATE ${CUDALAB_ROOT}tests/support)
      target_link_libraries(cudalab_technique_checks PRIVATE cudalab::testing)
    endif()
  endif()
  # The test programs call the lab's host functions in a process of their own (cudalab/apart.hpp):
  # the lab's header ends by including cudalab_apart_<header>.hpp where it exists, which only their
  # include paths have (not the lab's library, its demo or the tests' support libraries).
  if(ARG_HOST_TESTS OR ARG_GPU_TESTS OR ARG_PERF_TESTS OR ARG_SANITIZER_DRIVER)
    _cudalab_apart_header(${lab} ${CMAKE_CURRENT_BINARY_DIR}/apart "${ARG_HOST_IN_PROCESS}")
  endif()
  if(ARG_HOST_TESTS)
    _cudalab_test_executable(${lab} correctness host ${ARG_TIMEOUT} ${ARG_PERF_TIMEOUT} ${ARG_HOST_TESTS})
    target_include_directories(${lab}_correctness_host PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/apart)
  endif()
  if(technique_declared)
    target_link_libraries(${lab}_correctness_host PRIVATE cudalab_technique_checks)
    set(ptx_files "")
    foreach(source IN LISTS sources)
      _cudalab_ptx(${lab} ${source} "${ARG_SEPARABLE}" ptx)
      string(APPEND ptx_files "      R\"cudalab(${ptx})cudalab\",\n")
    endforeach()
    file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/${lab}_student_ptx.cpp CONTENT [=[
// Generated by cmake/CudaLab.cmake -- do not edit. The PTX of the student's sources of @lab@.
#include "technique.hpp"
const std::vector<std::string> &technique::generated::student_ptx() {
  static const std::vector<std::string> files = {
@ptx_files@  };
  return files;
}
]=] @ONLY)
    target_sources(${lab}_correctness_host PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/${lab}_student_ptx.cpp)
  endif()
  if(ARG_GPU_TESTS)
    _cudalab_test_executable(${lab} correctness gpu ${ARG_TIMEOUT} ${ARG_PERF_TIMEOUT} ${ARG_GPU_TESTS})
  endif()
  if(ARG_PERF_TESTS)
    _cudalab_test_executable(${lab} performance gpu ${ARG_TIMEOUT} ${ARG_PERF_TIMEOUT} ${ARG_PERF_TESTS})
  endif()
  foreach(exe IN ITEMS ${lab}_correctness_gpu ${lab}_performance_gpu)
    if(TARGET ${exe})
      _cudalab_apart_on_gpu(${exe})
    endif()
  endforeach()
  get_property(used GLOBAL PROPERTY CUDALAB_SERIAL_USED)
  foreach(entry IN LISTS ARG_SERIAL_TESTS)
    if(NOT entry IN_LIST used)
      message(FATAL_ERROR "cuda-labs: ${lab}: SERIAL_TESTS names ${entry}, but no HOST_TESTS or GPU_TESTS "
                          "source of tests/${lab}/ defines that suite")
    endif()
  endforeach()

  # The lab's last test include file, read by ctest after the discovered tests' (all of them are
  # read once at the start of each ctest run, before any test starts): removes the hang marker of
  # the previous run, adds the sanitizer checks, and orders the lab's tests that run alone after
  # its other GPU correctness tests.
  _cudalab_backstop(${ARG_PERF_TIMEOUT} heavy_timeout)
  set(source_args "")
  foreach(source IN LISTS sources)
    string(APPEND source_args " [==[${source}]==]")
  endforeach()
  set(lab_tests "\
# Generated by cmake/CudaLab.cmake: ${lab}'s sanitizer checks and test order -- do not edit.
file(REMOVE [==[${CMAKE_CURRENT_BINARY_DIR}/lab-hung.txt]==])
include([==[${CUDALAB_ROOT}cmake/DiscoverTests.cmake]==])
")
  # The sanitizer checks run a program of the lab too: never one built from other sources.
  set(sanitizer_programs "")
  if(ARG_SANITIZER_DRIVER)
    list(APPEND sanitizer_programs ${lab}_sanitize)
  endif()
  if(ARG_GPU_TESTS)
    list(APPEND sanitizer_programs ${lab}_correctness_gpu)
  endif()
  foreach(program IN LISTS sanitizer_programs)
    string(APPEND lab_tests "\
cudalab_program_problem([==[$<TARGET_FILE:${program}>]==] [==[${CMAKE_CURRENT_BINARY_DIR}]==] [==[${CMAKE_BINARY_DIR}]==] \
cudalab_problem_${program}${source_args})
")
  endforeach()
  if(ARG_SANITIZER_DRIVER)
    string(APPEND lab_tests "\
if(cudalab_problem_${lab}_sanitize)
  add_test(${lab}_sanitize_NOT_BUILT [==[${CMAKE_COMMAND}]==] \"-DWHY=\${cudalab_problem_${lab}_sanitize}\" -P [==[${CUDALAB_ROOT}cmake/NoTests.cmake]==])
  set_tests_properties(${lab}_sanitize_NOT_BUILT PROPERTIES LABELS \"${lab};correctness;gpu;sanitizer\")
endif()
")
  endif()

  if(ARG_SANITIZER_DRIVER)
    find_program(CUDALAB_COMPUTE_SANITIZER compute-sanitizer
                 HINTS ${CUDAToolkit_BIN_DIR} ${CUDAToolkit_BIN_DIR}/../compute-sanitizer)
    set(driver ${lab}_sanitize)
    add_executable(${driver} ${ARG_SANITIZER_DRIVER})
    cudalab_cuda_target(${driver})
    _cudalab_build_through_launcher(${lab} ${driver})
    if(ARG_SEPARABLE)
      set_target_properties(${driver} PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
    endif()
    target_link_libraries(${driver} PRIVATE ${lab}_tests_support)
    _cudalab_apart_on_gpu(${driver})
    foreach(check IN LISTS ARG_SANITIZER_CHECKS)
      string(REPLACE ":" ";" parts "${check}")
      list(GET parts 0 tool)
      list(GET parts 1 case)
      list(GET parts 2 expect)
      # A "flagged" check runs a deliberately broken exhibit: it proves the check can fail. It
      # passes in every variant and earns no points (tools/grade.py, tools/staff/compare_variants.py).
      if(expect STREQUAL "flagged")
        set(name ${lab}.SanitizerExhibit.${tool}_${case})
      else()
        set(name ${lab}.Sanitizer.${tool}_${case})
      endif()
      # Added by the lab's include file (below), after the discovered tests, so that it can depend
      # on them. Run by ctest as: cmake -D... -P RunSanitizer.cmake.
      string(REGEX REPLACE "^${lab}[.]" "" short "${name}")
      cudalab_record_file("${name}" record)  # written by RunSanitizer.cmake
      string(APPEND lab_tests "if(NOT cudalab_problem_${driver})
add_test([==[${name}]==] [==[${CMAKE_COMMAND}]==]
         [==[-DSANITIZER=${CUDALAB_COMPUTE_SANITIZER}]==] [==[-DTOOL=${tool}]==]
         [==[-DEXE=$<TARGET_FILE:${driver}>]==] [==[-DCASE=${case}]==] [==[-DEXPECT=${expect}]==]
         [==[-DNAME=${short}]==] -P [==[${CUDALAB_ROOT}cmake/RunSanitizer.cmake]==])
set_tests_properties([==[${name}]==] PROPERTIES LABELS \"${lab};correctness;gpu;sanitizer\"
  SKIP_REGULAR_EXPRESSION [==[\\[ CUDALAB  \\] skipped:]==] TIMEOUT ${heavy_timeout} PROCESSORS 2
  ENVIRONMENT \"CUDALAB_STATE_DIR=${CMAKE_CURRENT_BINARY_DIR};CUDALAB_KERNEL_TIMEOUT=${ARG_PERF_TIMEOUT};GTEST_OUTPUT=json:${CMAKE_CURRENT_BINARY_DIR}/results/${record}\")
list(APPEND cudalab_late_${lab} [==[${name}]==])
endif()
")
    endforeach()
  endif()
  # The sanitizer over every kernel: <lab>.SanitizeAll.<tool> runs the lab's GPU correctness tests
  # (not those that must run alone) under compute-sanitizer --tool <tool>, checking the student's
  # kernels only. grading.json's "sanitize_all" may leave out a tool or tests, each with its
  # reason, or name the kernels instead of the scan (docs/grading.md).
  if(ARG_GPU_TESTS)
    find_program(CUDALAB_COMPUTE_SANITIZER compute-sanitizer
                 HINTS ${CUDAToolkit_BIN_DIR} ${CUDAToolkit_BIN_DIR}/../compute-sanitizer)
    string(JSON kernels ERROR_VARIABLE none GET "${grading_json}" sanitize_all kernels)
    set(kernels_file "")
    if(none)
      # The kernels the lab's library defines, from its PTX as compiled (cmake/KeptPtx.cmake),
      # read when the check runs; the headers' and sources' text tells whether there are any.
      _cudalab_student_kernels(kernels ${lab} ${sources})
      set(kernels_file ${CMAKE_CURRENT_BINARY_DIR}/${lab}_kernels.txt)
    else()
      string(JSON n LENGTH "${grading_json}" sanitize_all kernels)
      set(kernels "")
      if(n GREATER 0)
        math(EXPR last "${n} - 1")
        foreach(i RANGE ${last})
          string(JSON k GET "${grading_json}" sanitize_all kernels ${i})
          list(APPEND kernels "${k}")
        endforeach()
      endif()
    endif()
    get_property(excluded GLOBAL PROPERTY CUDALAB_SERIAL_GTEST_${lab})
    # Fault-injection tests make a kernel fault on purpose: under the sanitizer, the whole binary is
    # one process, and a sticky error would fail every test after it.
    list(APPEND excluded "FaultInjection.*")
    string(JSON n ERROR_VARIABLE none LENGTH "${grading_json}" sanitize_all skip_tests)
    if(NOT none AND n GREATER 0)
      math(EXPR last "${n} - 1")
      foreach(i RANGE ${last})
        string(JSON pattern MEMBER "${grading_json}" sanitize_all skip_tests ${i})
        list(APPEND excluded "${pattern}")
      endforeach()
    endif()
    set(filter "")
    if(excluded)
      list(JOIN excluded ":" filter)
      set(filter "-${filter}")
    endif()
    # The same exclusions as a regular expression over CTest's test names (<lab>.<GoogleTest name>):
    # '*' any text, '?' one character, everything else literally.
    set(excluded_regex "")
    foreach(pattern IN LISTS excluded)
      string(REGEX REPLACE "([][.+^$(){}|\\])" "\\\\\\1" rx "${pattern}")
      string(REPLACE "*" ".*" rx "${rx}")
      string(REPLACE "?" "." rx "${rx}")
      list(APPEND excluded_regex "${rx}")
    endforeach()
    list(JOIN excluded_regex "|" excluded_regex)
    if(NOT kernels)
      message(STATUS "cuda-labs: ${lab}: no SanitizeAll checks (the student writes no kernel)")
    endif()
    list(JOIN kernels "," kernel_arg)
    foreach(tool IN LISTS CUDALAB_SANITIZE_ALL_TOOLS)
      if(NOT kernels)
        break()
      endif()
      string(JSON why ERROR_VARIABLE none GET "${grading_json}" sanitize_all skip_tools ${tool})
      if(NOT none)
        message(STATUS "cuda-labs: ${lab}: no SanitizeAll.${tool}: ${why}")
        continue()
      endif()
      set(name ${lab}.SanitizeAll.${tool})
      cudalab_record_file("${name}" record)  # written by RunSanitizer.cmake
      # What runs the check: compute-sanitizer, or for globalrace the kernel tracer (absent when
      # tools/tracer could not build it: unavailable.txt says why).
      set(checker "[==[-DSANITIZER=${CUDALAB_COMPUTE_SANITIZER}]==]")
      if(tool STREQUAL "globalrace")
        set(checker "[==[-DSANITIZER=$<$<TARGET_EXISTS:kernel_tracer>:$<TARGET_FILE:kernel_tracer>>]==]
         [==[-DTRACER_PATCHES=${CUDALAB_TRACER_DIR}/tracer_patches.fatbin]==]
         [==[-DTRACER_UNAVAILABLE=${CUDALAB_TRACER_DIR}/unavailable.txt]==]")
      endif()
      math(EXPR total "3 * ${ARG_PERF_TIMEOUT}")
      math(EXPR ctest_timeout "${total} + 30")
      if(ARG_PERF_TIMEOUT EQUAL 0)
        set(ctest_timeout 1500)
      endif()
      string(APPEND lab_tests "if(NOT cudalab_problem_${lab}_correctness_gpu)
add_test([==[${name}]==] [==[${CMAKE_COMMAND}]==]
         ${checker} [==[-DTOOL=${tool}]==]
         [==[-DEXE=$<TARGET_FILE:${lab}_correctness_gpu>]==] [==[-DKERNELS=${kernel_arg}]==]
         [==[-DKERNELS_FILE=${kernels_file}]==]
         [==[-DGTEST_FILTER=${filter}]==] [==[-DTOTAL=${total}]==]
         [==[-DNAME=SanitizeAll.${tool}]==] -P [==[${CUDALAB_ROOT}cmake/RunSanitizer.cmake]==])
set_tests_properties([==[${name}]==] PROPERTIES LABELS \"${lab};correctness;gpu;sanitizer\"
  SKIP_REGULAR_EXPRESSION [==[\\[ CUDALAB  \\] skipped:]==] TIMEOUT ${ctest_timeout} PROCESSORS 2
  ENVIRONMENT \"CUDALAB_STATE_DIR=${CMAKE_CURRENT_BINARY_DIR};CUDALAB_KERNEL_TIMEOUT=${ARG_PERF_TIMEOUT};GTEST_OUTPUT=json:${CMAKE_CURRENT_BINARY_DIR}/results/${record}\")
list(APPEND cudalab_late_${lab} [==[${name}]==])
list(APPEND cudalab_sanitize_all_${lab} [==[${name}]==])
endif()
")
    endforeach()
    # Correctness first: a SanitizeAll check passes only when every test it runs passes, so it
    # runs only after those tests passed in this ctest run (a CTest fixture; CTest reports it
    # "Not Run" when one failed, and tools/grade.py names that test). No grade changes: where one of
    # them fails, the check could not pass. Skipped tests (no GPU) do not stop it.
    string(APPEND lab_tests "\
if(cudalab_sanitize_all_${lab} AND ${lab}_correctness_gpu_TESTS)
  set(cudalab_setups_${lab} \"\")
  foreach(t IN LISTS ${lab}_correctness_gpu_TESTS)
    list(FIND cudalab_late_${lab} \"\${t}\" late)  # no IN_LIST: ctest reads this file without policies
    if(late EQUAL -1 AND NOT t MATCHES [==[^${lab}[.](${excluded_regex})$]==])
      list(APPEND cudalab_setups_${lab} \"\${t}\")
    endif()
  endforeach()
  if(cudalab_setups_${lab})
    set_tests_properties(\${cudalab_setups_${lab}} PROPERTIES FIXTURES_SETUP ${lab}.gpu_correctness)
    set_tests_properties(\${cudalab_sanitize_all_${lab}} PROPERTIES FIXTURES_REQUIRED ${lab}.gpu_correctness)
  endif()
endif()
")
  endif()
  string(APPEND lab_tests "\
if(cudalab_early_${lab} AND cudalab_late_${lab})
  set_tests_properties(\${cudalab_late_${lab}} PROPERTIES DEPENDS \"\${cudalab_early_${lab}}\")
endif()
")
  file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/${lab}_tests.cmake CONTENT "${lab_tests}")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${CMAKE_CURRENT_BINARY_DIR}/${lab}_tests.cmake)

  foreach(used IN LISTS ARG_DEMO_USES)
    if(ARG_DEMO AND NOT TARGET ${used})
      message(STATUS "cuda-labs: ${lab}: demo left out (it runs ${used}'s kernels, not in this build)")
      unset(ARG_DEMO)
    endif()
  endforeach()
  if(ARG_DEMO)
    add_executable(${lab}_demo ${CUDALAB_LABS_DIR}/${lab}/${ARG_DEMO})
    cudalab_cuda_target(${lab}_demo)
    _cudalab_build_through_launcher(${lab} ${lab}_demo)
    if(ARG_SEPARABLE)
      set_target_properties(${lab}_demo PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
    endif()
    target_link_libraries(${lab}_demo PRIVATE ${lab} ${ARG_DEMO_USES} cudalab_unwrapped ${CMAKE_DL_LIBS})
    # Opt-in profiler feedback (`ctest -L profile`): the demo's kernels under Nsight Compute.
    if(Python3_FOUND)
      find_program(CUDALAB_NCU ncu HINTS ${CUDAToolkit_BIN_DIR})
      add_test(NAME profile.${lab}
               COMMAND ${Python3_EXECUTABLE} ${CUDALAB_ROOT}tools/profile.py --ncu "${CUDALAB_NCU}"
                       --exe $<TARGET_FILE:${lab}_demo>)
      set_tests_properties(profile.${lab} PROPERTIES LABELS "profile" TIMEOUT 1800
                           SKIP_REGULAR_EXPRESSION "\\[ CUDALAB  \\] skipped:")
    endif()
  endif()

  # Register the lab for the grade step (see tests/CMakeLists.txt).
  set_property(GLOBAL APPEND PROPERTY CUDALAB_LABS "${lab}|${variant}|${CMAKE_CURRENT_SOURCE_DIR}/grading.json")
endfunction()

# cudalab_add_ncu_target(<lab> <source>): a test-side program that graded profiler tests run
# under Nsight Compute (see common/testing/include/cudalab/ncu.hpp). Builds <lab>_profile_target
# from tests/<lab>/<source> and compiles the paths of ncu and of that program into the lab's GPU
# test binary (CUDALAB_NCU, CUDALAB_PROFILE_TARGET), for CUDALAB_RUN_NCU. Call it after
# cudalab_add_lab(<lab> ... GPU_TESTS ...).
function(cudalab_add_ncu_target lab source)
  set(target ${lab}_profile_target)
  _cudalab_thresholds_objects(${lab} thresholds)
  add_executable(${target} ${source} ${thresholds})
  cudalab_cuda_target(${target})
  _cudalab_build_through_launcher(${lab} ${target})
  target_link_libraries(${target} PRIVATE ${lab}_tests_support)
  _cudalab_apart_on_gpu(${target})
  find_program(CUDALAB_NCU ncu HINTS ${CUDAToolkit_BIN_DIR} /usr/local/cuda/bin)
  set(ncu "")
  if(CUDALAB_NCU)
    set(ncu "${CUDALAB_NCU}")
  endif()
  target_compile_definitions(${lab}_correctness_gpu PRIVATE
    "CUDALAB_NCU=\"${ncu}\"" "CUDALAB_PROFILE_TARGET=\"$<TARGET_FILE:${target}>\"")
  add_dependencies(${lab}_correctness_gpu ${target})
endfunction()

include(${CMAKE_CURRENT_LIST_DIR}/TestRecords.cmake)  # cudalab_record_file(): where a test's result record goes
include(${CMAKE_CURRENT_LIST_DIR}/StudentPtx.cmake)  # cudalab_student_ptx(): checks of the compiled code
