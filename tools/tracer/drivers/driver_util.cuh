/// @file driver_util.cuh
/// @brief Helpers shared by the small-input drivers: run one lab's kernels on a few warps and a
/// few blocks, so that the tracer (LD_PRELOAD=libkernel_tracer.so) records every access.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

/// Exits with the file, line and CUDA error string when @p call fails.
#define TRACE_CHECK(call)                                                                            \
  do {                                                                                               \
    const cudaError_t trace_check_err = (call);                                                      \
    if (trace_check_err != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                             \
                   cudaGetErrorString(trace_check_err));                                             \
      std::exit(EXIT_FAILURE);                                                                       \
    }                                                                                                \
  } while (0)

/// @brief A device array of @p n elements of T, freed at scope exit.
template <typename T>
struct DeviceArray {
  T *ptr = nullptr;  ///< device pointer
  size_t n = 0;      ///< elements

  /// @brief Allocates @p count elements and zeroes them.
  explicit DeviceArray(size_t count) : n(count) {
    TRACE_CHECK(cudaMalloc(&ptr, sizeof(T) * (n > 0 ? n : 1)));
    TRACE_CHECK(cudaMemset(ptr, 0, sizeof(T) * (n > 0 ? n : 1)));
  }
  /// @brief Frees the array.
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;

  /// @brief Copies @p host (n elements) to the device.
  void upload(const std::vector<T> &host) { TRACE_CHECK(cudaMemcpy(ptr, host.data(), sizeof(T) * n, cudaMemcpyHostToDevice)); }
  /// @brief Copies the array back to the host.
  std::vector<T> download() const {
    std::vector<T> host(n);
    TRACE_CHECK(cudaMemcpy(host.data(), ptr, sizeof(T) * n, cudaMemcpyDeviceToHost));
    return host;
  }
};

/// Exit status of a driver that cannot run here (no usable GPU): trace_lab.py reports "skipped".
constexpr int kTraceSkip = 77;

/// @brief Exits with kTraceSkip and a "skipped: ..." line when no CUDA device can be used.
inline void require_gpu() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::printf("skipped: no usable NVIDIA GPU (%s)\n",
                err != cudaSuccess ? cudaGetErrorString(err) : "cudaGetDeviceCount found none");
    std::exit(kTraceSkip);
  }
}

/// @brief Waits for the device and reports a failed launch of @p what.
inline void finish(const char *what) {
  TRACE_CHECK(cudaGetLastError());
  TRACE_CHECK(cudaDeviceSynchronize());
  std::printf("ran %s\n", what);
}
