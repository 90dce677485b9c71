// ch03_02 performance: heavyKernel2 (no divergent warp) side by side with the reference solution's
// heavyKernel2, compiled into the tests; where the reference cannot run, against the divergent
// baseline (heavyKernel1's code, compiled into the tests), as the lesson measures it.
#include "divergence.cuh"
#include "divergence_check.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/reference_kernels.hpp"
#include "cudalab/testing.cuh"

#include <cstdio>
#include <functional>
#include <string>

namespace {

class HeavyPerformance : public cudalab::GpuTest {};

TEST_F(HeavyPerformance, WarpUniformKernelBeatsDivergentBaseline) {
  // 2^24 elements (the seeds' size), block 256, arms of 256 dependent FMAs: compute-bound.
  const int n = 1 << 24, iters = 256;
  const unsigned block = 256, grid = divergence_grid(n, block);
  // Correct first, on the input that is timed: a kernel that does nothing is fast, and earns nothing.
  const std::string error = heavy_error("heavyKernel2", heavyKernel2, n, block, iters, seed());
  if (!error.empty()) GTEST_FAIL() << "heavyKernel2 is not timed until it is correct: " << error;

  // The reference solution's heavyKernel2, launched as the lab's contract says, after one run on
  // this input checked like yours: about 1.0 for a correct kernel on any GPU.
  using Reference = cudalab::RefKernel<const float *, float *, int, int>;
  const Reference reference =
      cudalab::checked_reference_kernel(heavyKernel2, "_Z12heavyKernel2PKfPfii", [&](const Reference &k) {
        return heavy_error(
            "the reference solution's heavyKernel2",
            [&](const float *in, float *out, int count, int steps) {
              return k.launch(grid, block, 0, nullptr, in, out, count, steps);
            },
            n, block, iters, seed());
      });
  const char *const baseline_name = "the divergent baseline (heavyKernel1)";
  if (!reference) {
    if (const std::string f = cudalab::reference_fallback("heavyKernel2", baseline_name, reference.why_not());
        !f.empty())
      GTEST_FAIL() << f;
  }

  std::vector<float> input = heavy_input(n, seed());
  cudalab::DeviceBuffer<float> in, out;
  CUDALAB_ASSERT_OK(in.upload(input));
  CUDALAB_ASSERT_OK(out.allocate(n));
  cudalab::TimingOptions opts;
  opts.reps = 31;
  // Every sample of heavyKernel2 gets a changed input and a poisoned output; a random share of them
  // is checked against the CPU.
  opts.check = heavy_sample_check("heavyKernel2", std::move(input), in.get(), out.get(), block, iters, seed());
  const std::function<void()> divergent = [&] {
    cudalab::launch(heavyDivergentBaseline, grid, block)(in.get(), out.get(), n, iters);
  };
  const auto yours = [&] { cudalab::launch(heavyKernel2, grid, block)(in.get(), out.get(), n, iters); };
  if (!reference) {
    opts.stop_when_clear_of = cudalab::threshold("warp_uniform_speedup");  // sampling stops once clear of it
    const cudalab::Comparison cmp = cudalab::compare_kernels(divergent, yours, opts);
    cudalab::expect_speedup(
        {"heavyKernel2", baseline_name, cmp, cudalab::threshold("warp_uniform_speedup"), "warp_uniform_speedup"});
    return;
  }
  opts.stop_when_clear_of = cudalab::threshold("warp_uniform_vs_reference");
  const cudalab::Comparison cmp = cudalab::compare_kernels(
      [&] { reference.launch(grid, block, 0, nullptr, in.get(), out.get(), n, iters); }, yours, opts);
  cudalab::expect_speedup({"heavyKernel2", "the reference solution's heavyKernel2", cmp,
                           cudalab::threshold("warp_uniform_vs_reference"), "warp_uniform_vs_reference"});
  // The lesson's figure, not graded here: the divergent baseline timed alone on the same data.
  cudalab::TimingOptions alone;
  alone.reps = opts.reps;
  const cudalab::TimingStats base = cudalab::time_kernel(divergent, alone);
  if (base.ok && cmp.candidate.ok && cmp.candidate.median_ms > 0)
    std::printf("[ CUDALAB  ] the lesson: %s takes %.3f ms, your heavyKernel2 %.3f ms: %.2fx faster (not graded)\n",
                baseline_name, base.median_ms, cmp.candidate.median_ms, base.median_ms / cmp.candidate.median_ms);
}

}  // namespace
