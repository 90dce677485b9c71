/// @file exhibit.cuh
/// @brief The book's last-warp unroll with a `volatile` pointer and no barrier, kept as an exhibit:
/// a data race on Volta and newer that still returns the right sums.
#pragma once

#include <cuda_runtime.h>

/// @brief reduceUnrollWarps8 as the book writes its last warp (`volatile int *vsmem`, no
/// __syncwarp()), staged in shared memory so that compute-sanitizer's racecheck can see the race.
/// Same contract as reduceUnrollWarps8 (grid = reduce_grid(n, block, 8)).
__global__ void reduceUnrollWarps8Volatile(int *g_idata, int *g_odata, unsigned int n);
