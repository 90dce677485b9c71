/// @file reduction.cuh
/// @brief Lab ch03_10 -- avoiding branch divergence in a parallel reduction (book section 3.10).
///
/// The three kernels share the seeds' signature and contract:
///  * launched as `kernel<<<reduce_grid(n, block), block>>>(g_idata, g_odata, n)` with `block` a
///    power of two in [64, 1024] and any n >= 1 (not only multiples of the block);
///  * block b sums its chunk g_idata[b * blockDim.x, min(n, (b + 1) * blockDim.x)) and writes the
///    sum to g_odata[b]; the host adds the partial sums;
///  * a kernel may reduce in place (overwrite g_idata[0, n), as the book does) but must never
///    read or write past element n - 1 or past g_odata[gridDim.x - 1].
#pragma once

#include <cuda_runtime.h>

/// @brief Neighbored pairs, the book's divergent version: in round `stride` (1, 2, 4, ...) the
/// threads with tid % (2 * stride) == 0 add idata[tid + stride] into idata[tid].
__global__ void reduceNeighbored(int *g_idata, int *g_odata, unsigned int n);

/// @brief Neighbored pairs with the work remapped to consecutive threads: thread tid handles
/// index 2 * stride * tid, so whole warps stay busy or idle together (less divergence).
__global__ void reduceNeighboredLess(int *g_idata, int *g_odata, unsigned int n);

/// @brief Interleaved pairs: stride starts at blockDim.x / 2 and halves; thread tid < stride adds
/// idata[tid + stride] into idata[tid].
__global__ void reduceInterleaved(int *g_idata, int *g_odata, unsigned int n);

/// @brief Number of blocks (and partial sums) for n elements: ceil(n / block).
inline unsigned int reduce_grid(unsigned int n, unsigned int block) { return (n + block - 1) / block; }
