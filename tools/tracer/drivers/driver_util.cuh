/// @file driver_util.cuh
/// @brief Helpers shared by the small-input drivers: run one lab's kernels on a few warps and a
/// few blocks, so that the tracer (LD_PRELOAD=libkernel_tracer.so) records every access.
#pragma once

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device.cuh"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

/// @brief A device array of @p n elements of T, zeroed (cudalab::DeviceBuffer); exits on failure.
template <typename T>
cudalab::DeviceBuffer<T> zeroed(size_t n) {
  cudalab::DeviceBuffer<T> buffer;
  CUDALAB_CHECK(buffer.allocate(n));
  CUDALAB_CHECK(cudaMemset(buffer.get(), 0, buffer.bytes()));
  return buffer;
}

/// Exit status of a driver that cannot run here (no usable GPU): trace_lab.py reports "skipped".
constexpr int kTraceSkip = 77;

/// @brief Exits with kTraceSkip and a "skipped: ..." line when no CUDA device can be used.
inline void require_gpu() {
  std::string why;
  if (cudalab::gpu_available(&why)) return;
  std::printf("skipped: no usable NVIDIA GPU (%s)\n", why.c_str());
  std::exit(kTraceSkip);
}

/// @brief Waits for the device and reports a failed launch of @p what.
inline void finish(const char *what) {
  CUDALAB_CHECK(cudaGetLastError());
  CUDALAB_CHECK(cudaDeviceSynchronize());
  std::printf("ran %s\n", what);
}
