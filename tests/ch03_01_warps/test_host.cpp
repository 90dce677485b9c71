// ch03_01 host tests: warps per block, inactive lanes and registers per block, for the seeds'
// example, the shapes and fresh random shapes. No GPU needed (these also run in CI).
#include "warps.cuh"

#include "cudalab/testing.cuh"

#include <random>
#include <sstream>
#include <vector>

namespace {

std::string shape(dim3 b) {
  std::ostringstream os;
  os << b.x << "x" << b.y << "x" << b.z;
  return os.str();
}

// The shapes of the issue and the seeds, plus a few odd ones.
const dim3 kShapes[] = {{40, 2, 1}, {1, 1, 1},   {33, 1, 1}, {8, 8, 4},  {1024, 1, 1}, {32, 1, 1},
                        {31, 1, 1}, {16, 16, 1}, {7, 5, 3},  {1, 64, 1}, {3, 1, 11},   {1, 1, 64}};

/// Fresh random block shapes of at most 1024 threads (z at most 64), reproducible from the seed.
std::vector<dim3> random_shapes(std::uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  std::vector<dim3> out;
  while (static_cast<int>(out.size()) < count) {
    dim3 b(1 + rng() % 1024, 1 + rng() % 64, 1 + rng() % 64);
    if (b.x * b.y * b.z <= 1024) out.push_back(b);
  }
  return out;
}

/// Checks @p f against @p expected on every shape; returns the first mismatch as one line.
template <class F, class E>
::testing::AssertionResult all_shapes(const char *what, F f, E expected, std::uint64_t seed) {
  std::vector<dim3> shapes(std::begin(kShapes), std::end(kShapes));
  for (dim3 b : random_shapes(seed, 2000)) shapes.push_back(b);
  int wrong = 0;
  std::ostringstream first;
  for (dim3 b : shapes) {
    const long long want = expected(b), got = f(b);
    if (got != want && wrong++ == 0) first << what << "(" << shape(b) << ") returned " << got << ", expected " << want;
  }
  if (wrong == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << first.str() << "; " << wrong << " of " << shapes.size()
                                       << " block shapes wrong (seed=" << seed << ")";
}

long long threads(dim3 b) { return static_cast<long long>(b.x) * b.y * b.z; }

class WarpMath : public cudalab::HostTest {};

TEST_F(WarpMath, SeedsBlock40x2HasThreeWarpsAndSixteenInactiveLanes) {
  // 80 threads in 3 warps: 96 lanes, the last warp half empty.
  const dim3 b(40, 2);
  EXPECT_EQ(warps_per_block(b), 3) << "warps_per_block(40x2x1) returned " << warps_per_block(b) << ", expected 3";
  EXPECT_EQ(inactive_threads(b), 16) << "inactive_threads(40x2x1) returned " << inactive_threads(b)
                                     << ", expected 16 (96 lanes for 80 threads)";
}

TEST_F(WarpMath, WarpsPerBlockIsCeilOfThreadsOver32) {
  auto r = all_shapes(
      "warps_per_block", [](dim3 b) { return warps_per_block(b); }, [](dim3 b) { return (threads(b) + 31) / 32; },
      seed());
  if (!r) GTEST_FAIL() << r.message();
}

TEST_F(WarpMath, InactiveLanesAreTheEmptyRestOfTheLastWarp) {
  auto r = all_shapes(
      "inactive_threads", [](dim3 b) { return inactive_threads(b); },
      [](dim3 b) { return (32 - threads(b) % 32) % 32; }, seed());
  if (!r) GTEST_FAIL() << r.message();
}

TEST_F(WarpMath, RegistersAreAllocatedForWholeWarps) {
  // 40x2 at 32 registers/thread: 3 warps x 1024 = 3072 registers, though 80 threads use 2560.
  EXPECT_EQ(registers_per_block(dim3(40, 2), 32), 3072)
      << "registers_per_block(40x2x1, 32 regs/thread) returned " << registers_per_block(dim3(40, 2), 32)
      << ", expected 3072 (3 warps x 32 lanes x 32): inactive lanes get registers too";
  // 33 threads at 37 registers: 37 x 32 = 1184 rounds up to 1280 per warp, 2 warps.
  EXPECT_EQ(registers_per_block(dim3(33), 37), 2560)
      << "registers_per_block(33x1x1, 37 regs/thread) returned " << registers_per_block(dim3(33), 37)
      << ", expected 2560 (2 warps x roundup(37 x 32, 256) = 2 x 1280)";
  // 0 registers give 0; fixed counts around the 8-register (256 per warp) steps; fresh random ones.
  std::vector<int> regs_list = {0, 1, 7, 8, 9, 16, 24, 33, 40, 64, 96, 128, 255};
  std::mt19937_64 rng(seed());
  for (int i = 0; i < 8; ++i) regs_list.push_back(1 + static_cast<int>(rng() % 255));
  for (int regs : regs_list) {
    auto r =
        all_shapes(("registers_per_block[" + std::to_string(regs) + " regs/thread]").c_str(),
                   [regs](dim3 b) { return registers_per_block(b, regs); },
                   [regs](dim3 b) { return (threads(b) + 31) / 32 * ((regs * 32 + 255) / 256 * 256); }, seed() + regs);
    if (!r) GTEST_FAIL() << r.message();
  }
}

}  // namespace
