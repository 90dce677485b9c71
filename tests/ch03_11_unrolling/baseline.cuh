/// @file baseline.cuh
/// @brief The baseline kernels ch03_11_unrolling's performance tests compare against (they live with the
/// tests, so the baseline is the same for every student), and the shared reduction checks.
#pragma once

#include "reduce_check.cuh"

/// @brief ch03_10's reduceInterleaved, fixed for any n (block b sums blockDim.x elements).
__global__ void reduceInterleavedBaseline(int *g_idata, int *g_odata, unsigned int n);
/// @brief The reference reduceUnrolling2 (block b sums 2 * blockDim.x elements).
__global__ void reduceUnrolling2Baseline(int *g_idata, int *g_odata, unsigned int n);
/// @brief The reference reduceUnrolling4 (block b sums 4 * blockDim.x elements).
__global__ void reduceUnrolling4Baseline(int *g_idata, int *g_odata, unsigned int n);
