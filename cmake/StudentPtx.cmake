# cudalab_student_ptx(<lab> <file> [RDC]): compiles the student's <file> (as the lab builds it:
# labs/ or solutions/) to PTX for the checks of the compiled code (tests/support/ptx_code.hpp),
# and compiles its path into the lab's host test binary as CUDALAB_STUDENT_PTX. Rebuilt when the
# file or the lab's headers change. RDC: relocatable device code (labs that launch kernels from the GPU).
# Call it after cudalab_add_lab(<lab> ... HOST_TESTS ...).
#
# The PTX is generated for the newest architecture the build targets (native: this GPU), so code
# that needs sm_80 or newer compiles here whenever it compiles for the lab.
function(cudalab_student_ptx lab file)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "RDC" "" "")
  get_target_property(sources ${lab} SOURCES)
  set(source "")
  foreach(s IN LISTS sources)
    if(s MATCHES "/${file}$")
      set(source ${s})
    endif()
  endforeach()
  if(NOT source)
    message(FATAL_ERROR "cudalab_student_ptx: ${file} is not a source of ${lab}")
  endif()

  set(arch -arch=compute_75)
  set(newest 0)
  foreach(a IN LISTS CMAKE_CUDA_ARCHITECTURES)
    if(a STREQUAL "native")  # the first GPU's compute capability (one architecture: -ptx takes one)
      set(arch -arch=native)
      find_program(CUDALAB_NVIDIA_SMI nvidia-smi)
      if(CUDALAB_NVIDIA_SMI)
        execute_process(COMMAND ${CUDALAB_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                        OUTPUT_VARIABLE cc RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 20)
        if(rc EQUAL 0 AND cc MATCHES "^([0-9]+)\\.([0-9]+)")
          set(arch -arch=compute_${CMAKE_MATCH_1}${CMAKE_MATCH_2})
        endif()
      endif()
      break()
    endif()
    string(REGEX MATCH "^[0-9]+" number "${a}")
    if(number AND number GREATER newest)
      set(newest ${number})
      set(arch -arch=compute_${number})
    endif()
  endforeach()

  set(flags -std=c++17 --expt-relaxed-constexpr -ptx ${arch})
  if(ARG_RDC)
    list(APPEND flags -rdc=true)
  endif()
  if(CMAKE_CUDA_HOST_COMPILER)
    list(APPEND flags -ccbin ${CMAKE_CUDA_HOST_COMPILER})
  endif()
  file(GLOB headers ${CUDALAB_LABS_DIR}/${lab}/*.cuh ${CUDALAB_LABS_DIR}/${lab}/*.h ${CUDALAB_LABS_DIR}/${lab}/*.hpp)
  set(ptx ${CMAKE_CURRENT_BINARY_DIR}/${lab}_student.ptx)
  add_custom_command(OUTPUT ${ptx}
    COMMAND ${CMAKE_CUDA_COMPILER} ${flags} -I${CUDALAB_LABS_DIR}/${lab} -I${CUDALAB_ROOT}common/include
            ${source} -o ${ptx}
    DEPENDS ${source} ${headers}
    COMMENT "${lab}: the student's ${file} as PTX (checks of the compiled code)" VERBATIM)
  add_custom_target(${lab}_ptx DEPENDS ${ptx})
  add_dependencies(${lab}_correctness_host ${lab}_ptx)
  target_compile_definitions(${lab}_correctness_host PRIVATE "CUDALAB_STUDENT_PTX=\"${ptx}\"")
endfunction()
