/// @file reduce_check.cuh
/// @brief Test support for reduction labs: run a kernel with the seeds' contract on a guarded
/// buffer and check every partial sum against the CPU.
#pragma once

#include "cudalab/testing.cuh"

#include <cstdint>
#include <string>
#include <vector>

/// Kernels with the seeds' signature (g_idata, g_odata, n).
using ReduceKernel = void (*)(int *, int *, unsigned int);

/// @brief The divergent baseline: the book's reduceNeighbored, fixed for any n.
__global__ void reduceNeighboredBaseline(int *g_idata, int *g_odata, unsigned int n);

/// @brief Runs @p kernel once and returns what is wrong with its result ("" if nothing).
/// Launches @p kernel on n fresh random ints in [-1000, 1000] (from @p seed) with the
/// given block size and grid = ceil(n / (block * elems_per_thread_block)), then checks: nothing
/// written past n in g_idata or past the grid in g_odata, every partial sum right (first wrong
/// block named), the total right. Messages name @p name, the first wrong block and the seed.
/// @param chunk elements each block sums (block for ch03_10, block * 8 for Unrolling8, ...)
std::string reduction_error(const char *name, ReduceKernel kernel, unsigned int n, unsigned int block,
                            unsigned int chunk, std::uint64_t seed);

/// @brief reduction_error(), failing the current test with the message if there is one.
void check_reduction(const char *name, ReduceKernel kernel, unsigned int n, unsigned int block,
                     unsigned int chunk, std::uint64_t seed);
