// The synchronising CUDA runtime calls of every test binary, wrapped (-Wl,--wrap=..., see
// common/CMakeLists.txt) so that the watchdog (watchdog.hpp) knows when the test waits on the
// GPU and for how long: a wait that lasts the budget is a kernel that did not finish. Each wrapper
// only marks the wait and forwards to the runtime unchanged; in the worker of a program that runs
// launchers apart (apart_launchers.cpp) it sends the call to the test program instead.
#include "apart_runtime.hpp"
#include "cudalab/watchdog.hpp"
#include "real_symbol.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace {

/// Marks the calling thread as waiting on the GPU while it lives.
struct GpuWait {
  GpuWait() { cudalab::watchdog::begin_gpu_wait(); }
  ~GpuWait() { cudalab::watchdog::end_gpu_wait(); }
  GpuWait(const GpuWait &) = delete;
  GpuWait &operator=(const GpuWait &) = delete;
};

}  // namespace

using cudalab::apart::detail::worker_runtime;
using cudalab::detail::real_symbol;

extern "C" cudaError_t __wrap_cudaDeviceSynchronize() {
  if (const auto *w = worker_runtime()) return w->synchronize(0, nullptr);
  static const auto forward = real_symbol<cudaError_t (*)()>("cudaDeviceSynchronize");
  GpuWait wait;
  return forward();
}

extern "C" cudaError_t __wrap_cudaStreamSynchronize(cudaStream_t stream) {
  if (const auto *w = worker_runtime()) return w->synchronize(1, stream);
  static const auto forward = real_symbol<cudaError_t (*)(cudaStream_t)>("cudaStreamSynchronize");
  GpuWait wait;
  return forward(stream);
}

extern "C" cudaError_t __wrap_cudaEventSynchronize(cudaEvent_t event) {
  if (const auto *w = worker_runtime()) return w->synchronize(2, event);
  static const auto forward = real_symbol<cudaError_t (*)(cudaEvent_t)>("cudaEventSynchronize");
  GpuWait wait;
  return forward(event);
}

extern "C" cudaError_t __wrap_cudaMemcpy(void *dst, const void *src, std::size_t count, cudaMemcpyKind kind) {
  if (const auto *w = worker_runtime()) return w->memcpy(dst, src, count, kind);
  static const auto forward =
      real_symbol<cudaError_t (*)(void *, const void *, std::size_t, cudaMemcpyKind)>("cudaMemcpy");
  GpuWait wait;
  return forward(dst, src, count, kind);
}

extern "C" cudaError_t __wrap_cudaMemcpy2D(void *dst, std::size_t dpitch, const void *src, std::size_t spitch,
                                           std::size_t width, std::size_t height, cudaMemcpyKind kind) {
  static const auto forward = real_symbol<cudaError_t (*)(void *, std::size_t, const void *, std::size_t, std::size_t,
                                                          std::size_t, cudaMemcpyKind)>("cudaMemcpy2D");
  GpuWait wait;
  return forward(dst, dpitch, src, spitch, width, height, kind);
}

extern "C" cudaError_t __wrap_cudaMemcpyToSymbol(const void *symbol, const void *src, std::size_t count,
                                                 std::size_t offset, cudaMemcpyKind kind) {
  if (const auto *w = worker_runtime(); w && kind != cudaMemcpyDeviceToDevice)
    return w->to_symbol(symbol, src, count, offset);
  static const auto forward =
      real_symbol<cudaError_t (*)(const void *, const void *, std::size_t, std::size_t, cudaMemcpyKind)>(
          "cudaMemcpyToSymbol");
  GpuWait wait;
  return forward(symbol, src, count, offset, kind);
}

extern "C" cudaError_t __wrap_cudaMemcpyFromSymbol(void *dst, const void *symbol, std::size_t count, std::size_t offset,
                                                   cudaMemcpyKind kind) {
  if (const auto *w = worker_runtime(); w && kind != cudaMemcpyDeviceToDevice)
    return w->from_symbol(dst, symbol, count, offset);
  static const auto forward =
      real_symbol<cudaError_t (*)(void *, const void *, std::size_t, std::size_t, cudaMemcpyKind)>(
          "cudaMemcpyFromSymbol");
  GpuWait wait;
  return forward(dst, symbol, count, offset, kind);
}

extern "C" cudaError_t __wrap_cudaMemset(void *ptr, int value, std::size_t count) {
  if (const auto *w = worker_runtime()) return w->memset(ptr, value, count);
  static const auto forward = real_symbol<cudaError_t (*)(void *, int, std::size_t)>("cudaMemset");
  GpuWait wait;
  return forward(ptr, value, count);
}

extern "C" cudaError_t __wrap_cudaFree(void *ptr) {
  if (const auto *w = worker_runtime()) return w->free(ptr);
  static const auto forward = real_symbol<cudaError_t (*)(void *)>("cudaFree");
  GpuWait wait;
  return forward(ptr);
}

extern "C" cudaError_t __wrap_cudaFreeHost(void *ptr) {
  static const auto forward = real_symbol<cudaError_t (*)(void *)>("cudaFreeHost");
  GpuWait wait;
  return forward(ptr);
}
