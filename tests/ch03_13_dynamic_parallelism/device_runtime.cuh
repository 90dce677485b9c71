/// @file device_runtime.cuh
/// @brief The device runtime made ready before a test times or checks a lab kernel: the first
/// launch of a kernel that launches kernels makes the CUDA runtime reserve memory for the device
/// runtime (pending launches, the device heap). Where the GPU's memory is held by other programs
/// that reservation fails with cudaErrorMemoryAllocation, which is the machine's and not the lab's
/// kernel's: done here, through CUDALAB_ASSERT_OK, it is waited for and then reported as memory
/// the test could not get (skipped, 0 points, "close the other programs"), never as a wrong kernel.
#pragma once

#include "cudalab/launch.cuh"
#include "nested.cuh"

#include <cuda_runtime.h>

#include <cstddef>

namespace device_runtime_detail {
/// A child grid that does nothing.
static __global__ void ready_child() {}
/// One device-side launch of ready_child, so that the device runtime's memory is reserved.
static __global__ void ready_parent() { ready_child<<<1, 1>>>(); }  // cudalab: device-side launch
}  // namespace device_runtime_detail

/// @brief configure_device_runtime(@p pending_launches), then one test-side kernel that launches
/// one child, synchronised: the device runtime holds its memory before any lab kernel runs.
/// Internal linkage, as its kernels have: each test file gets its own.
/// Returns the first error (use with CUDALAB_ASSERT_OK, which waits for memory held by others).
static inline cudaError_t ready_device_runtime(std::size_t pending_launches = 1u << 16) {
  cudaError_t err = configure_device_runtime(pending_launches);
  if (err == cudaSuccess) {
    cudalab::launch(device_runtime_detail::ready_parent, 1, 1)();
    err = cudaGetLastError();
  }
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  return err;
}
