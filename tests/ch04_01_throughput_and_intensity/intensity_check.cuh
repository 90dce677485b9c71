/// @file intensity_check.cuh
/// @brief Test support for ch04_01: intensityKernel and registerArrayKernel on guarded, poisoned
/// buffers, compared with the CPU; and a large input for the timed tests, checked on the device.
#pragma once

#include "cudalab/test_support.cuh"

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>

/// @brief CPU reference of intensityKernel for one element: k times x = fma(x, a, b), each
/// rounded once (std::fma), as the GPU's fmaf is.
float intensity_cpu(float x, int k, float a, float b);

/// @brief CPU reference of localArrayKernel / registerArrayKernel: the sum over the 16 hex digit
/// values of (how often the digit occurs in v)^2.
unsigned digit_square_sum(unsigned v);

/// @brief Runs intensityKernel once on n fresh random floats with k, a, b drawn from @p seed,
/// followed by a poisoned guard region; returns what is wrong ("" if nothing): the first wrong
/// element (expected vs actual, poison noted), or a write past n. Messages name n, k, a, b, block,
/// grid and the seed.
std::string intensity_error(int n, int k, unsigned block, std::uint64_t seed);

/// @brief Runs registerArrayKernel once on n fresh random 32-bit values (the first few chosen:
/// 0, 0xFFFFFFFF, 0x12345678, 0x11111111, ...) with a poisoned guard region; returns what is
/// wrong ("" if nothing).
std::string register_array_error(int n, unsigned block, std::uint64_t seed);

/// @brief n floats filled on the device from a seed, an output buffer, and a device-side check of
/// intensityKernel's result (for inputs too large to check on the CPU quickly).
class BigIntensity {
 public:
  /// @brief Allocates and fills the input (values in [-1, 1)) and the output (n floats each).
  cudaError_t init(int n, std::uint64_t seed);
  /// @brief Poisons the output, runs intensityKernel(k, a, b) with @p block threads per block
  /// and checks every element on the device; "" when all are right, else the first wrong one.
  std::string check(int k, float a, float b, unsigned block);
  /// @brief check() for another launch of the same computation (the reference solution's
  /// intensityKernel): poisons the output, calls @p launch once and checks every element on the
  /// device; "" when all are right, else the first wrong one, named @p name.
  std::string check_launch(const std::string &name, const std::function<void()> &launch, int k, float a, float b,
                           unsigned block);
  /// @brief One launch of intensityKernel (for timing).
  void launch(int k, float a, float b, unsigned block) const;
  /// @brief The check of the timed samples of launch(k, a, b, block): before every sample one
  /// random input element gets a new value in [-1, 1) and the output is poisoned; after a checked
  /// sample every element is compared with k rounded FMAs of its input, on the device, bit for bit.
  cudalab::SampleCheck sample_check(int k, float a, float b, unsigned block);
  /// @brief A device-to-device cudaMemcpy moving the same bytes as one intensityKernel run
  /// (n floats read, n floats written).
  void copy_same_bytes() const;
  /// @brief The same-structure baseline moving the same bytes: cudalab::launch_stream_baseline, a
  /// copy of the n floats with one element per thread on a flat grid of @p block threads.
  void stream_copy_same_bytes(unsigned block) const;
  /// @brief Bytes one intensityKernel run moves: 8 per element.
  double bytes() const { return 8.0 * n_; }
  /// @brief Number of elements.
  int n() const { return n_; }
  /// @brief The input (n floats), for a launch of another kernel on it.
  const float *input() const { return in_.get(); }
  /// @brief The output (n floats) that check() and sample_check() look at.
  float *output() const { return out_.get(); }

 private:
  /// "" when every element of the output is k rounded FMAs of its input, else the first wrong one
  /// (computed by @p name).
  std::string compare(const std::string &name, int k, float a, float b, const std::string &ctx) const;
  /// The launch, for messages.
  std::string context(int k, float a, float b, unsigned block) const;

  cudalab::DeviceBuffer<float> in_, out_;
  int n_ = 0;
  std::uint64_t seed_ = 0;
  std::mt19937_64 rng_;                  ///< which input element the timed samples change, and to what
  std::pair<int, float> changed_{0, 0};  ///< the element the last sample got, and its value
};
