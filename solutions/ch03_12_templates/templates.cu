/// @file templates.cu
/// @brief Lab ch03_12: the templated reduction and its launcher (see README.md and templates.cuh).
#include "templates.cuh"

template <unsigned int iBlockSize>
__global__ void reduceCompleteUnroll(int *g_idata, int *g_odata, unsigned int n) {
  // BEGIN SOLUTION
  __shared__ int smem[iBlockSize];
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * iBlockSize * 8 + tid;

  int sum = 0;
  if (idx + 7 * iBlockSize < n) {
    int a1 = g_idata[idx];
    int a2 = g_idata[idx + iBlockSize];
    int a3 = g_idata[idx + 2 * iBlockSize];
    int a4 = g_idata[idx + 3 * iBlockSize];
    int b1 = g_idata[idx + 4 * iBlockSize];
    int b2 = g_idata[idx + 5 * iBlockSize];
    int b3 = g_idata[idx + 6 * iBlockSize];
    int b4 = g_idata[idx + 7 * iBlockSize];
    sum = a1 + a2 + a3 + a4 + b1 + b2 + b3 + b4;
  } else {
    for (unsigned int k = 0; k < 8 && idx + k * iBlockSize < n; ++k) sum += g_idata[idx + k * iBlockSize];
  }
  smem[tid] = sum;
  __syncthreads();

  // decided at compile time: for iBlockSize = 256 the first two steps disappear
  if (iBlockSize >= 1024 && tid < 512) smem[tid] += smem[tid + 512];
  if (iBlockSize >= 1024) __syncthreads();
  if (iBlockSize >= 512 && tid < 256) smem[tid] += smem[tid + 256];
  if (iBlockSize >= 512) __syncthreads();
  if (iBlockSize >= 256 && tid < 128) smem[tid] += smem[tid + 128];
  if (iBlockSize >= 256) __syncthreads();
  if (iBlockSize >= 128 && tid < 64) smem[tid] += smem[tid + 64];
  if (iBlockSize >= 128) __syncthreads();

  if (tid < 32) {
    int v = smem[tid] + smem[tid + 32];
    v += __shfl_down_sync(0xffffffffu, v, 16);
    v += __shfl_down_sync(0xffffffffu, v, 8);
    v += __shfl_down_sync(0xffffffffu, v, 4);
    v += __shfl_down_sync(0xffffffffu, v, 2);
    v += __shfl_down_sync(0xffffffffu, v, 1);
    if (tid == 0) g_odata[blockIdx.x] = v;
  }
  // STUB: // TODO(ch03_12): ch03_11's reduceCompleteUnrollWarps8 with iBlockSize in place of blockDim.x:
  // STUB: //  - __shared__ int smem[iBlockSize]; idx = blockIdx.x * iBlockSize * 8 + tid; up to eight
  // STUB: //    elements per thread summed in a register (only those < n), stored to smem[tid]; __syncthreads()
  // STUB: //  - `if (iBlockSize >= 1024 && tid < 512) smem[tid] += smem[tid + 512];` then __syncthreads(),
  // STUB: //    and the same for 512, 256, 128 -- the compiler removes the steps this block size never takes
  // STUB: //  - the last warp with __syncwarp() between steps or with __shfl_down_sync (not `volatile`)
  // STUB: //  - thread 0 writes the block's sum to g_odata[blockIdx.x]
  // END SOLUTION
}

cudaError_t launch_complete_unroll(unsigned int block, int *g_idata, int *g_odata, unsigned int n) {
  // BEGIN SOLUTION
  if (!complete_unroll_supported(block)) return cudaErrorInvalidValue;  // no launch, no sticky error
  if (n == 0) return cudaSuccess;
  const unsigned int grid = complete_unroll_grid(n, block);
  switch (block) {
    case 1024:
      reduceCompleteUnroll<1024><<<grid, 1024>>>(g_idata, g_odata, n);
      break;
    case 512:
      reduceCompleteUnroll<512><<<grid, 512>>>(g_idata, g_odata, n);
      break;
    case 256:
      reduceCompleteUnroll<256><<<grid, 256>>>(g_idata, g_odata, n);
      break;
    case 128:
      reduceCompleteUnroll<128><<<grid, 128>>>(g_idata, g_odata, n);
      break;
    case 64:
      reduceCompleteUnroll<64><<<grid, 64>>>(g_idata, g_odata, n);
      break;
  }
  return cudaGetLastError();
  // STUB: // TODO(ch03_12): the book's host-side switch on the block size:
  // STUB: //  - a block size without an instantiation: return cudaErrorInvalidValue before any CUDA call
  // STUB: //  - n == 0: nothing to do, return cudaSuccess
  // STUB: //  - otherwise `case 512: reduceCompleteUnroll<512><<<complete_unroll_grid(n, 512), 512>>>(...); break;`
  // STUB: //    for 1024, 512, 256, 128 and 64, then return cudaGetLastError()
  // STUB: return cudaErrorNotYetImplemented;
  // END SOLUTION
}

// The block sizes the lab supports: one compiled kernel each. The header only declares the
// template, and the instantiations of a kernel template cannot be named from another file, so the
// tests reach them through this table.
CompleteUnrollKernel complete_unroll_kernel(unsigned int block) {
  static const struct {
    unsigned int block;
    CompleteUnrollKernel kernel;
  } kInstantiations[] = {{64, reduceCompleteUnroll<64>},
                         {128, reduceCompleteUnroll<128>},
                         {256, reduceCompleteUnroll<256>},
                         {512, reduceCompleteUnroll<512>},
                         {1024, reduceCompleteUnroll<1024>}};
  for (const auto &entry : kInstantiations)
    if (entry.block == block) return entry.kernel;
  return nullptr;
}
