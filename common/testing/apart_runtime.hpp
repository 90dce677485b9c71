// The runtime calls of a launcher that runs in the worker of cudalab::apart (apart_launchers.cpp):
// what the worker sends, and what the test program does with it. Internal to common/testing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace cudalab::apart::detail {

/// @brief What the test program's runtime wrappers (launch_recorder.cpp, gpu_waits.cpp) do in the
/// worker when launchers run there: send the call to the test program. Null in the test program,
/// and in every program that does not run launchers apart (the wrappers then forward to the
/// runtime as always).
struct WorkerRuntime {
  cudaError_t (*launch)(const void *func, cudaKernel_t handle, dim3 grid, dim3 block, void **args, std::size_t shared,
                        cudaStream_t stream, bool cooperative);
  cudaError_t (*synchronize)(int what, void *handle);  ///< what: 0 device, 1 stream, 2 event
  cudaError_t (*memcpy)(void *dst, const void *src, std::size_t count, cudaMemcpyKind kind);
  cudaError_t (*to_symbol)(const void *symbol, const void *src, std::size_t count, std::size_t offset);
  cudaError_t (*from_symbol)(void *dst, const void *symbol, std::size_t count, std::size_t offset);
  cudaError_t (*memset)(void *ptr, int value, std::size_t count);
  cudaError_t (*free)(void *ptr);
};

/// @brief The worker's table, in the worker of a program that runs launchers apart; else null.
const WorkerRuntime *worker_runtime();
/// @brief Installs @p table (apart_launchers.cpp, while the program starts).
bool set_worker_runtime(const WorkerRuntime *table);

/// @brief What the test program carries out for the worker: the runtime (through the test
/// program's own wrappers: the launch recorder, the fault injection, the watchdog's waits), or a
/// self-test's stand-in on a machine without a GPU.
struct ParentRuntime {
  /// The parameter sizes and offsets of a kernel, by handle or by host address; false when the
  /// driver cannot tell (before 12.4).
  bool (*param_layout)(const void *func, cudaKernel_t handle, std::uint32_t *count, std::uint32_t *offsets,
                       std::uint32_t *sizes, std::uint32_t max);
  cudaError_t (*get_kernel)(cudaKernel_t *handle, const void *func);
  cudaError_t (*launch)(const void *func, cudaKernel_t handle, dim3 grid, dim3 block, void **args, std::size_t shared,
                        cudaStream_t stream, bool cooperative);
  cudaError_t (*synchronize)(int what, void *handle);
  /// Whether @p p is device memory (cudaMemoryTypeDevice or managed): the only addresses the
  /// worker may name for a copy.
  bool (*is_device)(const void *p);
  cudaError_t (*memcpy)(void *dst, const void *src, std::size_t count, cudaMemcpyKind kind);
  cudaError_t (*to_symbol)(const void *symbol, const void *src, std::size_t count, std::size_t offset);
  cudaError_t (*from_symbol)(void *dst, const void *symbol, std::size_t count, std::size_t offset);
  cudaError_t (*memset)(void *ptr, int value, std::size_t count);
  cudaError_t (*malloc)(void **ptr, std::size_t bytes);
  cudaError_t (*free)(void *ptr);
};

/// @brief Replaces the runtime the test program uses for the worker (a host self-test's stand-in).
void set_parent_runtime(const ParentRuntime &runtime);

}  // namespace cudalab::apart::detail
