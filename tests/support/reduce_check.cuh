/// @file reduce_check.cuh
/// @brief Test support for reduction labs (ch03_10, ch03_11, ch03_12): run a kernel
/// with the seeds' contract on a guarded buffer and check every partial sum against the CPU.
#pragma once

#include "cudalab/testing.cuh"

#include <cstdint>
#include <functional>
#include <string>

/// Kernels with the seeds' signature (g_idata, g_odata, n).
using ReduceKernel = void (*)(int *, int *, unsigned int);

/// A launch of a reduction on (g_idata, g_odata, n); returns the launch error (cudaGetLastError()).
using ReduceLaunch = std::function<cudaError_t(int *, int *, unsigned int)>;

/// @brief Runs @p launch once and returns what is wrong with its result ("" if nothing).
/// The input is n fresh random ints in [-1000, 1000] (from @p seed) followed by a guard region;
/// g_odata is poisoned and has a guard region too. Checks: nothing written past n in g_idata or
/// past the grid in g_odata, every partial sum right (first wrong block named), the total right.
/// @param chunk elements each block sums (block for ch03_10, block * 8 for Unrolling8, ...);
///              the grid is ceil(n / chunk)
std::string reduction_error(const char *name, const ReduceLaunch &launch, unsigned int n, unsigned int block,
                            unsigned int chunk, std::uint64_t seed);

/// @brief reduction_error() for `kernel<<<ceil(n / chunk), block>>>`.
std::string reduction_error(const char *name, ReduceKernel kernel, unsigned int n, unsigned int block,
                            unsigned int chunk, std::uint64_t seed);

/// @brief reduction_error(), failing the current test with the message if there is one.
void check_reduction(const char *name, ReduceKernel kernel, unsigned int n, unsigned int block, unsigned int chunk,
                     std::uint64_t seed);
