/// @file nested_check.cuh
/// @brief Test support for ch03_13: run a recursive reduction on a guarded buffer and check every
/// partial sum against the CPU.
#pragma once

#include "cudalab/testing.cuh"

#include <cstdint>
#include <functional>
#include <string>

/// Launches a reduction from the host: (g_idata, g_odata, n). Must enqueue on the default stream.
using ReduceLaunch = std::function<void(int *, int *, unsigned int)>;

/// @brief Runs @p launch once on n fresh random ints in [-1000, 1000] (from @p seed), followed by
/// a guard region, with a poisoned output of ceil(n / chunk) partial sums plus a guard, and returns
/// what is wrong ("" if nothing): a launch or device-side error, a write past n or past the last
/// partial sum, the first wrong partial sum (expected vs actual), the total. Messages name @p name,
/// n, the launch shape in @p shape, and the seed.
std::string nested_reduction_error(const char *name, const ReduceLaunch &launch, unsigned int n, unsigned int chunk,
                                   const std::string &shape, std::uint64_t seed);
