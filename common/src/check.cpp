#include "cudalab/check.cuh"

#include <cstdio>
#include <cstdlib>

namespace cudalab {

const char *error_hint(cudaError_t err) {
  switch (err) {
    case cudaErrorIllegalAddress:
      return "a kernel read or wrote outside its buffers (check the bounds test for the last, "
             "partial block; run the test under compute-sanitizer to find the line)";
    case cudaErrorMisalignedAddress:
      return "a misaligned access (vector loads need 16-byte aligned addresses)";
    case cudaErrorLaunchTimeout:
      return "the kernel ran too long (an endless loop?)";
    case cudaErrorInvalidConfiguration:
      return "invalid launch configuration: too many threads per block, a zero-sized grid or "
             "block, or more shared memory than the device allows";
    case cudaErrorNoKernelImageForDevice:
      return "the binary holds no code for this GPU: reconfigure on this machine (CMake picks "
             "CMAKE_CUDA_ARCHITECTURES=native when it sees the GPU) or set "
             "-DCMAKE_CUDA_ARCHITECTURES=<your GPU's compute capability>";
    case cudaErrorLaunchOutOfResources:
      return "the block needs more registers or shared memory than the SM has";
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
      return "no usable NVIDIA GPU/driver on this machine";
    default:
      return "";
  }
}

std::string describe_error(cudaError_t err, const char *what, const char *file, int line) {
  std::string msg = std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " +
                    cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
  const char *hint = error_hint(err);
  if (hint[0] != '\0') msg += " -- hint: " + std::string(hint);
  return msg;
}

void check_or_exit(cudaError_t err, const char *what, const char *file, int line) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "error: %s\n", describe_error(err, what, file, line).c_str());
  std::exit(EXIT_FAILURE);
}

}  // namespace cudalab
