/// @file reduce_check.cuh
/// @brief Test support for the reduction labs (ch03_10 .. ch03_14): run a reduction with the seeds'
/// contract on a guarded buffer and check every partial sum against the CPU.
#pragma once

#include "cudalab/test_support.cuh"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

/// Kernels with the seeds' signature (g_idata, g_odata, n).
using ReduceKernel = void (*)(int *, int *, unsigned int);

/// A launch of a reduction on (g_idata, g_odata, n) on the default stream; returns the launch
/// error (cudaGetLastError()).
using ReduceLaunch = std::function<cudaError_t(int *, int *, unsigned int)>;

/// What one reduction_error() run checks.
struct ReduceCase {
  const char *name;            ///< the kernel, as messages name it
  unsigned int n;              ///< elements to sum
  unsigned int chunk;          ///< elements each partial sum covers; ceil(n / chunk) partial sums
  std::string shape;           ///< the launch shape for messages ("block=256", "iDim=512")
  std::uint64_t seed;          ///< input seed
  std::string hint;            ///< what a wrong partial sum may mean, appended to its message
  bool read_only_input = false;  ///< g_idata must come back unchanged (else only its guard is checked)
  /// Where the kernel adds in place: the tree another kernel of the lab adds, which this one must
  /// not leave in g_idata (InPlaceTree::kAny: no check). Block-sized chunks only.
  enum class InPlaceTree { kAny, kNotInterleaved, kNotNeighbored } not_tree = InPlaceTree::kAny;
};

/// @brief "" unless g_idata after the kernel (@p after) shows, in every full block of @p block
/// elements of @p input, the first round of the tree @p tree names:
///  - kNotInterleaved: element t + block/2 added into element t, for t in [block/4, block/2) (the
///    elements no later round of reduceInterleaved writes);
///  - kNotNeighbored: element i + 1 added into element i, for every i = 2 mod 4 (the elements no
///    later round of reduceNeighbored or reduceNeighboredLess writes).
/// A kernel that sums in shared memory leaves g_idata as it was and shows neither tree. With
/// random input a match of every such element by chance has no realistic probability.
std::string shows_tree(const char *name, ReduceCase::InPlaceTree tree, const std::vector<int> &input,
                       const std::vector<int> &after, unsigned int n, unsigned int block);

/// @brief Runs @p launch once and returns what is wrong with its result ("" if nothing).
/// The input is n fresh random ints in [-1000, 1000] (from the case's seed) followed by a guard
/// region; g_odata is poisoned and has a guard region too. Checks: a launch or device-side error,
/// nothing written past n in g_idata (nothing at all with read_only_input) or past the last partial
/// sum in g_odata, every partial sum right (first wrong one named, expected vs actual), the total.
std::string reduction_error(const ReduceCase &c, const ReduceLaunch &launch);

/// @brief reduction_error() for a kernel whose block b sums elements [b*chunk, (b+1)*chunk),
/// launched as `launch` does it (shape "block=<block>").
std::string reduction_error(const char *name, const ReduceLaunch &launch, unsigned int n, unsigned int block,
                            unsigned int chunk, std::uint64_t seed);

/// @brief reduction_error() for `kernel<<<ceil(n / chunk), block>>>`.
std::string reduction_error(const char *name, ReduceKernel kernel, unsigned int n, unsigned int block,
                            unsigned int chunk, std::uint64_t seed);

/// @brief reduction_error(), failing the current test with the message if there is one.
void check_reduction(const char *name, ReduceKernel kernel, unsigned int n, unsigned int block, unsigned int chunk,
                     std::uint64_t seed);

/// @brief check_reduction() of a kernel that must not leave @p not_tree's pairs in g_idata
/// (block-sized chunks; shows_tree()).
void check_reduction(const char *name, ReduceKernel kernel, unsigned int n, unsigned int block, std::uint64_t seed,
                     ReduceCase::InPlaceTree not_tree);
