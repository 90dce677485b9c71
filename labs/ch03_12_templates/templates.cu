/// @file templates.cu
/// @brief Lab ch03_12: the templated reduction and its launcher (see README.md and templates.cuh).
#include "templates.cuh"

template <unsigned int iBlockSize>
__global__ void reduceCompleteUnroll(int *g_idata, int *g_odata, unsigned int n) {
  // TODO(ch03_12): ch03_11's reduceCompleteUnrollWarps8 with iBlockSize in place of blockDim.x:
  //  - __shared__ int smem[iBlockSize]; idx = blockIdx.x * iBlockSize * 8 + tid; up to eight
  //    elements per thread summed in a register (only those < n), stored to smem[tid]; __syncthreads()
  //  - `if (iBlockSize >= 1024 && tid < 512) smem[tid] += smem[tid + 512];` then __syncthreads(),
  //    and the same for 512, 256, 128 -- the compiler removes the steps this block size never takes
  //  - the last warp with __syncwarp() between steps or with __shfl_down_sync (not `volatile`)
  //  - thread 0 writes the block's sum to g_odata[blockIdx.x]
}

cudaError_t launch_complete_unroll(unsigned int block, int *g_idata, int *g_odata, unsigned int n) {
  // TODO(ch03_12): the book's host-side switch on the block size:
  //  - a block size without an instantiation: return cudaErrorInvalidValue before any CUDA call
  //  - n == 0: nothing to do, return cudaSuccess
  //  - otherwise `case 512: reduceCompleteUnroll<512><<<complete_unroll_grid(n, 512), 512>>>(...); break;`
  //    for 1024, 512, 256, 128 and 64, then return cudaGetLastError()
  return cudaErrorNotYetImplemented;
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
