/// @file poison_shared.cuh
/// @brief Shared memory of every SM filled with a known word just before a kernel under test
/// runs, so that a kernel that reads a shared-memory element no thread of its block wrote reads
/// that word (a NaN, a huge count) instead of whatever an earlier kernel happened to leave there.
///
/// Shared memory is not cleared between kernels: a block finds what the previous block on that
/// SM left. fill_shared_memory() runs one block per SM (several waves, so every SM gets one) that
/// takes all the shared memory a block may opt in to and writes @p word everywhere. A correct
/// kernel writes every element before it reads it and never sees the word. Should a GPU or driver
/// clear shared memory between kernels, the check loses its power but never fails correct code.
#pragma once

#include <cuda_runtime.h>

namespace cudalab_poison {

/// @brief Writes @p word into the first @p words 32-bit words of the block's dynamic shared
/// memory (volatile stores: the compiler may not drop them though nothing reads them).
__global__ void fillSharedMemoryKernel(unsigned int word, unsigned int words) {
  extern __shared__ unsigned int s_fill[];
  volatile unsigned int *s = s_fill;
  for (unsigned int i = threadIdx.x; i < words; i += blockDim.x) s[i] = word;
}

/// @brief Fills the shared memory of every SM with @p word and waits for it. Returns the first
/// CUDA error (the test reports it as a setup failure).
inline cudaError_t fill_shared_memory(unsigned int word) {
  int device = 0, sms = 0, optin = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (err == cudaSuccess)
    err = cudaFuncSetAttribute(fillSharedMemoryKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
  if (err == cudaSuccess)
    err = cudaFuncSetAttribute(fillSharedMemoryKernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutMaxShared);
  if (err != cudaSuccess) return err;
  fillSharedMemoryKernel<<<4 * sms, 1024, static_cast<size_t>(optin)>>>(word, static_cast<unsigned int>(optin) / 4);
  err = cudaGetLastError();
  return err == cudaSuccess ? cudaDeviceSynchronize() : err;
}

}  // namespace cudalab_poison
