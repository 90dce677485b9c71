/// @file transpose_check.cuh
/// @brief Test support for ch05_05: the CPU reference, a check that runs a transpose on a
/// poisoned, guarded output and names the first wrong element by (row, column), the tests' own 2D
/// copy baseline (the same launch shape and bytes as the transposes), and an independent
/// brute-force model of bank conflicts.
#pragma once

#include "bank_conflicts.cuh"

#include "cudalab/test_support.cuh"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

/// Input of the Nsight Compute profile (profile_target.cu, test_profile.cu): 2048 x 2048 floats,
/// whole tiles only, so the model's counts are exact.
constexpr int kProfileRows = 2048;
/// Columns of the profile's input.
constexpr int kProfileCols = 2048;
/// Poisoned floats after the output that a kernel must leave alone.
constexpr int kGuard = 64;

/// @brief The tests' copy baseline: out[r][c] = in[r][c] with the transposes' launch shape
/// (transpose_grid(rows, cols) blocks of 32 x 8 threads, four rows per thread): the same bytes,
/// the same elements per thread, both sides coalesced. Written here, never taken from a lab.
__global__ void copyTiledBaseline(const float *in, float *out, int rows, int cols);

/// Floats between the outputs of two back-to-back launches of one timed run (TransposeData::
/// sample_output): 4 KiB, so every launch's output stays as aligned as output() itself.
constexpr int kLaunchShift = 1024;

/// @brief Enqueues one transpose on (in, out, rows, cols); grid and block are the launcher's.
using TransposeLaunch = std::function<void(const float *, float *, int, int)>;

/// @brief A random rows x cols input on the device and an output of rows * cols + guard floats.
class TransposeData {
 public:
  /// @brief Fresh random floats in [-1000, 1000] from @p seed; the input holds exactly
  /// rows * cols floats, the output rows * cols + @p guard.
  cudaError_t init(int rows, int cols, std::uint64_t seed, int guard = kGuard);
  /// @brief Poisons the output (guard included), runs @p launch once and compares with the CPU:
  /// "" if right, else one line naming @p name, the first wrong output element as out[c][r]
  /// (= in[r][c]), expected and actual, whether it was never written, how many are wrong; or the
  /// first guard element written.
  std::string check(const std::string &name, const TransposeLaunch &launch);
  /// @brief The SampleCheck (cudalab/timing.cuh) of @p name timed on this data with @p launches
  /// launches a timed run (TimingOptions::launches), each of which writes where sample_output()
  /// says: launch l of a run at output() + l * kLaunchShift. Launch l + 1 overwrites all of launch
  /// l's output but its first kLaunchShift floats, so after the run those show every launch's work,
  /// and the last launch's output is there in full; the output must have been allocated with
  /// init(..., sample_guard(launches)). prepare() gives one random input element a new value in
  /// [-1000, 1000] (on the host and the device), poisons the output (guard included) and starts the
  /// run at launch 0; verify() downloads the output and compares what each launch left with the
  /// transposed input as it is now (kept up to date element by element), and the rest of the guard
  /// with the poison. Keep this object alive while the check is in use.
  cudalab::SampleCheck sample_check(const std::string &name, int launches = 1);
  /// @brief Guard for init() that leaves room for @p launches shifted outputs (sample_check).
  static int sample_guard(int launches) { return kGuard + (launches - 1) * kLaunchShift; }
  /// @brief Where the next launch of a timed run writes (see sample_check): output() for the first.
  float *sample_output() { return out_.get() + static_cast<std::size_t>(next_launch_++) * kLaunchShift; }
  const float *input() const { return in_.get(); }  ///< device input, rows x cols
  float *output() const { return out_.get(); }      ///< device output, cols x rows (+ guard)
  int rows() const { return rows_; }                ///< input rows
  int cols() const { return cols_; }                ///< input columns
  /// @brief Bytes one pass moves: every float read once and written once.
  double bytes() const { return 2.0 * double(rows_) * double(cols_) * sizeof(float); }

 private:
  std::vector<float> host_;
  cudalab::DeviceBuffer<float> in_, out_;
  int rows_ = 0, cols_ = 0;
  std::uint64_t seed_ = 0;
  int next_launch_ = 0;  ///< launch of the current timed run (sample_output)
};

/// @brief Brute-force model of one warp-wide access (independent of the student's code): for
/// each of the 32 banks the number of distinct words among @p words that lie in it (word w in
/// bank ((w % 32) + 32) % 32), the largest of them; 0 for no words.
int model_conflict_degree(const std::vector<long long> &words);

/// @brief Bank conflicts (extra wavefronts) of the shared loads of transposeShared on a
/// rows x cols input that is whole tiles, counted warp by warp with model_conflict_degree:
/// per warp load instruction, degree - 1. @p row_stride is the tile's row stride in words (32: the
/// unpadded tile; 33: the padded one). Also returns the number of warp load instructions.
long long model_tile_read_conflicts(int rows, int cols, int row_stride, long long *warp_loads = nullptr);
