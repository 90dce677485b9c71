// ch05_02 correctness: adjacentDifferenceShared at every block boundary, for sizes that are and
// are not multiples of the block, for power-of-two and other blocks.
#include "adjacent_check.cuh"
#include "adjacent_difference.cuh"
#include "cudalab/testing.cuh"

#include <set>

namespace {

class SharedCorrectness : public cudalab::GpuTest, public ::testing::WithParamInterface<unsigned> {};

TEST_P(SharedCorrectness, RightAtEveryBlockBoundaryForAnyN) {
  const unsigned block = GetParam();
  // Tiny sizes, one block exactly, one element more or less, and a big ragged size.
  const std::set<int> sizes = {1,
                               2,
                               31,
                               33,
                               static_cast<int>(block) - 1,
                               static_cast<int>(block),
                               static_cast<int>(block) + 1,
                               2 * static_cast<int>(block) + 1,
                               1000003};
  for (int n : sizes) {
    if (n < 1) continue;
    AdjacentData d;
    CUDALAB_ASSERT_OK(d.init(n, seed() + n));
    const std::string error = d.check(
        "adjacentDifferenceShared",
        [&](const int *in, int *out, int count) { launch_adjacent_difference_shared(in, out, count, block); }, block);
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

INSTANTIATE_TEST_SUITE_P(Shared, SharedCorrectness, ::testing::Values(32u, 64u, 96u, 128u, 256u, 1000u, 1024u),
                         [](const auto &info) { return "block" + std::to_string(info.param); });

}  // namespace
