/// @file divergence_check.cuh
/// @brief Test support for ch03_02: the divergent baseline, CPU references, and checks that run a
/// kernel on a poisoned, guarded buffer and name the first wrong element.
#pragma once

#include "cudalab/test_support.cuh"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

/// Kernels with the signature of mathKernel1..4.
using MathKernel = void (*)(float *, int);
/// Kernels with the signature of heavyKernel1/2.
using HeavyKernel = void (*)(const float *, float *, int, int);

/// A launch of a heavy kernel on (in, out, n, iters) on the default stream, with the grid and block
/// it chooses; returns the launch's error.
using HeavyLaunch = std::function<cudaError_t(const float *, float *, int, int)>;

/// @brief The divergent baseline of the performance test: heavyKernel1 (even/odd threads, long
/// arms). It lives with the tests, so it is the same for every student.
__global__ void heavyDivergentBaseline(const float *in, float *out, int n, int iters);

/// @brief CPU reference of mathKernel1..4: 100 or 200 per element. @p by_warp: even/odd warps
/// (mathKernel2, 4), else even/odd threads (mathKernel1, 3).
std::vector<float> cpu_math(int n, bool by_warp);

/// @brief Fresh random inputs of the heavy kernels: integers in [-512, 511] as floats, so the
/// CPU reference is a table of 2 x 1024 entries.
std::vector<float> heavy_input(int n, std::uint64_t seed);

/// @brief CPU reference of heavyKernel1 for inputs from heavy_input (even i: the even arm).
std::vector<float> cpu_heavy(const std::vector<float> &in, int iters);

/// @brief Runs a math kernel once on n elements (block @p block) and returns what is wrong ("" if
/// nothing): nothing written past n, every element equal to the CPU's.
std::string math_error(const char *name, MathKernel kernel, bool by_warp, int n, unsigned block, std::uint64_t seed);

/// @brief Runs a heavy kernel once and returns what is wrong ("" if nothing).
std::string heavy_error(const char *name, HeavyKernel kernel, int n, unsigned block, int iters, std::uint64_t seed);

/// @brief heavy_error() for a kernel launched by @p launch (e.g. the reference solution's kernel,
/// cudalab/reference_kernels.hpp); @p block is for the messages only.
std::string heavy_error(const char *name, const HeavyLaunch &launch, int n, unsigned block, int iters,
                        std::uint64_t seed);

/// @brief The SampleCheck (cudalab/timing.cuh) of a timed heavy kernel that reads @p d_in (holding
/// @p input) and writes @p d_out: before every sample one random element of the input (host copy
/// and @p d_in) gets a new value from heavy_input's range and out[0, n) is poisoned; verify()
/// compares the whole output with cpu_heavy() of the input as it is now (kept up to date element by
/// element, so a check costs a copy back and a comparison). Exact, as in heavy_error().
cudalab::SampleCheck heavy_sample_check(const char *name, std::vector<float> input, float *d_in, float *d_out,
                                        unsigned block, int iters, std::uint64_t seed);
