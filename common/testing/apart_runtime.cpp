// The CUDA runtime as the worker of cudalab::apart sees it in a GPU test program: the runtime
// functions that a lab's model or device query may ask (the device's properties, attributes, flags
// and cache configuration, the current device, a kernel's attributes and occupancy, versions, free
// memory, the last error) are defined here, in
// the test program, so that a lab's library binds to them. In the test program each calls the
// runtime's own; in the worker (a fork of the test program that must not talk to the GPU: its
// seccomp filter refuses the driver's system calls) each is answered by the test program
// (cudalab::apart::in_parent). Linked into the GPU test programs only: the host test programs
// define synthetic ones of their own.
#include "cudalab/apart.hpp"
#include "real_symbol.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace {

// The runtime's name of a function (CUDA 12 renames some by macro, e.g. cudaGetDeviceProperties
// to cudaGetDeviceProperties_v2): the name the macro expands to.
#define CUDALAB_NAME_OF(f) CUDALAB_NAME_OF2(f)
#define CUDALAB_NAME_OF2(f) #f

using cudalab::detail::next_symbol;

// One line per function: `real_<f>` calls the runtime's own (in the test program, where
// in_parent runs it), and the definition of f routes the call.
#define CUDALAB_RUNTIME_REAL(f, params, args)                                      \
  cudaError_t real_##f params {                                                    \
    static const auto fn = next_symbol<cudaError_t(*) params>(CUDALAB_NAME_OF(f)); \
    return fn args;                                                                \
  }

CUDALAB_RUNTIME_REAL(cudaGetDevice, (int *device), (device))
CUDALAB_RUNTIME_REAL(cudaGetDeviceCount, (int *count), (count))
CUDALAB_RUNTIME_REAL(cudaGetDeviceProperties, (cudaDeviceProp * prop, int device), (prop, device))
CUDALAB_RUNTIME_REAL(cudaDeviceGetAttribute, (int *value, cudaDeviceAttr attr, int device), (value, attr, device))
CUDALAB_RUNTIME_REAL(cudaDeviceGetLimit, (std::size_t * value, cudaLimit limit), (value, limit))
CUDALAB_RUNTIME_REAL(cudaRuntimeGetVersion, (int *version), (version))
CUDALAB_RUNTIME_REAL(cudaDriverGetVersion, (int *version), (version))
CUDALAB_RUNTIME_REAL(cudaMemGetInfo, (std::size_t * free, std::size_t *total), (free, total))
CUDALAB_RUNTIME_REAL(cudaFuncGetAttributes, (cudaFuncAttributes * attr, const void *func), (attr, func))
CUDALAB_RUNTIME_REAL(cudaFuncSetAttribute, (const void *func, cudaFuncAttribute attr, int value), (func, attr, value))
CUDALAB_RUNTIME_REAL(cudaOccupancyMaxActiveBlocksPerMultiprocessor,
                     (int *blocks, const void *func, int threads, std::size_t shared), (blocks, func, threads, shared))
CUDALAB_RUNTIME_REAL(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
                     (int *blocks, const void *func, int threads, std::size_t shared, unsigned int flags),
                     (blocks, func, threads, shared, flags))
CUDALAB_RUNTIME_REAL(cudaOccupancyAvailableDynamicSMemPerBlock,
                     (std::size_t * shared, const void *func, int blocks, int threads), (shared, func, blocks, threads))
CUDALAB_RUNTIME_REAL(cudaSetDevice, (int device), (device))
CUDALAB_RUNTIME_REAL(cudaGetDeviceFlags, (unsigned int *flags), (flags))
CUDALAB_RUNTIME_REAL(cudaDeviceGetCacheConfig, (cudaFuncCache * config), (config))
CUDALAB_RUNTIME_REAL(cudaFuncSetCacheConfig, (const void *func, cudaFuncCache config), (func, config))
CUDALAB_RUNTIME_REAL(cudaGetLastError, (), ())
CUDALAB_RUNTIME_REAL(cudaPeekAtLastError, (), ())

// What the worker may change in the test program: the attributes of the lab's own kernels (never
// of the test program's baselines, which it could slow down), the current device (it may only
// select the one the test runs on).
cudaError_t checked_cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value) {
  if (!cudalab::apart::detail::same_object(cudalab::apart::detail::calling(), func))
    return cudaErrorInvalidDeviceFunction;
  return real_cudaFuncSetAttribute(func, attr, value);
}
cudaError_t checked_cudaFuncSetCacheConfig(const void *func, cudaFuncCache config) {
  if (!cudalab::apart::detail::same_object(cudalab::apart::detail::calling(), func))
    return cudaErrorInvalidDeviceFunction;
  return real_cudaFuncSetCacheConfig(func, config);
}
cudaError_t checked_cudaSetDevice(int device) {
  int current = 0;
  if (real_cudaGetDevice(&current) != cudaSuccess || device != current) return cudaErrorInvalidDevice;
  return cudaSuccess;
}

}  // namespace

using cudalab::apart::in_parent;
using cudalab::apart::detail::in_worker;

cudaError_t cudaGetDevice(int *device) { return in_parent<&real_cudaGetDevice>(device); }
cudaError_t cudaGetDeviceCount(int *count) { return in_parent<&real_cudaGetDeviceCount>(count); }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device) {
  return in_parent<&real_cudaGetDeviceProperties>(prop, device);
}
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
  return in_parent<&real_cudaDeviceGetAttribute>(value, attr, device);
}
cudaError_t cudaDeviceGetLimit(std::size_t *value, cudaLimit limit) {
  return in_parent<&real_cudaDeviceGetLimit>(value, limit);
}
cudaError_t cudaRuntimeGetVersion(int *version) { return in_parent<&real_cudaRuntimeGetVersion>(version); }
cudaError_t cudaDriverGetVersion(int *version) { return in_parent<&real_cudaDriverGetVersion>(version); }
cudaError_t cudaMemGetInfo(std::size_t *free, std::size_t *total) {
  return in_parent<&real_cudaMemGetInfo>(free, total);
}
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func) {
  return in_parent<&real_cudaFuncGetAttributes>(attr, func);
}
cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value) {
  return in_worker() ? in_parent<&checked_cudaFuncSetAttribute>(func, attr, value)
                     : real_cudaFuncSetAttribute(func, attr, value);
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int threads,
                                                          std::size_t shared) {
  return in_parent<&real_cudaOccupancyMaxActiveBlocksPerMultiprocessor>(blocks, func, threads, shared);
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *func, int threads,
                                                                   std::size_t shared, unsigned int flags) {
  return in_parent<&real_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags>(blocks, func, threads, shared, flags);
}
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(std::size_t *shared, const void *func, int blocks, int threads) {
  return in_parent<&real_cudaOccupancyAvailableDynamicSMemPerBlock>(shared, func, blocks, threads);
}
cudaError_t cudaSetDevice(int device) {
  return in_worker() ? in_parent<&checked_cudaSetDevice>(device) : real_cudaSetDevice(device);
}
cudaError_t cudaGetDeviceFlags(unsigned int *flags) { return in_parent<&real_cudaGetDeviceFlags>(flags); }
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache *config) {
  return in_parent<&real_cudaDeviceGetCacheConfig>(config);
}
cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache config) {
  return in_worker() ? in_parent<&checked_cudaFuncSetCacheConfig>(func, config)
                     : real_cudaFuncSetCacheConfig(func, config);
}
cudaError_t cudaGetLastError() { return in_parent<&real_cudaGetLastError>(); }
cudaError_t cudaPeekAtLastError() { return in_parent<&real_cudaPeekAtLastError>(); }
