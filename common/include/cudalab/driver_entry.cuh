/// @file driver_entry.cuh
/// @brief Driver API functions reached through the CUDA runtime, so that a binary need not link
/// libcuda: it must start, and skip its GPU tests, on a machine without a driver.
#pragma once

#include <cuda.h>  // the driver's types and declarations (decltype(&cuMemCreate) and the like)
#include <cuda_runtime.h>

namespace cudalab {

/// @brief Sets @p fn to the driver function @p name, in its form as of CUDA @p abi (for example
/// 12000 for 12.0). Returns false, leaving @p fn as it was, when this driver does not have it.
/// Runtimes older than 12.5 ask for the driver's current form (cudaGetDriverEntryPoint).
template <class F>
bool driver_entry(const char *name, F *&fn, unsigned int abi = 12000) {
  void *p = nullptr;
  cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
  const cudaError_t err = cudaGetDriverEntryPointByVersion(name, &p, abi, cudaEnableDefault, &found);
#else
  (void)abi;
  const cudaError_t err = cudaGetDriverEntryPoint(name, &p, cudaEnableDefault, &found);
#endif
  if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || p == nullptr) return false;
  fn = reinterpret_cast<F *>(p);
  return true;
}

}  // namespace cudalab
