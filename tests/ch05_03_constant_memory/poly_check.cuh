/// @file poly_check.cuh
/// @brief Test support for ch05_03: random coefficients, inputs and keys, a double-precision CPU
/// reference with a per-element error bound, and the comparison that names the first wrong element.
#pragma once

#include "constant_memory.cuh"

#include "cudalab/testing.cuh"

#include <cstdint>
#include <string>
#include <vector>

/// Elements after the n outputs that are poisoned and must stay so ("nothing written past n").
constexpr int kGuard = 64;

/// Elements of the Nsight Compute profile (profile_target.cu, test_profile.cpp).
constexpr int kProfileN = 1 << 24;
/// Block of the profile.
constexpr unsigned int kProfileBlock = 256;
/// Coefficients of the profiled polynomial: all of them, so that polynomialGlobal's 64 coefficient
/// loads per warp stand out against x's one.
constexpr int kProfileCount = kMaxCoefficients;

/// @brief @p count coefficients with |c| in [0.25, 1] and random signs (never close to 0, so a
/// coefficient that is dropped or stale always changes p(1) and p(-1) by at least 0.25).
std::vector<float> random_coefficients(int count, std::uint64_t seed);

/// @brief @p n inputs in [-1, 1): x[0] = 1 and x[1] = -1 (there every coefficient counts fully),
/// the rest random.
std::vector<float> random_inputs(int n, std::uint64_t seed);

/// @brief @p n keys, uniformly random in [0, kNumSets).
std::vector<int> random_keys(int n, std::uint64_t seed);

/// @brief @p n keys where each aligned group of 32 (a warp with a block that is a multiple of 32)
/// is a random permutation of 0..31: every table read of a warp touches 32 different addresses.
std::vector<int> permuted_keys(int n, std::uint64_t seed);

/// @brief What a kernel must produce: the exact value (in double) and the largest error a correct
/// float evaluation may have, per element.
struct Expected {
  std::vector<double> value;      ///< p(x[i]) evaluated in double
  std::vector<double> tolerance;  ///< allowed |y[i] - value[i]|
};

/// @brief p(x[i]) = sum_k coef[k] x[i]^k for k < @p count, for every element.
Expected polynomial_reference(const std::vector<float> &x, const std::vector<float> &coef, int count);

/// @brief Polynomial key[i] of the table @p sets (layout of constant_memory.cuh) at x[i].
Expected lookup_reference(const std::vector<float> &x, const std::vector<int> &key, const std::vector<float> &sets);

/// @brief Checks @p actual (n + kGuard elements, n = want.value.size()) against @p want: the first
/// element that was never written, or off by more than its tolerance, or a guard element that was
/// written, with the kernel's name and @p context.
::testing::AssertionResult close_to(const std::string &kernel, const std::string &context, const Expected &want,
                                    const std::vector<float> &actual);

/// @brief close_to for big outputs, on the device (for the performance tests' 2^24 elements):
/// @p d_y (n + kGuard floats, the guard poisoned) must hold polynomial @p coef (@p count
/// coefficients, coefficient k at [k * stride]) at d_x[i] -- with @p d_key, the polynomial that
/// starts at coef[d_key[i]]. "" when right, else the first wrong element as close_to reports it.
std::string device_check(const std::string &kernel, const std::string &context, const float *d_x, const int *d_key,
                         const float *d_y, int n, const std::vector<float> &coef, int count, int stride);

/// @brief The SampleCheck (cudalab/timing.cuh) of a timed kernel that device_check() checks, with
/// the same arguments: prepare() gives one random x[j] (on the device) a new value in [-1, 1) that
/// moves the expected y[j] by more than the tolerances allow, and poisons @p d_y (n + kGuard
/// floats); verify() is device_check() on the data as it is now. @p seed picks the changes.
cudalab::SampleCheck changing_x_check(const std::string &kernel, const std::string &context, float *d_x,
                                      const int *d_key, float *d_y, int n, const std::vector<float> &coef, int count,
                                      int stride, std::uint64_t seed);

/// @brief Runs polynomialConstant<<<blocks_for(n, block), block>>> on @p x with @p count
/// coefficients (already uploaded) into a poisoned output of n + kGuard floats and returns them
/// in @p y; "" on success, else the CUDA error.
std::string run_polynomial_constant(const std::vector<float> &x, int count, unsigned int block, std::vector<float> *y);
