// ch03_02 performance: heavyKernel2 (no divergent warp) against the divergent baseline
// (heavyKernel1's code, compiled into the tests), side by side on the same input.
#include "divergence.cuh"
#include "divergence_check.cuh"
#include "cudalab/testing.cuh"

namespace {

class HeavyPerformance : public cudalab::GpuTest {};

TEST_F(HeavyPerformance, WarpUniformKernelBeatsDivergentBaseline) {
  // 2^24 elements (the seeds' size), block 256, arms of 256 dependent FMAs: compute-bound.
  const int n = 1 << 24, iters = 256;
  const unsigned block = 256, grid = divergence_grid(n, block);
  // Correct first, on the input that is timed: a kernel that does nothing is fast, and earns nothing.
  const std::string error = heavy_error("heavyKernel2", heavyKernel2, n, block, iters, seed());
  if (!error.empty()) GTEST_FAIL() << "heavyKernel2 is not timed until it is correct: " << error;
  std::vector<float> input = heavy_input(n, seed());
  cudalab::DeviceBuffer<float> in, out;
  CUDALAB_ASSERT_OK(in.upload(input));
  CUDALAB_ASSERT_OK(out.allocate(n));
  cudalab::TimingOptions opts;
  opts.reps = 31;
  // Every sample of heavyKernel2 gets a changed input and a poisoned output; a random share of them
  // is checked against the CPU.
  opts.check = heavy_sample_check("heavyKernel2", std::move(input), in.get(), out.get(), block, iters, seed());
  cudalab::Comparison cmp =
      cudalab::compare_kernels([&] { heavyDivergentBaseline<<<grid, block>>>(in.get(), out.get(), n, iters); },
                               [&] { heavyKernel2<<<grid, block>>>(in.get(), out.get(), n, iters); }, opts);
  cudalab::expect_speedup({"heavyKernel2", "the divergent baseline (heavyKernel1)", cmp,
                           cudalab::threshold("warp_uniform_speedup"), "warp_uniform_speedup"});
}

}  // namespace
