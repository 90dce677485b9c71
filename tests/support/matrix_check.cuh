/// @file matrix_check.cuh
/// @brief Test support for the sumMatrix labs (ch03_07, ch03_08, ch03_09): run a kernel on a small
/// guarded matrix and compare with the CPU; a big matrix for the performance tests with a device-side
/// check, and the copy of the same number of bytes that the bandwidth ratios are measured against.
#pragma once

#include "cudalab/test_support.cuh"

#include <cstdint>
#include <functional>
#include <string>

/// Launches one sumMatrix kernel on (A, B, C, nx, ny); grid and block are the launcher's business.
using MatrixLaunch = std::function<void(const float *, const float *, float *, int, int)>;

/// @brief Runs @p launch once on nx x ny fresh random floats (from @p seed) and returns what is
/// wrong ("" if nothing): a launch or execution error, a write past element nx*ny - 1 (C is
/// followed by a poisoned guard region), or the first element (ix, iy) where C != A + B.
/// @p config ("block=(32,16)") goes into the message with nx, ny and the seed.
/// With @p in_place, C is A itself (launch(C, B, C, ...), A's values copied into C first): right
/// only if every element is read and written by its own thread alone.
std::string sum_matrix_error(const std::string &name, const MatrixLaunch &launch, int nx, int ny,
                             const std::string &config, std::uint64_t seed, bool in_place = false);

/// @brief "(32,16)" for a block or grid shape.
std::string shape(dim3 d);

/// @brief The side of the square matrices of a timed test: the seeds' 16384 (three 1 GiB
/// matrices) where they fit in the free memory (cudalab::free_device_memory(), with 256 MiB to
/// spare), else 8192 (three 256 MiB matrices), so that a GPU with 3.5 GiB free grades the same
/// tests. Either way a run streams at least 768 MiB, more than 6x the largest L2 of
/// cudalab/arch.hpp. Decided once per test program; prints the choice when it is 8192.
int timed_matrix_side();

/// @brief "three 16384 x 16384 float matrices (1 GiB each)" for side @p n: what a timed test needs.
std::string timed_matrices(int n);

/// @brief A big matrix on the device for the performance tests: A, B and C in one allocation
/// (A | B | C), filled on the device from a seed, so 16384 x 16384 needs no host copy.
class BigMatrix {
 public:
  /// @brief Allocates and fills A and B with random floats in [-1, 1) from @p seed.
  cudaError_t init(int nx, int ny, std::uint64_t seed);
  /// @brief Poisons C, runs @p launch once and checks every element on the device: "" if
  /// C == A + B everywhere, else the first wrong (ix, iy) with expected and actual values.
  std::string check(const std::string &name, const MatrixLaunch &launch, const std::string &config);
  /// @brief The SampleCheck (cudalab/timing.cuh) of a timed C = A + B on this matrix (after check()):
  /// before every sample one random element of A gets a new value in [-1, 1) and C is poisoned;
  /// verify() checks every element of C on the device (exactly, as check() does) against A + B,
  /// with A as the samples changed it and B as init() filled it, and checks that A holds exactly
  /// those values. @p config ("block=(32,16)") goes into its messages, as in check(); init()'s seed
  /// decides where the changes go. The check must not outlive this matrix.
  cudalab::SampleCheck sample_check(const std::string &name, const std::string &config);
  /// @brief Enqueues a device-to-device copy that moves as many bytes as one sumMatrix pass
  /// (1.5 n floats read, 1.5 n written): the first half of A | B | C onto the second half.
  /// It overwrites B and C; use it only for timing, after check().
  void copy_same_traffic() const;
  /// @brief Enqueues the same-structure baseline of the timed tests (cudalab/baselines.cuh):
  /// C = A + B as a flat 1D grid of @p block threads, one element per thread -- the same bytes
  /// as one sumMatrix pass, the simplest indexing. It overwrites C only.
  void stream_same_traffic(int block = 256) const;
  /// @brief Device bytes init(nx, ny) allocates: A, B and C.
  static std::size_t bytes_for(int nx, int ny) { return 3 * std::size_t(nx) * std::size_t(ny) * sizeof(float); }
  /// @brief Bytes one sumMatrix pass moves: read A and B, write C.
  double bytes() const { return 3.0 * double(n_) * sizeof(float); }
  std::size_t n() const { return n_; }                ///< elements per matrix (nx * ny)
  const float *A() const { return buf_.get(); }       ///< device pointer to A
  const float *B() const { return buf_.get() + n_; }  ///< device pointer to B
  float *C() const { return buf_.get() + 2 * n_; }    ///< device pointer to C
  int nx() const { return nx_; }                      ///< columns (contiguous dimension)
  int ny() const { return ny_; }                      ///< rows

 private:
  cudalab::DeviceBuffer<float> buf_;
  int nx_ = 0, ny_ = 0;
  std::size_t n_ = 0;
  std::uint64_t seed_ = 0;
};

/// @brief A matrix past the 32-bit index range, sized to the GPU's free memory (for the tests of
/// the "64-bit index" promise): 65536 x 65537 floats (2^32 + 65536 elements, 3 x 16 GiB) when
/// they fit, else 65536 x 32769 (2^31 + 65536 elements, 3 x 8 GiB), else none.
struct HugeMatrixPlan {
  int nx = 0, ny = 0;  ///< 0 x 0: the GPU lacks the memory (see skip)
  std::string skip;    ///< why no size fits ("" when nx > 0)
  std::string note;    ///< what the chosen size can and cannot catch (printed by the test)
};

/// @brief Chooses the HugeMatrixPlan from cudaMemGetInfo (three matrices plus 1 GiB to spare).
HugeMatrixPlan plan_huge_matrix();

/// @brief Runs @p launch once on the planned huge matrix (fresh random A and B from @p seed, C
/// poisoned) and checks every element on the device: "" when right, else the first wrong
/// (ix, iy) -- an index computed in 32 bits leaves the rows past 2^31 (or 2^32) elements unwritten.
/// Prints the size and the plan's note. @p launch gets (A, B, C, nx, ny).
std::string huge_matrix_error(const std::string &name, const HugeMatrixPlan &plan, const MatrixLaunch &launch,
                              const std::string &config, std::uint64_t seed);
