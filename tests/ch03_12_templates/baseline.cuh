/// @file baseline.cuh
/// @brief The baseline kernels ch03_12_templates's performance tests compare against (they live with the
/// tests, so the baseline is the same for every student), and the shared reduction checks.
#pragma once

#include "reduce_check.cuh"

/// @brief The runtime-blockDim version: ch03_11's reference reduceCompleteUnrollWarps8 (the same
/// code as the reference reduceCompleteUnroll, with blockDim.x where the template has iBlockSize).
__global__ void reduceCompleteUnrollWarps8Baseline(int *g_idata, int *g_odata, unsigned int n);
