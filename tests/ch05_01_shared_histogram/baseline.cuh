/// @file baseline.cuh
/// @brief The naive baseline of the ch05_01 performance tests.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

/// @brief histogramGlobal as handed out: one thread per byte, one global atomicAdd per byte.
/// Launch with <<<global_grid(n, block), block>>> after zeroing buckets.
__global__ void histogramGlobalBaseline(const unsigned char *colors, unsigned int *buckets, size_t n);
