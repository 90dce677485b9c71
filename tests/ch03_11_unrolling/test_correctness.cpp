// ch03_11 correctness: every kernel, every block size, sizes that are not multiples of the chunk
// (factor x block) -- where the book's `idx + 7 * blockDim.x < n` drops the tail.
#include "baseline.cuh"
#include "unrolling.cuh"
#include "cudalab/testing.cuh"

#include <tuple>

namespace {

struct KernelCase {
  const char *name;
  ReduceKernel kernel;
  unsigned int factor;  // data blocks per thread block: the grid shrinks by this
};

// 1 element, less than a warp, one more than a warp, not a multiple of any chunk, just over a
// power of two, one element short of eight 512-blocks, and the book's 2^24 plus a ragged tail.
const unsigned int kSizes[] = {1, 31, 33, 1000, 4097, 8 * 512 - 1, (1u << 20) + 3, (1u << 24) + 7};

class UnrollCorrectness : public cudalab::GpuTest,
                          public ::testing::WithParamInterface<std::tuple<KernelCase, unsigned int>> {};

TEST_P(UnrollCorrectness, PartialSumsRightForAnyN) {
  const auto &[kc, block] = GetParam();
  for (unsigned int n : kSizes) {
    check_reduction(kc.name, kc.kernel, n, block, block * kc.factor, seed() + n);
    if (HasFailure()) return;  // the first wrong size is the one to look at
  }
}

const KernelCase kKernels[] = {{"reduceUnrolling2", reduceUnrolling2, 2},
                               {"reduceUnrolling4", reduceUnrolling4, 4},
                               {"reduceUnrolling8", reduceUnrolling8, 8},
                               {"reduceUnrollWarps8", reduceUnrollWarps8, 8},
                               {"reduceCompleteUnrollWarps8", reduceCompleteUnrollWarps8, 8}};

INSTANTIATE_TEST_SUITE_P(Unroll, UnrollCorrectness,
                         ::testing::Combine(::testing::ValuesIn(kKernels),
                                            ::testing::Values(64u, 128u, 256u, 512u, 1024u)),
                         [](const auto &info) {
                           return std::string(std::get<0>(info.param).name) + "_block" +
                                  std::to_string(std::get<1>(info.param));
                         });

}  // namespace
