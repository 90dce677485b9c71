/// @file unrolling.cuh
/// @brief Lab ch03_11 -- unrolling the parallel reduction (book section 3.11).
///
/// The five kernels share the seeds' signature and this contract:
///  * launched as `kernel<<<reduce_grid(n, block, factor), block>>>(g_idata, g_odata, n)` with
///    `block` a power of two in [64, 1024], any n >= 1, and `factor` = 2, 4 or 8 as in the name
///    (8 for the two *Warps8 kernels): the grid shrinks by the factor;
///  * block b sums its chunk g_idata[b * factor * blockDim.x, min(n, (b + 1) * factor * blockDim.x))
///    and writes the sum to g_odata[b]; the host adds the partial sums;
///  * a kernel may reduce in place (overwrite g_idata[0, n), as the book does) but must never
///    read or write past element n - 1 or past g_odata[gridDim.x - 1].
#pragma once

#include <cuda_runtime.h>

/// @brief Each block first adds its second data block onto its first
/// (idata[tid] += idata[tid + blockDim.x]), then reduces blockDim.x elements with interleaved pairs
/// in place in global memory. Grid: reduce_grid(n, block, 2).
__global__ void reduceUnrolling2(int *g_idata, int *g_odata, unsigned int n);

/// @brief As reduceUnrolling2 with four data blocks per thread block. Grid: reduce_grid(n, block, 4).
__global__ void reduceUnrolling4(int *g_idata, int *g_odata, unsigned int n);

/// @brief As reduceUnrolling2 with eight data blocks per thread block (eight independent loads per
/// thread in flight). Grid: reduce_grid(n, block, 8).
__global__ void reduceUnrolling8(int *g_idata, int *g_odata, unsigned int n);

/// @brief reduceUnrolling8 with the last warp unrolled. The block's column sums are staged in shared
/// memory; the interleaved loop with __syncthreads() runs while stride > 32, then warp 0 finishes
/// with no block barrier -- but with __syncwarp() between the steps (or with __shfl_down_sync), not
/// the book's `volatile` pointer. Grid: reduce_grid(n, block, 8).
__global__ void reduceUnrollWarps8(int *g_idata, int *g_odata, unsigned int n);

/// @brief reduceUnrollWarps8 with the interleaved loop completely unrolled: one
/// `if (blockDim.x >= S && tid < S / 2)` step per block size S = 1024, 512, 256, 128, each followed by
/// __syncthreads(), then the same last-warp step. Grid: reduce_grid(n, block, 8).
__global__ void reduceCompleteUnrollWarps8(int *g_idata, int *g_odata, unsigned int n);

/// @brief Number of blocks (and partial sums) when each block sums factor * block elements:
/// ceil(n / (factor * block)).
inline unsigned int reduce_grid(unsigned int n, unsigned int block, unsigned int factor) {
  const unsigned int chunk = block * factor;
  return n == 0 ? 0 : (n - 1) / chunk + 1;
}
