/// @file latency_check.cuh
/// @brief Test support for ch03_04: the one-load baseline copy, and checks that run a kernel on
/// fresh random data and say what is wrong with its result.
#pragma once

#include "cudalab/test_support.cuh"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

/// Kernels with the copy signature (in, out, n).
using CopyKernel = void (*)(const int4 *, int4 *, std::size_t);

/// A launch of a copy on (in, out, n) on the default stream, with the launch shape it chooses;
/// returns the launch's error.
using CopyLaunch = std::function<cudaError_t(const int4 *, int4 *, std::size_t)>;

/// @brief The baseline of the performance tests: a grid-stride copy with one 16-byte load in
/// flight per thread (the same for every student; lives with the tests).
__global__ void copyInt4Baseline(const int4 *in, int4 *out, std::size_t n);

/// @brief Runs @p kernel once on @p n fresh random int4 (from @p seed) with the given launch and
/// returns what is wrong ("" if nothing): every element of out[0, n) must equal in[], and a guard
/// region after out[n - 1] must keep its poison. Messages name @p name, the first wrong element,
/// expected and actual values and the seed.
std::string copy_error(const char *name, CopyKernel kernel, std::size_t n, unsigned int grid, unsigned int block,
                       std::size_t dyn_smem, std::uint64_t seed);

/// @brief copy_error() for a copy launched by @p launch (e.g. the reference solution's kernel,
/// cudalab/reference_kernels.hpp); @p grid, @p block and @p dyn_smem are for the messages only.
std::string copy_error(const char *name, const CopyLaunch &launch, std::size_t n, unsigned int grid, unsigned int block,
                       std::size_t dyn_smem, std::uint64_t seed);

/// @brief The SampleCheck (cudalab/timing.cuh) of a timed copy from @p d_in (holding @p input) to
/// @p d_out: before every sample one random element of the input (host copy and @p d_in) gets new
/// random values in copy_error()'s range and out[0, n) is poisoned; verify() copies the output back
/// and compares every element with the input as it is now (exact). @p ctx goes into its messages.
cudalab::SampleCheck copy_sample_check(const char *name, std::vector<int4> input, int4 *d_in, int4 *d_out,
                                       const std::string &ctx, std::uint64_t seed);

/// @brief One run of pointerChase on @p next (already on the device).
struct ChaseRun {
  std::string error;           ///< "" when the kernel ran and reached the right index
  double cycles_per_load = 0;  ///< result.cycles / steps
};

/// @brief Launches pointerChase<<<1, 1>>> on the ring @p host (uploaded to @p d_next by the caller)
/// from @p start, checks the final index against a walk on the CPU and returns cycles per load.
/// @p flush empties L2 first (for the DRAM measurement).
ChaseRun run_chase(const std::vector<unsigned int> &host, const unsigned int *d_next, unsigned int start,
                   unsigned int warmup, unsigned int steps, bool flush, std::uint64_t seed);
