// ch03_10 correctness: every kernel, every block size, sizes that are not multiples of the block.
#include "baseline.cuh"
#include "reduction.cuh"
#include "cudalab/testing.cuh"

#include <tuple>

namespace {

struct KernelCase {
  const char *name;
  ReduceKernel kernel;
  ReduceCase::InPlaceTree not_tree;  ///< the other technique's pairs, which it must not leave in g_idata
};

// 1 element, less than a warp, one more than a warp, not a multiple of any block, just over a
// power of two, and the book's 2^24 plus a ragged tail.
const unsigned int kSizes[] = {1, 31, 33, 1000, 4097, (1u << 20) + 3, (1u << 24) + 7};

class ReduceCorrectness : public cudalab::GpuTest,
                          public ::testing::WithParamInterface<std::tuple<KernelCase, unsigned int>> {};

TEST_P(ReduceCorrectness, PartialSumsRightForAnyN) {
  const auto &[kc, block] = GetParam();
  for (unsigned int n : kSizes) {
    check_reduction(kc.name, kc.kernel, n, block, seed() + n, kc.not_tree);
    if (HasFailure()) return;  // the first wrong size is the one to look at
  }
}

// Neighbour pairs and interleaved pairs leave different partial sums in g_idata (shows_tree): a
// kernel whose additions are the other technique's fails, whatever its code looks like.
const KernelCase kKernels[] = {{"reduceNeighbored", reduceNeighbored, ReduceCase::InPlaceTree::kNotInterleaved},
                               {"reduceNeighboredLess", reduceNeighboredLess, ReduceCase::InPlaceTree::kNotInterleaved},
                               {"reduceInterleaved", reduceInterleaved, ReduceCase::InPlaceTree::kNotNeighbored}};

INSTANTIATE_TEST_SUITE_P(Reduce, ReduceCorrectness,
                         ::testing::Combine(::testing::ValuesIn(kKernels),
                                            ::testing::Values(64u, 128u, 256u, 512u, 1024u)),
                         [](const auto &info) {
                           return std::string(std::get<0>(info.param).name) + "_block" +
                                  std::to_string(std::get<1>(info.param));
                         });

}  // namespace
