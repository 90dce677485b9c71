/// @file layout_check.cuh
/// @brief Test support for ch04_02: the handed-out AoS kernel as a fixed baseline, particles on the
/// device in both layouts, and checks that run the student's kernels once and say what is wrong.
#pragma once

#include "coalescing.cuh"

#include "cudalab/test_support.cuh"

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

/// @brief testInnerStruct as handed out: the baseline of the performance and profiler tests, the
/// same for every student. Launch with grid_1d(n, block).
__global__ void testInnerStructBaseline(const innerStruct *data, innerStruct *result, int n);

/// @brief The same-structure baseline of the SoA timing: rx[i] = x[i], ry[i] = y[i] for i < n, one
/// particle per thread on a flat 1D grid -- two 4-byte loads and two 4-byte stores per thread, the
/// same bytes and bytes in flight as testInnerArray, written as simply as possible. Launch with
/// grid_1d(n, block).
__global__ void soaStreamBaseline(const float *x, const float *y, float *rx, float *ry, int n);

/// @brief Fills @p aos[i] from the fields of @p soa (test-side, not timed).
__global__ void packParticles(innerArray soa, innerStruct *aos, int n);

/// Names of the eight fields of innerStruct / innerArray, in declaration order.
extern const char *const kFieldNames[8];

/// @brief Particles as a structure of arrays on the device: eight separate allocations of
/// n + guard floats each (guard = 0: exactly n, so memcheck sees any access past the end).
class DeviceParticles {
 public:
  /// @brief Allocates the eight fields.
  cudaError_t allocate(int n, int guard);
  /// @brief Uploads @p values (n + guard floats) into field @p f.
  cudaError_t upload(int f, const std::vector<float> &values);
  /// @brief Fills every field with poison bytes.
  cudaError_t poison();
  /// @brief Downloads field @p f.
  cudaError_t download(int f, std::vector<float> *out) const { return field_[f].download(out); }
  /// @brief Device pointer of field @p f.
  float *field(int f) const { return field_[f].get(); }
  /// @brief The struct of pointers the kernels take.
  innerArray view() const;
  /// @brief Floats per field (n + guard).
  std::size_t size() const { return field_[0].size(); }

 private:
  cudalab::DeviceBuffer<float> field_[8];
};

/// @brief Runs readWriteOffset once on n fresh random floats (from @p seed) with the given
/// @p offset and @p block, A, B and C each followed by @p guard floats (A's and B's random, C's
/// poisoned), and returns what is wrong ("" if nothing): a launch or execution error, a wrong or
/// unwritten C[k] for offset <= k < n, or a write to C[k] outside [offset, n).
std::string read_write_offset_error(int n, int offset, unsigned int block, int guard, std::uint64_t seed);

/// @brief Runs testInnerArray once on n particles with fresh random fields (from @p seed), every
/// field followed by @p guard floats, the result poisoned, and returns what is wrong ("" if
/// nothing): a launch error, a wrong or unwritten result.x[i] / result.y[i] for i < n, a write past
/// n, or a write to any other field of result.
std::string inner_array_error(int n, unsigned int block, int guard, std::uint64_t seed);

/// @brief The big inputs of the performance tests: n particles in both layouts, x and y random.
class BigParticles {
 public:
  /// @brief Allocates data and result in both layouts (4 x 32 bytes per particle) and fills data.
  cudaError_t init(int n, std::uint64_t seed);
  /// @brief Poisons the SoA result, runs testInnerArray once with @p block and checks x and y of
  /// every particle: "" when right, else the first wrong index with expected and actual values.
  std::string check(unsigned int block);
  /// @brief check() for another launch of the same update (the reference solution's
  /// testInnerArray) from soa_data() into soa_result(): poisons the result, calls @p launch once
  /// (@p block for the messages) and checks x and y of every particle; failures are named @p name.
  std::string check_launch(const std::string &name, const std::function<void()> &launch, unsigned int block);
  /// @brief The check of the timed samples of testInnerArray (block @p block) on the SoA buffers:
  /// before every sample one random particle gets a new x or y in [-100, 100) (both layouts) and
  /// result.x and result.y are poisoned; after a checked sample every particle's x + 10 and y + 20
  /// are compared with the result on the device, bit for bit, as check() does on the CPU.
  cudalab::SampleCheck sample_check(unsigned int block);
  /// @brief Enqueues soaStreamBaseline (block @p block) from the SoA data's x and y into the AoS
  /// result's memory (2 x n floats, unused by the SoA kernel): as many bytes as one testInnerArray
  /// pass, 8 read and 8 written per particle. Use it only for timing, after check().
  void stream_same_traffic(unsigned int block) const;
  /// @brief Bytes one pass of either kernel must move: x and y read, x and y written.
  double bytes() const { return 16.0 * double(n_); }
  const innerStruct *aos_data() const { return aos_data_.get(); }  ///< AoS input
  innerStruct *aos_result() const { return aos_result_.get(); }    ///< AoS output
  innerArray soa_data() const { return soa_data_.view(); }         ///< SoA input
  innerArray soa_result() const { return soa_result_.view(); }     ///< SoA output
  int n() const { return n_; }                                     ///< particles

 private:
  int n_ = 0;
  std::uint64_t seed_ = 0;
  std::vector<float> x_, y_;
  std::mt19937_64 rng_;    ///< which particle the timed samples change, and to what
  int changed_field_ = 0;  ///< the field (0: x, 1: y) the last sample got changed
  int changed_index_ = 0;  ///< and the particle
  cudalab::DeviceBuffer<innerStruct> aos_data_, aos_result_;
  DeviceParticles soa_data_, soa_result_;
};
