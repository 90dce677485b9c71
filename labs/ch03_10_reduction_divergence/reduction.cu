/// @file reduction.cu
/// @brief Lab ch03_10: your three reduction kernels (see README.md and reduction.cuh).
///
/// The book's versions return early with `if (idx >= n) return;` and then let the surviving
/// threads read idata[tid + stride] -- past the end of the array when n is not a multiple of the
/// block. Yours must be right for any n: only add an element that belongs to this block's chunk.
#include "reduction.cuh"

__global__ void reduceNeighbored(int *g_idata, int *g_odata, unsigned int n) {
  // TODO(ch03_10): neighbored pairs, in place in global memory.
  //  - idata = this block's chunk of g_idata; count = how many of its elements are < n
  //  - for stride = 1, 2, 4, ... < blockDim.x: threads with tid % (2 * stride) == 0 add
  //    idata[tid + stride] into idata[tid] (only if tid + stride < count); then __syncthreads()
  //  - thread 0 writes idata[0] to g_odata[blockIdx.x]
}

__global__ void reduceNeighboredLess(int *g_idata, int *g_odata, unsigned int n) {
  // TODO(ch03_10): same tree as reduceNeighbored, but thread tid works on
  // index = 2 * stride * tid, so the active threads are 0, 1, 2, ... (whole warps idle
  // together instead of every other lane). Guard with index + stride < count.
}

__global__ void reduceInterleaved(int *g_idata, int *g_odata, unsigned int n) {
  // TODO(ch03_10): interleaved pairs: stride = blockDim.x / 2, then halve it each round;
  // threads tid < stride add idata[tid + stride] into idata[tid] (if tid + stride < count).
}
