/// @file adjacent_check.cuh
/// @brief Test support for ch05_02: the naive baseline, the CPU reference, a check that runs a
/// kernel on a poisoned, guarded result and names the first wrong element (and whether it is a
/// block boundary), and an independent lane-by-lane model of the global loads.
#pragma once

#include "adjacent_difference.cuh"

#include "cudalab/test_support.cuh"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

/// Elements and block of the Nsight Compute profile (profile_target.cu, test_profile.cu).
constexpr int kProfileN = 1 << 24;
/// Block of the profile.
constexpr unsigned int kProfileBlock = kAdjacentBlock;
/// Poisoned ints after the result that a kernel must leave alone.
constexpr int kGuard = 64;

/// @brief adjacentDifferenceNaive as handed out, compiled into the tests so the baseline is the
/// same for every student. Launch with adjacent_difference_grid(n, block) blocks.
__global__ void adjacentDifferenceNaiveBaseline(const int *input, int *result, int n);

/// @brief CPU reference: result[0] = input[0], result[i] = input[i] - input[i - 1].
std::vector<int> cpu_adjacent_difference(const std::vector<int> &input);

/// Enqueues one adjacent-difference kernel on (input, result, n); grid, block and shared memory
/// are the launcher's business.
using AdjacentLaunch = std::function<void(const int *, int *, int)>;

/// @brief n random ints on the device with a result buffer (n + guard ints) behind them.
class AdjacentData {
 public:
  /// @brief Fresh random ints in [-1e9, 1e9] (so every difference fits an int) from @p seed; the
  /// input allocation holds exactly n ints, the result n + @p guard.
  cudaError_t init(int n, std::uint64_t seed, int guard = kGuard);
  /// @brief Poisons the result (guard included), runs @p launch once and compares with the CPU:
  /// "" if right, else one line naming @p name, the first wrong index (and whether it is a block
  /// boundary of @p block), expected and actual, or the first guard element written.
  std::string check(const std::string &name, const AdjacentLaunch &launch, unsigned int block);
  /// @brief The SampleCheck of @p name timed on this data with @p block threads per block (one
  /// launch a sample): prepare() gives one random input element a new value in [-1e9, 1e9] (on the
  /// host and the device) and poisons the result (guard included); verify() downloads the result and
  /// compares it with the CPU reference of the input as it is now, updated element by element (two
  /// results change with each input), and the guard with the poison. Keep this object alive while
  /// the check is in use.
  cudalab::SampleCheck sample_check(const std::string &name, unsigned int block);
  const int *input() const { return in_.get(); }  ///< device input, n ints
  int *result() const { return out_.get(); }      ///< device result, n + guard ints
  int n() const { return n_; }                    ///< number of elements
  /// @brief Bytes one pass moves: n ints read, n written.
  double bytes() const { return 2.0 * double(n_) * sizeof(int); }

 private:
  std::vector<int> host_;
  cudalab::DeviceBuffer<int> in_, out_;
  int n_ = 0;
  std::uint64_t seed_ = 0;
};

/// @brief Compares a downloaded result (@p got: n = input.size() elements, then poisoned guard
/// elements) with the CPU: "" if right, else one line naming @p name, the first wrong index (and
/// whether it is the first element of a block of @p block threads: a block boundary), expected and
/// actual, how many are wrong and how many of those at block boundaries; or the first guard
/// element that was written. @p context ("n=.. block=.. seed=..") ends the line.
std::string result_error(const std::string &name, const std::vector<int> &input, const std::vector<int> &got,
                         unsigned int block, const std::string &context);

/// @brief The global loads of both kernels by a lane-by-lane walk over every warp (independent
/// of the student's predict_global_loads; used to check it and to print the profile's prediction).
LoadCounts simulate_global_loads(long long n, unsigned int block);
