/// @file matmul_check.cuh
/// @brief Test support for ch05_04: run a matrix multiplication on fresh random inputs and compare
/// it with a double-precision CPU reference under a proven error bound; a big problem for the
/// performance tests, checked on a sample of entries.
#pragma once

#include "cudalab/buffer.cuh"
#include "cudalab/timing.cuh"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

/// Launches one product ab = a x b on device pointers (a, b, ab, M, N, K); returns the launch error.
using MatmulLaunch = std::function<cudaError_t(const float *, const float *, float *, int, int, int)>;

/// Unit roundoff of float: 2^-24.
constexpr double kFloatU = 1.0 / 16777216.0;

/// @brief The largest error a correct float kernel may make in an element of ab, as a fraction of
/// that element's sum_k |a_ik| |b_kj|: 2 K u (see the proof in matmul_check.cpp).
double matmul_tolerance(int K);

/// @brief Runs @p launch once on fresh random a (M x K) and b (K x N) in [-1, 1) from @p seed, with
/// ab poisoned and followed by @p guard poisoned floats, and compares every element with the CPU.
/// Returns "" if right, otherwise one line: the launch or execution error, a write past element
/// M*N - 1, or the first wrong (row, col) with expected and actual values (and whether it was never
/// written), the error against the tolerance, and how many elements are wrong. @p config (e.g.
/// "tile=16") goes into the message with the sizes and the seed. With @p guard = 0 the buffers have
/// exactly their sizes (for compute-sanitizer memcheck).
std::string matmul_error(const std::string &name, const MatmulLaunch &launch, int M, int N, int K,
                         const std::string &config, std::uint64_t seed, std::size_t guard = 4096);

/// @brief A big product for the performance tests: random a and b on the host (for the sampled
/// reference) and on the device.
class BigGemm {
 public:
  /// @brief Fills a (M x K) and b (K x N) with random floats in [-1, 1) from @p seed, uploads them
  /// and allocates ab.
  cudaError_t init(int M, int N, int K, std::uint64_t seed);
  /// @brief Poisons ab, runs @p launch once and checks it: no element may still be poison, and
  /// 2000 sampled entries (random, plus the four corners) must lie within @p tolerance (a fraction
  /// of sum_k |a_ik| |b_kj|, as matmul_tolerance) of the double-precision reference. Returns ""
  /// if right; the largest error found (as that fraction) goes to @p max_error when not null.
  std::string check(const std::string &name, const MatmulLaunch &launch, const std::string &config, double tolerance,
                    double *max_error = nullptr);
  /// @brief The SampleCheck (cudalab/timing.cuh) of @p name timed on this product, one launch a
  /// sample. prepare(): one random element a[i][k] with |a[i][k]| >= 0.5 gets a value of the other
  /// sign with magnitude in [0.5, 1) (on the host and the device), so row i of ab moves by 1 to 2
  /// times |b[k][j]|, beyond @p tolerance (as in check()) in about half of its columns; ab is
  /// poisoned. verify(): ab downloaded, no element still poison, row i of the latest change and 200
  /// random elements within @p tolerance of the double-precision reference of a and b as they are
  /// now. @p config goes into the messages. Keep this object alive while the check is in use.
  cudalab::SampleCheck sample_check(const std::string &name, const std::string &config, double tolerance);
  const float *a() const { return a_.get(); }  ///< device a
  const float *b() const { return b_.get(); }  ///< device b
  float *ab() const { return ab_.get(); }      ///< device ab
  int M() const { return M_; }                 ///< rows of a and ab
  int N() const { return N_; }                 ///< columns of b and ab
  int K() const { return K_; }                 ///< columns of a, rows of b
  /// @brief 2 M N K floating-point operations per product.
  double flops() const { return 2.0 * M_ * N_ * K_; }

 private:
  std::vector<float> ha_, hb_;
  cudalab::DeviceBuffer<float> a_, b_, ab_;
  int M_ = 0, N_ = 0, K_ = 0;
  std::uint64_t seed_ = 0;
};
