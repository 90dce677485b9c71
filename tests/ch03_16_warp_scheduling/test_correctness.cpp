// ch03_16 correctness: chainsInterleaved must give chainsSequential's results bit for bit, for any
// n, steps, grid and block size (grid-stride), and write nothing past out[n - 1].
#include "scheduling_check.cuh"
#include "warp_scheduling.cuh"
#include "cudalab/testing.cuh"

#include <random>

namespace {

class ChainsCorrectness : public cudalab::GpuTest {
 protected:
  void expect_right(int n, int steps, unsigned int grid, unsigned int block) {
    const std::string error = chains_error("chainsInterleaved", chainsInterleaved, n, steps, grid, block, 0, seed() + n);
    EXPECT_TRUE(error.empty()) << error;
  }
};

TEST_F(ChainsCorrectness, BitExactOnRaggedSizesGridsAndBlocks) {
  const unsigned int sms = unsigned(device().sm_count);
  // One thread for everything; a grid smaller than n (several grid-stride passes); exactly one
  // element per thread; more threads than elements; blocks of 1, 3 and 32 warps and a partial warp.
  expect_right(1, 37, 1, 1);
  expect_right(1000, 37, 1, 32);
  expect_right(4097, 61, 3, 96);
  expect_right(int(sms) * 128, 50, sms, 128);
  expect_right(1000, 41, 64, 128);
  expect_right(3001, 29, 2, 1024);
  expect_right(777, 33, 5, 33);
  std::mt19937_64 gen(seed());
  for (int k = 0; k < 4; ++k) {
    const int n = 1 + int(gen() % 20000), steps = 1 + int(gen() % 200);
    const unsigned int block = 32u * unsigned(1 + gen() % 8), grid = 1u + unsigned(gen() % (2 * sms));
    expect_right(n, steps, grid, block);
  }
}

TEST_F(ChainsCorrectness, NoElementsAndFewSteps) {
  expect_right(0, 100, 4, 128);     // nothing to do, nothing written
  expect_right(500, 0, 4, 128);     // zero steps: out = x0
  expect_right(500, 1, 4, 128);     // one step
  expect_right(500, 3, 4, 128);     // fewer steps than any unrolling
  expect_right(500, 17, 4, 128);    // not a multiple of 2, 4, 8 or 16
  expect_right(500, 1001, 4, 128);  // long, odd
}

}  // namespace
