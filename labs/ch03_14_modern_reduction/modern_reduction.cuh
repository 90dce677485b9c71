/// @file modern_reduction.cuh
/// @brief Lab ch03_14 -- the reduction on today's GPUs (beyond the book): warp shuffles instead of
/// the volatile last warp, 16-byte loads, a grid-stride loop sized from the SM count, and one
/// atomic per block instead of a partial-sum array.
///
/// Both kernels read the input and never modify it (the book's kernels reduce in place).
#pragma once

#include <cuda_runtime.h>

/// Threads per block of reduceModern (8 warps).
constexpr unsigned int kModernBlock = 256;

/// @brief The book's Unrolling8 contract with the block-level tree replaced by warp shuffles.
/// Block b sums g_idata[b * 8 * blockDim.x, min(n, (b + 1) * 8 * blockDim.x)): every thread adds
/// up to 8 elements (a stride of blockDim.x apart, so each load is coalesced), each warp reduces
/// with __shfl_down_sync, warp 0 reduces the warp sums (through shared memory, after a
/// __syncthreads()), and thread 0 writes g_odata[b].
/// Launch: <<<shuffle8_grid(n, block), block>>> with block a multiple of 32 in [64, 1024]; any n >= 1.
__global__ void reduceShuffle8(const int *g_idata, int *g_odata, unsigned int n);

/// @brief One-pass reduction of g_idata[0, n) into *g_sum (which the caller zeroes first).
/// g_idata may start at ANY int address (not only a 16-byte boundary): the few elements before
/// the first 16-byte boundary (the head) and after the last whole int4 (the tail) are added as
/// ints, everything between as int4 in a grid-stride loop. Each warp reduces with cooperative
/// groups (cg::reduce) or __shfl_down_sync; each block makes exactly one atomicAdd to *g_sum.
/// Launch: <<<modern_grid(...), kModernBlock>>>; any n >= 0 and any grid >= 1 must work.
__global__ void reduceModern(const int *g_idata, unsigned int n, int *g_sum);

/// @brief Grid size for reduceModern: one full wave -- as many blocks of @p block threads as the
/// GPU holds at once (sm_count x max_threads_per_sm / block) -- but never more blocks than there
/// are int4 groups of @p n to give each thread at least one (ceil(ceil(n / 4) / block)), and at
/// least 1. Host function, tested without a GPU.
unsigned int modern_grid(unsigned int n, int sm_count, int max_threads_per_sm, unsigned int block);

/// Number of blocks (and partial sums) of reduceShuffle8: ceil(n / (8 * block)).
inline unsigned int shuffle8_grid(unsigned int n, unsigned int block) { return (n + 8 * block - 1) / (8 * block); }

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_modern_reduction.hpp")
#include "cudalab_apart_modern_reduction.hpp"
#endif
