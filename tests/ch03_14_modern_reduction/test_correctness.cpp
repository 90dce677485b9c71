// ch03_14 correctness: reduceShuffle8 for every block size, reduceModern for any n, any alignment
// of the input and any grid size.
#include "modern_check.cuh"
#include "modern_reduction.cuh"
#include "cudalab/testing.cuh"

namespace {

// 1 element, less than a warp, one more than a warp, not a multiple of any chunk, just over a
// power of two, and 2^24 plus a ragged tail.
const unsigned int kSizes[] = {1, 31, 33, 1000, 4097, (1u << 20) + 3, (1u << 24) + 7};

class ReduceShuffle8 : public cudalab::GpuTest, public ::testing::WithParamInterface<unsigned int> {};

TEST_P(ReduceShuffle8, PartialSumsRightForAnyN) {
  const unsigned int block = GetParam();
  for (unsigned int n : kSizes) {
    const std::string error = shuffle8_error(n, block, seed() + n);
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

INSTANTIATE_TEST_SUITE_P(Shuffle8, ReduceShuffle8, ::testing::Values(64u, 128u, 256u, 512u, 1024u),
                         [](const auto &info) { return "block" + std::to_string(info.param); });

class ReduceModern : public cudalab::GpuTest, public ::testing::WithParamInterface<unsigned int> {};

// The input starts 0, 1, 2 or 3 ints past a 16-byte boundary: the int4 loop must not start
// before the first boundary, and neither the head nor the tail may be lost or read twice.
TEST_P(ReduceModern, SumRightForAnyNAtThisAlignment) {
  const unsigned int offset = GetParam();
  for (unsigned int n :
       {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 31u, 33u, 1000u, 4097u, (1u << 20) + 3, (1u << 24) + 7}) {
    const std::string error = modern_error(n, offset, 0, seed() + n);
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

INSTANTIATE_TEST_SUITE_P(Modern, ReduceModern, ::testing::Values(0u, 1u, 2u, 3u),
                         [](const auto &info) { return "offset" + std::to_string(info.param); });

class ReduceModernGrid : public cudalab::GpuTest {};

// The grid-stride loop must cover the input for any grid: one block, a few, more blocks than a
// wave, and more threads than int4 groups.
TEST_F(ReduceModernGrid, SumRightForAnyGridSize) {
  const unsigned int n = (1u << 20) + 5;
  for (unsigned int grid : {1u, 7u, 1000u, 5000u}) {
    const std::string error = modern_error(n, 3, grid, seed() + grid);
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

}  // namespace
