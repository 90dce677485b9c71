/// @file blocks_check.cuh
/// @brief ch05_06 test support: run reduceSinglePass on fresh random ints with poisoned outputs
/// and guard regions, and compare with the CPU sum.
#pragma once

#include "cudalab/test_support.cuh"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

/// The CPU sum, 64-bit.
long long cpu_sum(const std::vector<int> &v);

/// @brief One single-pass run on n random ints in [lo, hi] (from @p seed), with a fresh counter
/// zeroed once, partial and out poisoned and followed by guards. @p grid 0: through
/// launch_reduce_single_pass(n, block); otherwise reduceSinglePass<<<grid, block>>> directly.
/// Checks *out against the CPU, the guards after out and after the grid's partials, and that the
/// counter is 0 afterwards. Returns what is wrong ("" if nothing).
std::string single_pass_error(int n, int block, int grid, std::uint64_t seed, int lo = -1000, int hi = 1000);

/// A launch of a single-pass sum with reduceSinglePass's parameters (in, partial, counter, out, n)
/// on the default stream; returns the launch's error.
using SinglePassLaunch =
    std::function<cudaError_t(const int *in, long long *partial, unsigned int *counter, long long *out, int n)>;

/// @brief single_pass_error() for @p launch, named @p name in the messages, which runs @p grid
/// blocks of @p block threads: the same input, poisoned outputs, guards and checks (the guard after
/// the partials starts at partial[grid]).
std::string single_pass_error(const char *name, const SinglePassLaunch &launch, int n, int block, int grid,
                              std::uint64_t seed, int lo = -1000, int hi = 1000);

/// @brief @p launches launches in a row, sharing one counter and one partial buffer (poisoned
/// once, the counter zeroed once), alternating between two inputs of n ints whose sums differ;
/// launch k writes out[k]. A launch whose last block read a partial of the previous launch, or
/// one never written, gets the wrong total. Returns what is wrong ("" if nothing).
std::string repeated_launches_error(int n, int block, int launches, std::uint64_t seed);
