/// @file baseline.cuh
/// @brief The handed-out kernels of ch05_03 that the performance tests compare against, compiled
/// into the tests, so the baselines are the same for every student.
#pragma once

#include <cuda_runtime.h>

/// @brief polynomialGlobal as handed out: every thread loads every coefficient from global memory.
__global__ void polynomialGlobalBaseline(const float *x, const float *coef, float *y, int n, int count);

/// @brief setCoefficientSets as handed out, for the baseline's own constant-memory table.
cudaError_t setBaselineSets(const float *h_sets);

/// @brief lookupConstant as handed out: the lookup table read from constant memory with a key per
/// lane (serialised when the keys of a warp differ). Reads the table of setBaselineSets.
__global__ void lookupConstantBaseline(const float *x, const int *key, float *y, int n);
