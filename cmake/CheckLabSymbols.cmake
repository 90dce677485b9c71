# cmake -DARCHIVE=<lib> -DNM=<nm> [-DOBJDUMP=<objdump>] -DSOURCE_DIR=<dir of the lab's sources>
#       -P CheckLabSymbols.cmake
#
# Run after a lab's library is built: the student's code may define its own functions and kernels,
# but not functions of the CUDA runtime or driver, of the tests (cudalab::, GoogleTest's testing::),
# main() or the launch recorder's wrappers, and it may not call GoogleTest: a static link would
# let such a definition replace the real one inside the tests (a cudaMemcpy that fakes results, an
# expect_speedup that never fails, a GTEST_SKIP that hides a test).
#
# It runs inside the test programs, so it may not reach what grades it either: read the
# environment (where each test's result record goes), open, write, rename or re-date files (a
# forged record), start programs, load libraries, install signal handlers or make system calls
# of its own (the raw `syscall` instruction too, found in its disassembly with OBJDUMP). No lab
# needs any of them: a kernel, its launcher and a model of the hardware compute and return.
# A violation fails the build of that lab, with the file and the symbol, so the lab scores
# "did not build" and no test can pass.
execute_process(COMMAND ${NM} -C -g ${ARCHIVE} OUTPUT_VARIABLE listing RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(WARNING "cuda-labs: ${NM} could not read ${ARCHIVE} (${err}); its symbols were not checked")
  return()
endif()
# What lets the code that the tests run reach past them (see above), as libc and libstdc++ name it.
set(outside_c
  "^(secure_)?getenv$" "^(set|put|unset|clear)env$" "^_?_?environ$" "^getauxval$"
  "^(f|fd|fre)open(64)?$" "^tmpfile(64)?$" "^(__)?open(64|at|at64)?(_2)?$" "^creat(64)?$"
  "^rename(at2?)?$" "^(sym)?link(at)?$" "^unlink(at)?$" "^remove$" "^f?truncate(64)?$"
  "^(l|f)?utimes?$" "^utimensat$" "^futimens$" "^mkdir(at)?$" "^f?chdir$" "^f?chmod(at)?$"
  "^readlink(at)?$" "^realpath$" "^dup[23]?$" "^p?write(v|64)?$" "^mmap(64)?$" "^mprotect$"
  "^system$" "^popen$" "^v?fork$" "^clone3?$" "^posix_spawnp?$" "^f?exec(l|lp|le|v|vp|vpe|ve|veat)$"
  "^syscall$" "^dl(m?open|v?sym)$" "^signal$" "^sigaction$" "^(tg|pthread_)?kill$"
  "^prctl$" "^ptrace$" "^process_vm_writev$" "^setrlimit$")
set(outside_cxx
  "^std::(__cxx11::)?basic_(i|o)?fstream<" "^std::basic_filebuf<" "^std::(__fs::)?filesystem::")
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
  if(type STREQUAL "U" OR type MATCHES "^[WVuv]$")
    if(type STREQUAL "U" AND name MATCHES "^testing::")
      list(APPEND problems "${SOURCE_DIR}/${member}: error: uses GoogleTest (${name}): the lab's code must not call the test framework")
    else()
      if(type STREQUAL "U")
        foreach(pattern IN LISTS outside_c)
          if(name MATCHES "${pattern}")
            list(APPEND problems "${SOURCE_DIR}/${member}: error: calls ${name}: the lab's code may not read the \
environment, touch files, start programs or make system calls (the tests run it, cmake/CheckLabSymbols.cmake says why)")
          endif()
        endforeach()
      endif()
      foreach(pattern IN LISTS outside_cxx)
        if(name MATCHES "${pattern}")
          list(APPEND problems "${SOURCE_DIR}/${member}: error: uses ${name}: the lab's code may not open or change \
files (the tests run it, cmake/CheckLabSymbols.cmake says why)")
        endif()
      endforeach()
    endif()
  elseif(type MATCHES "^[TDBRC]$")
    # strong definitions (weak template instantiations such as std:: helpers are fine)
    if(name MATCHES "^(cuda[A-Z_]|__cuda|cu[A-Z]|__wrap_|__real_|cudalab::|testing::|main$|main\\()")
      list(APPEND problems "${SOURCE_DIR}/${member}: error: defines ${name}, which belongs to the CUDA runtime or to the tests: rename it")
    endif()
  endif()
endforeach()
# System calls made without libc: the instruction itself in the host code's disassembly.
if(OBJDUMP)
  execute_process(COMMAND ${OBJDUMP} -d --no-show-raw-insn ${ARCHIVE} OUTPUT_VARIABLE code RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0)
    string(REPLACE "\n" ";" code_lines "${code}")
    set(member "")
    foreach(line IN LISTS code_lines)
      if(line MATCHES "^In archive ")
        continue()
      elseif(line MATCHES "^(.+)\\.o: +file format")
        set(member "${CMAKE_MATCH_1}")
      elseif(line MATCHES "^ +[0-9a-f]+:[ \t]+(syscall|sysenter|int +.0x80)")
        list(APPEND problems "${SOURCE_DIR}/${member}: error: makes a system call of its own (${CMAKE_MATCH_1} in its \
host code): the lab's code may not (the tests run it, cmake/CheckLabSymbols.cmake says why)")
      endif()
    endforeach()
  endif()
endif()
if(problems)
  list(REMOVE_DUPLICATES problems)
  foreach(p IN LISTS problems)
    execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${p}")
  endforeach()
  file(REMOVE "${ARCHIVE}")  # so that the next build checks again instead of finding it up to date
  message(FATAL_ERROR "the lab's code defines or uses symbols it must not (listed above)")
endif()
