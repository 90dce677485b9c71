# Choose CMAKE_CUDA_ARCHITECTURES when the user did not.
#
# * A GPU is visible at configure time (nvidia-smi lists one): "native", i.e. exactly the GPUs
#   of this machine (CMake >= 3.24).
# * No GPU visible (a laptop without NVIDIA GPU, a CI runner, a login node): the documented
#   fallback CUDALAB_FALLBACK_ARCHITECTURES = "75" -- SASS for sm_75 (Turing, the oldest GPU the
#   labs support) plus compute_75 PTX, which the driver JIT-compiles for any newer GPU. Configure
#   never fails for lack of a GPU.
#
# Override as usual: cmake -DCMAKE_CUDA_ARCHITECTURES=90 ...
set(CUDALAB_FALLBACK_ARCHITECTURES "75" CACHE STRING
    "CUDA architectures used when no GPU is visible at configure time")

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
  set(_cudalab_gpu_cc "")
  find_program(CUDALAB_NVIDIA_SMI nvidia-smi)
  if(CUDALAB_NVIDIA_SMI)
    execute_process(
      COMMAND ${CUDALAB_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
      OUTPUT_VARIABLE _cudalab_gpu_cc
      RESULT_VARIABLE _cudalab_smi_rc
      ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 20)
    if(NOT _cudalab_smi_rc EQUAL 0 OR NOT _cudalab_gpu_cc MATCHES "^[0-9]+\\.[0-9]+")
      set(_cudalab_gpu_cc "")
    endif()
  endif()
  if(_cudalab_gpu_cc)
    string(REPLACE "\n" ", " _cudalab_gpu_list "${_cudalab_gpu_cc}")
    message(STATUS "cuda-labs: GPU visible (compute capability ${_cudalab_gpu_list}): CUDA architectures = native")
    set(CMAKE_CUDA_ARCHITECTURES native CACHE STRING "CUDA architectures")
  else()
    message(STATUS "cuda-labs: no GPU visible at configure time: CUDA architectures = "
                   "${CUDALAB_FALLBACK_ARCHITECTURES} (GPU tests will be skipped on this machine)")
    set(CMAKE_CUDA_ARCHITECTURES ${CUDALAB_FALLBACK_ARCHITECTURES} CACHE STRING "CUDA architectures")
  endif()
endif()
