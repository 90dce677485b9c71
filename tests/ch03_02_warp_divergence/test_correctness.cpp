// ch03_02 correctness: mathKernel1..4 and heavyKernel2 against the CPU, for sizes that are not
// multiples of the block, with a poisoned output followed by a guard region.
#include "divergence.cuh"
#include "divergence_check.cuh"
#include "cudalab/testing.cuh"

#include <tuple>

namespace {

// One element, less than a warp, one more than a warp, not a multiple of any block, just over a
// power of two; each test adds a fresh random size from its seed.
const int kSizes[] = {1, 31, 33, 1000, 4097, (1 << 20) + 3};

struct MathCase {
  const char *name;
  MathKernel kernel;
  bool by_warp;  // even/odd warps (mathKernel2, 4) or even/odd threads (mathKernel1, 3)
};

class MathKernelCorrectness : public cudalab::GpuTest, public ::testing::WithParamInterface<MathCase> {};

TEST_P(MathKernelCorrectness, RightResultForAnyN) {
  const MathCase &mc = GetParam();
  std::vector<int> sizes(std::begin(kSizes), std::end(kSizes));
  sizes.push_back(1 + static_cast<int>(seed() % (1 << 20)));
  for (unsigned block : {64u, 256u, 1024u}) {
    for (int n : sizes) {
      const std::string error = math_error(mc.name, mc.kernel, mc.by_warp, n, block, seed());
      if (!error.empty()) GTEST_FAIL() << error;
    }
  }
}

const MathCase kMath[] = {{"mathKernel1", mathKernel1, false},
                          {"mathKernel2", mathKernel2, true},
                          {"mathKernel3", mathKernel3, false},
                          {"mathKernel4", mathKernel4, true}};

INSTANTIATE_TEST_SUITE_P(MathKernels, MathKernelCorrectness, ::testing::ValuesIn(kMath),
                         [](const auto &info) { return std::string(info.param.name); });

class HeavyCorrectness : public cudalab::GpuTest, public ::testing::WithParamInterface<unsigned> {};

TEST_P(HeavyCorrectness, SameResultsAsTheDivergentKernel) {
  const unsigned block = GetParam();
  std::vector<int> sizes(std::begin(kSizes), std::end(kSizes));
  sizes.push_back(1 + static_cast<int>(seed() % (1 << 20)));
  const int iters = 1 + static_cast<int>(seed() % 40);
  for (int n : sizes) {
    const std::string error = heavy_error("heavyKernel2", heavyKernel2, n, block, iters, seed() + n);
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

INSTANTIATE_TEST_SUITE_P(HeavyKernel, HeavyCorrectness, ::testing::Values(64u, 128u, 256u, 512u, 1024u),
                         [](const auto &info) { return "block" + std::to_string(info.param); });

}  // namespace
