/// @file unrolling.cu
/// @brief Lab ch03_11: your five unrolled reduction kernels (see README.md and unrolling.cuh).
///
/// Two things the book's code gets wrong, and yours must not:
///  * `if (idx + 7 * blockDim.x < n)` skips the whole unrolling step for a thread whose eight
///    elements are not all there, so the tail of the array is never summed when n is not a multiple
///    of 8 * blockDim.x. Add every element that exists (idx + k * blockDim.x < n).
///  * the last warp with a `volatile` pointer and no barrier is a data race on Volta and newer
///    (independent thread scheduling: the lanes of a warp are not in lock step). Use __syncwarp()
///    between the steps, or __shfl_down_sync.
#include "unrolling.cuh"

__global__ void reduceUnrolling2(int *g_idata, int *g_odata, unsigned int n) {
  // TODO(ch03_11): block b owns 2 * blockDim.x elements starting at start = b * 2 * blockDim.x.
  //  - idx = start + tid: if idx + blockDim.x < n, add g_idata[idx + blockDim.x] into g_idata[idx]
  //  - __syncthreads(), then the interleaved loop of ch03_10 over the first blockDim.x elements,
  //    guarded with count = min(blockDim.x, n - start)
  //  - thread 0 writes idata[0] to g_odata[blockIdx.x]
}

__global__ void reduceUnrolling4(int *g_idata, int *g_odata, unsigned int n) {
  // TODO(ch03_11): as reduceUnrolling2 with four data blocks: when all four elements exist
  // (idx + 3 * blockDim.x < n) load them into four registers, then store their sum to g_idata[idx];
  // otherwise (the last chunk) add only the elements idx + k * blockDim.x < n.
}

__global__ void reduceUnrolling8(int *g_idata, int *g_odata, unsigned int n) {
  // TODO(ch03_11): as reduceUnrolling4 with eight data blocks (eight independent loads).
}

__global__ void reduceUnrollWarps8(int *g_idata, int *g_odata, unsigned int n) {
  // TODO(ch03_11): reduceUnrolling8, reworked so the warp-level steps can be checked:
  //  - __shared__ int smem[1024]; each thread adds its (up to) eight elements in a register
  //    and stores the sum to smem[tid] (0 if it has none); __syncthreads()
  //  - interleaved loop on smem while stride > 32, with __syncthreads()
  //  - warp 0 (tid < 32) adds smem[tid + 32], 16, 8, 4, 2, 1 without a block barrier, but with
  //    __syncwarp() between reading a neighbour's element and writing your own (or use
  //    __shfl_down_sync) -- NOT the book's volatile pointer (see README.md)
  //  - thread 0 writes the block's sum to g_odata[blockIdx.x]
}

__global__ void reduceCompleteUnrollWarps8(int *g_idata, int *g_odata, unsigned int n) {
  // TODO(ch03_11): reduceUnrollWarps8 with the stride loop written out: one step
  // `if (blockDim.x >= S && tid < S / 2) smem[tid] += smem[tid + S / 2];` for S = 1024, 512, 256, 128,
  // each followed by __syncthreads() (outside the if: every thread must reach it); then the same
  // race-free last-warp step.
}
