# The PTX of a lab's library as it was compiled for grading, kept by nvcc (-keep -keep-dir <KEPT>,
# cudalab_add_lab): the checks of the compiled code read the code that runs, not another compile
# of the same file with other flags.
#
#   cmake -DKEPT=<dir> -DSTEM=<source stem> -DOUT=<file> -P KeptPtx.cmake
#       the PTX of one source, for the newest architecture it was compiled for (<stem>.compute_<N>.ptx;
#       <stem>.ptx when it was compiled for one),
#       into OUT (tests/support/ptx_code.hpp, the technique and barrier checks);
#   cmake -DKEPT=<dir> -DSTEMS=<stem>|<stem>... -DKERNELS_OUT=<file> -P KeptPtx.cmake
#       the names of every kernel those sources define (their PTX .entry directives), one per line,
#       into KERNELS_OUT (the kernels the SanitizeAll checks watch, cmake/RunSanitizer.cmake).
cmake_minimum_required(VERSION 3.25)

# _newest_ptx(<stem> <out-var>): the kept PTX of <stem> for the highest compute_<N>, or "".
function(_newest_ptx stem out)
  file(GLOB candidates "${KEPT}/${stem}.compute_*.ptx")
  set(best "")
  set(best_n -1)
  if(EXISTS "${KEPT}/${stem}.ptx")  # one architecture: no compute_<N> in the name
    set(best "${KEPT}/${stem}.ptx")
  endif()
  foreach(c IN LISTS candidates)
    if(c MATCHES "[.]compute_([0-9]+)[a-z]?[.]ptx$" AND CMAKE_MATCH_1 GREATER best_n)
      set(best_n ${CMAKE_MATCH_1})
      set(best "${c}")
    endif()
  endforeach()
  set(${out} "${best}" PARENT_SCOPE)
endfunction()

if(DEFINED OUT)
  _newest_ptx("${STEM}" ptx)
  if(ptx)
    file(COPY_FILE "${ptx}" "${OUT}")
  else()
    file(WRITE "${OUT}" "// no PTX was kept for ${STEM} in ${KEPT}: the lab's source did not compile\n")
  endif()
endif()

if(DEFINED KERNELS_OUT)
  string(REPLACE "|" ";" STEMS "${STEMS}")
  set(names "")
  foreach(stem IN LISTS STEMS)
    _newest_ptx("${stem}" ptx)
    if(NOT ptx)
      continue()
    endif()
    file(STRINGS "${ptx}" entries REGEX "^[ \t]*([.]visible[ \t]+|[.]weak[ \t]+)?[.]entry[ \t]")
    foreach(e IN LISTS entries)
      if(NOT e MATCHES "[.]entry[ \t]+([A-Za-z0-9_$]+)")
        continue()
      endif()
      set(m "${CMAKE_MATCH_1}")
      # The kernel's own name: "_Z16reduceNeighboredPiS_j" -> reduceNeighbored; in a namespace
      # ("_ZN12_GLOBAL__N_16kernelEPi") the last component; extern "C": the name itself.
      set(name "${m}")
      if(m MATCHES "^_ZN")
        string(SUBSTRING "${m}" 3 -1 rest)
        while(rest MATCHES "^([0-9]+)(.*)$")
          set(len ${CMAKE_MATCH_1})
          set(tail "${CMAKE_MATCH_2}")
          string(SUBSTRING "${tail}" 0 ${len} name)
          string(SUBSTRING "${tail}" ${len} -1 rest)
        endwhile()
      elseif(m MATCHES "^_Z([0-9]+)(.*)$")
        string(SUBSTRING "${CMAKE_MATCH_2}" 0 ${CMAKE_MATCH_1} name)
      endif()
      list(APPEND names "${name}")
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES names)
  list(JOIN names "\n" text)
  file(WRITE "${KERNELS_OUT}" "${text}\n")
endif()
