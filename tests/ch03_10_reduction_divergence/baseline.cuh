/// @file baseline.cuh
/// @brief The baseline kernels ch03_10_reduction_divergence's performance tests compare against (they live with the
/// tests, so the baseline is the same for every student), and the shared reduction checks.
#pragma once

#include "reduce_check.cuh"

/// @brief The divergent baseline: the book's reduceNeighbored, fixed for any n.
__global__ void reduceNeighboredBaseline(int *g_idata, int *g_odata, unsigned int n);
